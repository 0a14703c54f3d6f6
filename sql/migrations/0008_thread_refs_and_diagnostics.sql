-- (1) Trellis thread ids as Trellis gives them. Trellis ids may be strings ("th_8f2…") or numbers;
--     events.thread_id (bigint) cannot hold the first. thread_ref is the id as text, on every row
--     that names a thread: the journal's thread seam (D-22, still no FK). thread_id stays filled
--     when the id is an integer, so readers of the bigint column keep working. The exact JSON value
--     (string or number) is kept in the payload of focus.changed, so nothing is lost on the wire.
-- (2) Crash and restart counts (SC-2): client errors, server starts and clean stops.

-- (1) No default and no check: adding the column does not rewrite the journal.
alter table dispatch.events add column thread_ref text;
create index events_thread_ref_seq_idx on dispatch.events (thread_ref, seq) where thread_ref is not null;

-- The trigger of 0001, plus: thread_ref follows an integer thread_id, and a derived row inherits
-- its parent's thread_ref as it inherits its thread_id.
create or replace function dispatch.events_assign_seq() returns trigger
  language plpgsql volatile as $$
begin
  -- Derived rows (handoffs) are written only by the validation gate, inside its transaction (D-18).
  if new.tier = 'derived' and coalesce(current_setting('dispatch.handoff_gate', true), '') <> 'validated' then
    raise exception 'derived rows are written only by the handoff validation gate'
      using errcode = 'PD002', hint = 'Submit the extractor output to validate_handoff instead.';
  end if;
  perform pg_advisory_xact_lock(7201150001);
  new.seq := nextval('dispatch.events_seq');
  if new.tier = 'derived' and new.thread_id is null and new.thread_ref is null and new.parent_id is not null then
    select e.thread_id, e.thread_ref into new.thread_id, new.thread_ref from dispatch.events e where e.event_id = new.parent_id;
  end if;
  if new.thread_ref is null and new.thread_id is not null then
    new.thread_ref := new.thread_id::text;
  end if;
  return new;
end $$;

-- set_focus now takes the thread as JSON (a string or a number); sql/functions/30_reads.sql
-- defines the new one. The bigint one would make set_focus(null, …) ambiguous.
drop function if exists dispatch.set_focus(bigint, uuid);

-- (2)
insert into dispatch.event_types (name, tier, description) values
  ('client.error', 'raw', 'a client crashed: an uncaught error, an unhandled rejection or a stream that could not reconnect'),
  ('server.started', 'raw', 'a server or runner process started; payload.previous says whether the one before it stopped cleanly'),
  ('server.stopped', 'raw', 'a server or runner process stopped cleanly');
