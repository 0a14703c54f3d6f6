-- The journal's own triggers and their functions, re-applied on every migrate: the seq that orders
-- it, its references checked per statement, and its rows (and the contract's) never changed.
-- Each trigger is defined through dispatch.define_trigger (01_define_trigger.sql).
--
-- One insert into dispatch.events runs, in this order (Postgres fires the triggers of one timing
-- and level in name order, each row's AFTER ROW triggers before the statement's AFTER STATEMENT
-- ones; a new trigger's name decides where it fires):
--   before the statement  events_lock_seq              the lock that keeps commits in seq order
--   before each row       events_assign_seq            derived-row gate, seq, thread_ref
--   after each row        events_push                  a notifying status or a stopped loop → push_notify (55_push_triggers.sql)
--                         events_push_budget           budget.reached → push_notify (55_push_triggers.sql)
--                         events_push_gate             gate.requested → push_notify (55_push_triggers.sql)
--                         events_push_session_stalled  a non-worker's session.stalled → push_notify (55_push_triggers.sql)
--                         events_settle_dependents     verify.finished → settle_dependents, deferred to commit (21_dependencies.sql)
--   after the statement   events_check_and_notify      references checked, one NOTIFY dispatch_events
-- An update or delete of a row is refused by events_append_only, a truncate by events_no_truncate.

-- seq is the only ordering authority, so it must agree with visibility: a reader paging with
-- seq > last must never later find a smaller seq commit. A transaction-scoped advisory lock taken
-- before the statement's first row draws a seq serialises journal commits in seq order (one
-- ordering domain), held to the end of the transaction. Once per statement, not per row (0025).
create or replace function dispatch.events_lock_seq() returns trigger
  language plpgsql volatile as $$
begin
  perform pg_advisory_xact_lock(7201150001);
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_lock_seq', $$
create or replace trigger events_lock_seq before insert on dispatch.events
  for each statement execute function dispatch.events_lock_seq()
$$);

-- The rest of a row's envelope: a derived row only from the validation gate (D-18), inheriting its
-- parent's thread; the seq; thread_ref follows an integer thread_id.
create or replace function dispatch.events_assign_seq() returns trigger
  language plpgsql volatile as $$
begin
  if new.tier = 'derived' then
    -- Derived rows (handoffs) are written only by the validation gate, inside its transaction (D-18).
    if coalesce(current_setting('dispatch.handoff_gate', true), '') <> 'validated' then
      raise exception 'derived rows are written only by the handoff validation gate'
        using errcode = 'PD002', hint = 'Submit the extractor output to validate_handoff instead.';
    end if;
    if new.thread_id is null and new.thread_ref is null and new.parent_id is not null then
      select e.thread_id, e.thread_ref into new.thread_id, new.thread_ref from dispatch.events e where e.event_id = new.parent_id;
    end if;
  end if;
  -- Drawn under events_lock_seq's lock, taken by this statement before its first row.
  new.seq := nextval('dispatch.events_seq');
  if new.thread_ref is null and new.thread_id is not null then
    new.thread_ref := new.thread_id::text;
  end if;
  return new;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_assign_seq', $$
create or replace trigger events_assign_seq before insert on dispatch.events
  for each row execute function dispatch.events_assign_seq()
$$);

-- The journal's references, checked once per statement instead of once per row (a foreign key is
-- a row-level check: four lookups per row, about a quarter of the database's time per journalled
-- line). One statement-level trigger checks the distinct references of the whole batch against
-- their tables and refuses the statement with the foreign-key SQLSTATE (23503) naming what is
-- missing, then sends the batch's one NOTIFY, carrying the highest seq. The other direction of a
-- foreign key is kept by the *_keep_journal_refs triggers below.
create or replace function dispatch.events_check_and_notify() returns trigger
  language plpgsql volatile as $$
declare
  top bigint;
  missing text;
begin
  select max(seq) into top from inserted;
  if top is null then
    return null; -- nothing inserted (every row was already journalled)
  end if;

  select i.event_type into missing
    from (select distinct event_type from inserted) i
   where not exists (select 1 from dispatch.event_types t where t.name = i.event_type) limit 1;
  if found then
    raise exception 'insert into dispatch.events refused: unknown event type "%"', missing
      using errcode = '23503', hint = 'Add it with one INSERT into dispatch.event_types first.';
  end if;
  select i.project_id::text into missing
    from (select distinct project_id from inserted where project_id is not null) i
   where not exists (select 1 from dispatch.projects t where t.id = i.project_id) limit 1;
  if found then
    raise exception 'insert into dispatch.events refused: no project %', missing using errcode = '23503';
  end if;
  select i.session_id::text into missing
    from (select distinct session_id from inserted where session_id is not null) i
   where not exists (select 1 from dispatch.sessions t where t.id = i.session_id) limit 1;
  if found then
    raise exception 'insert into dispatch.events refused: no session %', missing using errcode = '23503';
  end if;
  select i.task_id::text into missing
    from (select distinct task_id from inserted where task_id is not null) i
   where not exists (select 1 from dispatch.tasks t where t.id = i.task_id) limit 1;
  if found then
    raise exception 'insert into dispatch.events refused: no task %', missing using errcode = '23503';
  end if;
  select i.parent_id::text into missing
    from (select distinct parent_id from inserted where parent_id is not null) i
   where not exists (select 1 from dispatch.events t where t.event_id = i.parent_id) limit 1;
  if found then
    raise exception 'insert into dispatch.events refused: no parent event %', missing using errcode = '23503';
  end if;

  perform pg_notify('dispatch_events', top::text);
  return null;
end $$;

select dispatch.define_trigger('dispatch.events', 'events_check_and_notify', $$
create or replace trigger events_check_and_notify after insert on dispatch.events
  referencing new table as inserted
  for each statement execute function dispatch.events_check_and_notify()
$$);

-- The journal and the contract are append-only, enforced by the database itself.
create or replace function dispatch.refuse_change() returns trigger
  language plpgsql volatile as $$
begin
  raise exception '%.% is append-only: % is not allowed', tg_table_schema, tg_table_name, lower(tg_op)
    using errcode = 'PD001', hint = 'Journal rows are never updated or deleted; append a new event instead.';
end $$;

select dispatch.define_trigger('dispatch.events', 'events_append_only', $$
create or replace trigger events_append_only before update or delete on dispatch.events
  for each row execute function dispatch.refuse_change()
$$);
select dispatch.define_trigger('dispatch.events', 'events_no_truncate', $$
create or replace trigger events_no_truncate before truncate on dispatch.events
  for each statement execute function dispatch.refuse_change()
$$);
select dispatch.define_trigger('dispatch.contract', 'contract_append_only', $$
create or replace trigger contract_append_only before update or delete on dispatch.contract
  for each row execute function dispatch.refuse_change()
$$);
select dispatch.define_trigger('dispatch.contract', 'contract_no_truncate', $$
create or replace trigger contract_no_truncate before truncate on dispatch.contract
  for each statement execute function dispatch.refuse_change()
$$);

-- A row the journal points at stays: no delete, no new key.
create or replace function dispatch.refuse_unlinking_journal() returns trigger
  language plpgsql volatile as $$
declare
  key text := case when tg_table_name = 'event_types' then 'name' else 'id' end;
  referenced boolean;
begin
  if tg_op = 'UPDATE' and to_jsonb(new) -> key = to_jsonb(old) -> key then
    return new;
  end if;
  case tg_table_name
    when 'projects' then
      referenced := exists (select 1 from dispatch.events where project_id = old.id);
    when 'sessions' then
      referenced := exists (select 1 from dispatch.events where session_id = old.id);
    when 'tasks' then
      referenced := exists (select 1 from dispatch.events where task_id = old.id);
    when 'event_types' then
      referenced := exists (select 1 from dispatch.events where event_type = old.name);
  end case;
  if referenced then
    raise exception '%.% row is referenced by the journal: % is not allowed', tg_table_schema, tg_table_name, lower(tg_op)
      using errcode = '23503', hint = 'Journal rows are never removed, so neither is what they point at.';
  end if;
  return case when tg_op = 'DELETE' then old else new end;
end $$;

select dispatch.define_trigger('dispatch.projects', 'projects_keep_journal_refs', $$
create or replace trigger projects_keep_journal_refs before delete or update of id on dispatch.projects
  for each row execute function dispatch.refuse_unlinking_journal()
$$);
select dispatch.define_trigger('dispatch.sessions', 'sessions_keep_journal_refs', $$
create or replace trigger sessions_keep_journal_refs before delete or update of id on dispatch.sessions
  for each row execute function dispatch.refuse_unlinking_journal()
$$);
select dispatch.define_trigger('dispatch.tasks', 'tasks_keep_journal_refs', $$
create or replace trigger tasks_keep_journal_refs before delete or update of id on dispatch.tasks
  for each row execute function dispatch.refuse_unlinking_journal()
$$);
select dispatch.define_trigger('dispatch.event_types', 'event_types_keep_journal_refs', $$
create or replace trigger event_types_keep_journal_refs before delete or update of name on dispatch.event_types
  for each row execute function dispatch.refuse_unlinking_journal()
$$);

create or replace function dispatch.refuse_truncating_journal_refs() returns trigger
  language plpgsql volatile as $$
begin
  raise exception 'truncate %.% is not allowed: the journal points at its rows', tg_table_schema, tg_table_name
    using errcode = '23503';
end $$;

select dispatch.define_trigger('dispatch.projects', 'projects_no_truncate', $$
create or replace trigger projects_no_truncate before truncate on dispatch.projects
  for each statement execute function dispatch.refuse_truncating_journal_refs()
$$);
select dispatch.define_trigger('dispatch.sessions', 'sessions_no_truncate', $$
create or replace trigger sessions_no_truncate before truncate on dispatch.sessions
  for each statement execute function dispatch.refuse_truncating_journal_refs()
$$);
select dispatch.define_trigger('dispatch.tasks', 'tasks_no_truncate', $$
create or replace trigger tasks_no_truncate before truncate on dispatch.tasks
  for each statement execute function dispatch.refuse_truncating_journal_refs()
$$);
select dispatch.define_trigger('dispatch.event_types', 'event_types_no_truncate', $$
create or replace trigger event_types_no_truncate before truncate on dispatch.event_types
  for each statement execute function dispatch.refuse_truncating_journal_refs()
$$);
