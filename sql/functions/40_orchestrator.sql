-- The orchestrator loop in SQL: when to wake it, and claiming one turn's inputs atomically.

-- A turn is due when user messages wait and nothing the orchestrator started is still running
-- (FR-007: input sent while a worker runs waits for the next turn boundary).
create or replace function dispatch.wake_if_waiting(project_id uuid) returns boolean
  language plpgsql volatile as $$
begin
  if exists (select 1 from dispatch.user_messages m where m.project_id = wake_if_waiting.project_id and m.delivered_at is null
               and m.failed_turns < dispatch.message_turn_attempts())
     and not exists (select 1 from dispatch.tasks t
                      where t.project_id = wake_if_waiting.project_id and t.ended_at is null and t.spawned_by_session is not null)
     and not exists (select 1 from dispatch.sessions s
                      where s.project_id = wake_if_waiting.project_id and s.role = 'orchestrator' and s.ended_at is null) then
    perform dispatch.request_turn(wake_if_waiting.project_id, 'pending messages');
    return true;
  end if;
  return false;
end $$;

-- How many failed turns a message is given back after before it stops waking the orchestrator itself.
create or replace function dispatch.message_turn_attempts() returns integer
  language sql immutable as $$ select 3 $$;

-- A failed orchestrator turn gives back the user messages it claimed: pending again (delivered_at
-- cleared), one user_message.returned each, so the next turn delivers them — once. Called by
-- session_exited for every orchestrator session that did not end clean, whichever runner saw it end.
create or replace function dispatch.return_turn_messages(session_id uuid, reason text default null) returns integer
  language plpgsql volatile as $$
declare
  s dispatch.sessions;
  n integer;
begin
  select * into s from dispatch.sessions ss where ss.id = return_turn_messages.session_id;
  if not found then
    raise exception 'no session %', return_turn_messages.session_id using errcode = 'P0002';
  end if;
  with back as (
    update dispatch.user_messages m
       set delivered_at = null, delivered_to = null, failed_turns = m.failed_turns + 1
     where m.delivered_to = return_turn_messages.session_id
    returning m.*
  )
  insert into dispatch.events (project_id, session_id, message_id, parent_id, event_type, payload)
  select b.project_id, return_turn_messages.session_id, b.message_id, b.event_id, 'user_message.returned',
         jsonb_build_object('session_id', return_turn_messages.session_id, 'failed_turns', b.failed_turns,
                            'will_retry', b.failed_turns < dispatch.message_turn_attempts(),
                            'reason', coalesce(return_turn_messages.reason, s.status_reason, s.status))
    from back b order by b.seq;
  get diagnostics n = row_count;
  return n;
end $$;

-- Claims the next turn of a project's orchestrator: creates its session, journals what it is given
-- (orchestrator.turn_input) and marks the pending messages delivered to it — all in one
-- transaction, so each message is delivered exactly once. Returns null when there is nothing new.
create or replace function dispatch.claim_orchestrator_turn(project_id uuid) returns jsonb
  language plpgsql volatile as $$
declare
  prev_seq bigint;
  head bigint;
  msgs jsonb;
  handoffs jsonb;
  not_clean jsonb;
  focus jsonb;
  resume text;
  sid uuid;
  cause uuid;
  input jsonb;
begin
  -- One claim at a time per project, whatever the number of runners.
  perform pg_advisory_xact_lock(hashtextextended('dispatch.orchestrator:' || claim_orchestrator_turn.project_id::text, 0));
  select coalesce(max(seq), 0) into head from dispatch.events;
  select coalesce(max((e.payload->>'input_seq')::bigint), 0) into prev_seq from dispatch.events e
   where e.project_id = claim_orchestrator_turn.project_id and e.event_type = 'orchestrator.turn_input';

  select coalesce(jsonb_agg(jsonb_build_object('message_id', m.message_id, 'event_id', m.event_id, 'seq', m.seq,
                                               'text', m.text, 'created_at', m.created_at, 'failed_turns', m.failed_turns)
                          order by m.seq), '[]'::jsonb)
    into msgs
    from dispatch.user_messages m
   where m.project_id = claim_orchestrator_turn.project_id and m.delivered_at is null;

  select coalesce(jsonb_agg(jsonb_build_object('handoff_id', e.event_id, 'task_id', e.task_id, 'seq', e.seq,
                                               'fields', e.payload) order by e.seq), '[]'::jsonb)
    into handoffs
    from dispatch.events e
   where e.project_id = claim_orchestrator_turn.project_id and e.tier = 'derived' and e.event_type = 'handoff'
     and e.seq > prev_seq and e.seq <= head;

  select coalesce(jsonb_agg(jsonb_build_object('task_id', e.task_id, 'event_id', e.event_id, 'status', e.payload->>'status',
                                               'reason', e.payload->>'reason', 'attempt', e.payload->'attempt',
                                               'approach', t.approach) order by e.seq), '[]'::jsonb)
    into not_clean
    from dispatch.events e join dispatch.tasks t on t.id = e.task_id
                           join dispatch.statuses st on st.name = e.payload->>'status'
   where e.project_id = claim_orchestrator_turn.project_id and e.event_type = 'task.status_changed'
     and st.terminal and not st.clean
     and e.seq > prev_seq and e.seq <= head;

  if jsonb_array_length(msgs) = 0 and jsonb_array_length(handoffs) = 0 and jsonb_array_length(not_clean) = 0 then
    return null;
  end if;

  select jsonb_build_object('thread_id', coalesce(e.payload->'thread_id', to_jsonb(e.thread_id)), 'task_id', e.task_id, 'seq', e.seq) into focus
    from dispatch.events e where e.event_type = 'focus.changed' order by e.seq desc limit 1;
  -- The conversation to continue is the last turn that succeeded: a failed turn's transcript may hold
  -- the messages it is giving back (turns fork, so a failed one never changed the one resumed).
  select s.claude_session_id into resume from dispatch.sessions s
   where s.project_id = claim_orchestrator_turn.project_id and s.role = 'orchestrator' and s.claude_session_id is not null
     and s.status = 'success'
   order by s.created_at desc limit 1;

  insert into dispatch.sessions (project_id, role) values (claim_orchestrator_turn.project_id, 'orchestrator') returning id into sid;

  -- What caused the turn: the newest of its inputs.
  select x.id into cause from (
    select (h->>'handoff_id')::uuid as id, (h->>'seq')::bigint as seq from jsonb_array_elements(handoffs) h
    union all select (m->>'event_id')::uuid, (m->>'seq')::bigint from jsonb_array_elements(msgs) m
    union all select (n->>'event_id')::uuid, 0 from jsonb_array_elements(not_clean) n
  ) x order by x.seq desc limit 1;

  input := jsonb_build_object('session_id', sid, 'input_seq', head, 'previous_input_seq', prev_seq,
                              'messages', msgs, 'handoffs', handoffs, 'not_clean', not_clean,
                              'focus', focus, 'resume', resume);
  insert into dispatch.events (project_id, session_id, parent_id, event_type, payload)
    values (claim_orchestrator_turn.project_id, sid, cause, 'orchestrator.turn_input', input);

  update dispatch.user_messages m set delivered_at = now(), delivered_to = sid
   where m.project_id = claim_orchestrator_turn.project_id and m.delivered_at is null;
  insert into dispatch.events (project_id, session_id, message_id, parent_id, event_type, payload)
  select claim_orchestrator_turn.project_id, sid, (m->>'message_id')::uuid, (m->>'event_id')::uuid,
         'user_message.delivered', jsonb_build_object('session_id', sid)
    from jsonb_array_elements(msgs) m;
  return input;
end $$;

-- After a handoff is written: in autonomous mode a handoff of work the orchestrator started wakes
-- it (the loop closes itself); otherwise only waiting messages do.
create or replace function dispatch.after_handoff(task_id uuid) returns void
  language plpgsql volatile as $$
declare
  t dispatch.tasks;
  mode text;
begin
  select * into t from dispatch.tasks tk where tk.id = after_handoff.task_id;
  select coalesce(p.config->>'mode', 'autonomous') into mode from dispatch.projects p where p.id = t.project_id;
  if t.spawned_by_session is not null and mode = 'autonomous' then
    perform dispatch.request_turn(t.project_id, 'handoff');
  else
    perform dispatch.wake_if_waiting(t.project_id);
  end if;
end $$;

-- Journals the orchestrator's working set after a turn (FR-006); GET /api/state serves the latest.
create or replace function dispatch.journal_working_set(project_id uuid, session_id uuid, working_set jsonb)
  returns uuid language plpgsql volatile as $$
declare
  ev uuid;
begin
  insert into dispatch.events (project_id, session_id, event_type, payload)
    values (journal_working_set.project_id, journal_working_set.session_id, 'orchestrator.working_set',
            journal_working_set.working_set)
    returning event_id into ev;
  return ev;
end $$;

-- spawn_worker (MCP) refused an approach a prior handoff ruled out: journalled with the matches.
create or replace function dispatch.refuse_spawn(project_id uuid, session_id uuid, approach text, brief text, matches jsonb)
  returns uuid language plpgsql volatile as $$
declare
  ev uuid;
begin
  insert into dispatch.events (project_id, session_id, event_type, payload)
    values (refuse_spawn.project_id, refuse_spawn.session_id, 'spawn.refused',
            jsonb_build_object('approach', refuse_spawn.approach, 'brief', left(refuse_spawn.brief, 2000),
                               'matches', refuse_spawn.matches))
    returning event_id into ev;
  return ev;
end $$;

-- spawn_worker (MCP) runs a ruled-out approach on an explicit override: journalled with its reason.
-- Call it in the transaction that submits the task.
create or replace function dispatch.override_spawn(project_id uuid, session_id uuid, approach text, override_reason text,
                                                   matches jsonb)
  returns uuid language plpgsql volatile as $$
declare
  ev uuid;
begin
  insert into dispatch.events (project_id, session_id, event_type, payload)
    values (override_spawn.project_id, override_spawn.session_id, 'spawn.override',
            jsonb_build_object('approach', override_spawn.approach, 'override_reason', override_spawn.override_reason,
                               'matches', override_spawn.matches))
    returning event_id into ev;
  return ev;
end $$;
