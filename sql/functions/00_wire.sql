-- How values leave the database for the API, re-applied on every migrate.

-- A timestamp as the API writes it: ISO 8601 in UTC with milliseconds, exactly what JavaScript's
-- Date.prototype.toISOString gives (both truncate the microseconds).
create or replace function dispatch.iso(t timestamptz) returns text
  language sql stable as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
