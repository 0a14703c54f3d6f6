-- Messages a failed orchestrator turn had claimed go back to pending (exactly-once delivery even when
-- a turn fails), counted per message so one that keeps failing turns stops waking the orchestrator
-- by itself (it stays pending, shown as such, and rides along with the next turn something else
-- starts).
alter table dispatch.user_messages add column failed_turns integer not null default 0;

comment on column dispatch.user_messages.failed_turns is
  'How many orchestrator turns claimed this message and then failed (each returned it to pending).';

insert into dispatch.event_types (name, tier, description) values
  ('user_message.returned', 'raw', 'a failed orchestrator turn gave a claimed user message back: pending again (session_id, failed_turns, will_retry)');
