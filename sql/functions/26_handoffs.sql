-- The validation gate's refusal, re-applied on every migrate. (A handoff that passes is written
-- by the gate itself, inside its own transaction: jobs/tasks/validate_handoff.ts.)

-- Journals handoff.rejected with the gate's errors and the extractor's answer (clipped).
create or replace function dispatch.reject_handoff(task_id uuid, extractor_session_id uuid, errors jsonb,
                                                   answer text, attempt integer)
  returns uuid language plpgsql volatile as $$
declare
  t dispatch.tasks;
  ev uuid;
begin
  select * into t from dispatch.tasks tk where tk.id = reject_handoff.task_id;
  if not found then
    raise exception 'no task %', reject_handoff.task_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (t.project_id, reject_handoff.extractor_session_id, t.id, 'handoff.rejected',
            jsonb_build_object('errors', reject_handoff.errors, 'answer', left(reject_handoff.answer, 4000),
                               'attempt', reject_handoff.attempt))
    returning event_id into ev;
  return ev;
end $$;
