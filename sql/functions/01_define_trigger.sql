-- How the function files define a trigger, re-applied on every migrate.
--
-- A trigger's current definition lives in sql/functions like a function's body, but it is not
-- simply re-run at each start: `create or replace trigger` takes a SHARE ROW EXCLUSIVE lock on its
-- table, which waits for every writer of the table and holds the next ones back, and a process
-- starting beside a busy runner would stall the journal (or deadlock with a transaction that writes
-- two of the tables). So define_trigger runs the definition only when the trigger is missing, was
-- applied from other text, or was changed or disabled since; the trigger's comment records what
-- was applied (`\dd` in psql shows it).

create or replace function dispatch.trigger_mark(definition text, trigger_oid oid) returns text
  language sql stable as $$
  select 'defined in sql/functions, ' || md5(definition || '|' || pg_get_triggerdef(t.oid) || '|' || t.tgenabled::text)
    from pg_trigger t where t.oid = trigger_oid
$$;

-- definition: one `create or replace trigger <trigger_name> … on <on_table> …` statement.
-- Returns whether it ran.
create or replace function dispatch.define_trigger(on_table regclass, trigger_name text, definition text)
  returns boolean language plpgsql volatile as $$
declare
  t oid;
begin
  select g.oid into t from pg_trigger g where g.tgrelid = on_table and g.tgname = trigger_name and not g.tgisinternal;
  if t is not null and obj_description(t, 'pg_trigger') is not distinct from dispatch.trigger_mark(definition, t) then
    return false;
  end if;
  execute definition;
  select g.oid into t from pg_trigger g where g.tgrelid = on_table and g.tgname = trigger_name and not g.tgisinternal;
  if t is null then
    raise exception 'define_trigger: the definition of % did not create a trigger of that name on %', trigger_name, on_table;
  end if;
  execute format('comment on trigger %I on %s is %L', trigger_name, on_table, dispatch.trigger_mark(definition, t));
  return true;
end $$;
