-- Crash and restart counts (SC-2: at most 5 crashes a day). A server or runner process journals
-- server.started when it starts and server.stopped when it stops cleanly; a start that finds the
-- previous start of the same instance without its stop counts an unclean stop (kill -9, a crash,
-- power loss). Clients journal their crashes as client.error. health_daily counts them per day.

-- instance names one process slot (host, mode, port, data folder), so two processes that share a
-- database do not read each other's stops.
create or replace function dispatch.server_started(instance text, pid integer, host text, mode text, version text) returns jsonb
  language plpgsql volatile as $$
declare
  prev record;
  previous jsonb;
  ev uuid;
begin
  -- Two starts of one instance at once would both read the same previous start.
  perform pg_advisory_xact_lock(hashtextextended('dispatch.server_instance:' || server_started.instance, 0)); -- core/db/locks.ts
  select e.event_id, e.created_at, e.payload into prev
    from dispatch.events e
   where e.event_type = 'server.started' and e.payload->>'instance' = server_started.instance
   order by e.created_at desc, e.seq desc limit 1;
  if found then
    previous := jsonb_build_object(
      'event_id', prev.event_id,
      'started_at', dispatch.iso(prev.created_at),
      'pid', prev.payload->'pid',
      'stop', case when exists (select 1 from dispatch.events s
                                 where s.event_type = 'server.stopped' and s.payload->>'started_event' = prev.event_id::text)
                   then 'clean' else 'unclean' end);
  end if;
  insert into dispatch.events (event_type, payload)
    values ('server.started', jsonb_build_object('instance', server_started.instance, 'pid', server_started.pid,
                                                 'host', server_started.host, 'mode', server_started.mode,
                                                 'version', server_started.version, 'previous', previous))
    returning event_id into ev;
  return jsonb_build_object('event_id', ev, 'previous', previous);
end $$;

create or replace function dispatch.server_stopped(started_event uuid, reason text) returns uuid
  language plpgsql volatile as $$
declare
  ev uuid;
  started timestamptz;
begin
  select e.created_at into started from dispatch.events e where e.event_id = server_stopped.started_event and e.event_type = 'server.started';
  if not found then
    raise exception 'no server.started event %', server_stopped.started_event using errcode = 'P0002';
  end if;
  insert into dispatch.events (event_type, payload)
    values ('server.stopped', jsonb_build_object('started_event', server_stopped.started_event, 'reason', server_stopped.reason,
                                                 'uptime_ms', floor(extract(epoch from clock_timestamp() - started) * 1000)::bigint))
    returning event_id into ev;
  return ev;
end $$;

-- One client crash report (already validated by the API): payload {kind, message, stack?, source?,
-- app_version, view, user_agent?, ...}.
create or replace function dispatch.client_error(report jsonb) returns uuid
  language plpgsql volatile as $$
declare
  ev uuid;
begin
  if jsonb_typeof(client_error.report) <> 'object' or coalesce(client_error.report->>'kind', '') = '' then
    raise exception 'a client error report is an object with a kind' using errcode = '22023';
  end if;
  insert into dispatch.events (event_type, payload) values ('client.error', client_error.report) returning event_id into ev;
  return ev;
end $$;

-- Per UTC day, the last `days` days up to and including `until`: client crashes, unclean stops,
-- crashes (their sum: the SC-2 figure), starts, and restarts (starts that followed an earlier one).
create or replace function dispatch.health_daily(days integer default 14, until date default (now() at time zone 'UTC')::date) returns jsonb
  language sql stable as $$
  with span as (
    select d::date as day from generate_series(until - (greatest(1, least(days, 366)) - 1), until, interval '1 day') d
  ), counted as (
    select (e.created_at at time zone 'UTC')::date as day,
           count(*) filter (where e.event_type = 'client.error') as client_crashes,
           count(*) filter (where e.event_type = 'server.started' and e.payload->'previous'->>'stop' = 'unclean') as unclean_stops,
           count(*) filter (where e.event_type = 'server.started') as starts,
           count(*) filter (where e.event_type = 'server.started' and jsonb_typeof(e.payload->'previous') = 'object') as restarts
      from dispatch.events e
     where e.event_type in ('client.error', 'server.started')
       and e.created_at >= ((select min(day) from span)::timestamp at time zone 'UTC')
       and e.created_at < (((select max(day) from span) + 1)::timestamp at time zone 'UTC')
     group by 1
  )
  select coalesce(jsonb_agg(jsonb_build_object(
           'day', to_char(s.day, 'YYYY-MM-DD'),
           'crashes', coalesce(c.client_crashes, 0) + coalesce(c.unclean_stops, 0),
           'client_crashes', coalesce(c.client_crashes, 0),
           'unclean_stops', coalesce(c.unclean_stops, 0),
           'restarts', coalesce(c.restarts, 0),
           'starts', coalesce(c.starts, 0)) order by s.day desc), '[]'::jsonb)
    from span s left join counted c on c.day = s.day
$$;
