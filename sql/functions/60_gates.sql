-- Hard gates, re-applied on every migrate: the decision for a tool call (the hook's question), opening
-- and deciding gates, parking a task whose worker was deferred. psql and the code share these.

-- The API's view of a gate (GET /api/gates, the decision route, push and the CLI).
create or replace function dispatch.gate_json(g dispatch.gates) returns jsonb
  language sql stable as $$
  select jsonb_build_object(
    'id', g.id, 'task_id', g.task_id, 'project_id', g.project_id, 'session_id', g.session_id, 'kind', g.kind,
    'category', g.category, 'rule', g.rule, 'tool', g.tool, 'input', g.input, 'subject', g.subject,
    'status', g.status, 'reason', g.reason, 'decision_reason', g.decision_reason, 'decided_by', g.decided_by,
    'decided_via', g.decided_via, 'created_at', dispatch.iso(g.created_at), 'decided_at', dispatch.iso(g.decided_at),
    'expires_at', dispatch.iso(g.expires_at),
    'project_name', (select p.name from dispatch.projects p where p.id = g.project_id),
    'task_brief', (select left(t.brief, 500) from dispatch.tasks t where t.id = g.task_id))
$$;

-- Opens a gate and journals gate.requested; the call's existing gate when there is one.
create or replace function dispatch.open_gate(project_id uuid, task_id uuid, session_id uuid, kind text,
                                              category text, rule text, tool text, input jsonb,
                                              tool_use_id text, reason text, timeout_minutes integer default null)
  returns dispatch.gates language plpgsql volatile as $$
#variable_conflict use_column
declare
  g dispatch.gates;
begin
  insert into dispatch.gates (project_id, task_id, session_id, kind, category, rule, tool, input, subject,
                              tool_use_id, reason, expires_at)
    values (open_gate.project_id, open_gate.task_id, open_gate.session_id, open_gate.kind, open_gate.category,
            open_gate.rule, open_gate.tool, open_gate.input, left(dispatch.gate_subject(open_gate.tool, open_gate.input), 4000),
            open_gate.tool_use_id, open_gate.reason,
            case when open_gate.timeout_minutes is not null then now() + make_interval(mins => open_gate.timeout_minutes) end)
    on conflict (task_id, tool_use_id) where tool_use_id is not null do nothing
    returning * into g;
  if not found then
    select * into g from dispatch.gates x where x.task_id = open_gate.task_id and x.tool_use_id = open_gate.tool_use_id;
    return g;
  end if;
  insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
    values (g.project_id, g.task_id, g.session_id, 'gate.requested',
            jsonb_build_object('gate_id', g.id, 'kind', g.kind, 'category', g.category, 'rule', g.rule, 'tool', g.tool,
                               'subject', g.subject, 'tool_use_id', g.tool_use_id, 'reason', g.reason,
                               'expires_at', dispatch.iso(g.expires_at)));
  return g;
end $$;

-- The hook's question: may this session run this tool call? Answers {decision, reason, gate_id?,
-- category?, rule?} with decision one of pass (no rule objects: the normal permissions apply),
-- allow (a person approved this very call), deny, ask (a gate is open: defer the call).
-- A decided gate for the same call (the resumed run asks again with the same tool_use_id) answers
-- first. Journals gate.checked for every rule that matched and every recorded decision it returns.
drop function if exists dispatch.gate_check(uuid, text, jsonb, text, text);
create or replace function dispatch.gate_check(session_id uuid, tool text, input jsonb, tool_use_id text default null,
                                               cwd text default null, reading jsonb default null)
  returns jsonb language plpgsql volatile as $$
declare
  s dispatch.sessions;
  g dispatch.gates;
  m record;
  answer jsonb;
begin
  select * into s from dispatch.sessions x where x.id = gate_check.session_id;
  if not found then
    raise exception 'no session %', gate_check.session_id using errcode = 'P0002';
  end if;
  if gate_check.tool_use_id is not null and s.task_id is not null then
    select * into g from dispatch.gates x where x.task_id = s.task_id and x.tool_use_id = gate_check.tool_use_id;
    if found then
      answer := jsonb_build_object(
        'decision', case g.status when 'approved' then 'allow' when 'open' then 'ask' else 'deny' end,
        'reason', case g.status
                    when 'approved' then coalesce('approved: ' || g.decision_reason, 'approved by a person')
                    when 'open' then g.reason
                    when 'expired' then coalesce(g.decision_reason, 'nobody decided in time')
                    else coalesce('denied by a person: ' || g.decision_reason, 'denied by a person') end,
        'gate_id', g.id, 'category', g.category, 'rule', g.rule);
      insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
        values (s.project_id, s.task_id, s.id, 'gate.checked',
                answer || jsonb_build_object('tool', gate_check.tool, 'subject', g.subject,
                                             'tool_use_id', gate_check.tool_use_id, 'by', 'gate'));
      return answer;
    end if;
  end if;

  -- The hook always sends the call's reading; a call asked about without one is not passed unread.
  select * into m from dispatch.gate_match(s.project_id, gate_check.tool, gate_check.input, gate_check.cwd,
    coalesce(gate_check.reading, '{"facts": ["unverified the call was asked about without a reading"]}'::jsonb));
  if not found then
    return jsonb_build_object('decision', 'pass');
  end if;
  if m.decision = 'ask' then
    g := dispatch.open_gate(s.project_id, s.task_id, s.id, 'tool', m.category, m.id, gate_check.tool, gate_check.input,
                            gate_check.tool_use_id, m.reason || coalesce(format(' (%s)', left(m.fact, 300)), ''), m.timeout_minutes);
    answer := jsonb_build_object('decision', 'ask', 'reason', m.reason, 'gate_id', g.id, 'category', m.category, 'rule', m.id);
  else
    answer := jsonb_build_object('decision', case m.decision when 'allow' then 'pass' else 'deny' end,
                                 'reason', m.reason, 'category', m.category, 'rule', m.id);
  end if;
  answer := answer || jsonb_strip_nulls(jsonb_build_object('fact', m.fact));
  insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
    values (s.project_id, s.task_id, s.id, 'gate.checked',
            answer || jsonb_build_object('tool', gate_check.tool,
                                         'subject', left(dispatch.gate_subject(gate_check.tool, gate_check.input), 4000),
                                         'tool_use_id', gate_check.tool_use_id, 'by', 'rule'));
  return answer;
end $$;

-- The hook's credential for one session (its working directory is what "outside" is measured from).
create or replace function dispatch.issue_gate_token(session_id uuid, cwd text) returns text
  language plpgsql volatile as $$
declare
  token text := 'pdg_' || encode(gen_random_bytes(24), 'hex');
begin
  insert into dispatch.gate_tokens (token_sha256, session_id, cwd)
    values (encode(digest(token, 'sha256'), 'hex'), issue_gate_token.session_id, issue_gate_token.cwd);
  return token;
end $$;


-- A worker's call was deferred: the task is parked `gated` (the reason names the call and the
-- category) and the return policy routes it to a person. The call's gate is the one its hook
-- opened; when the hook never reached dispatch (it fails closed), one is opened here. A gate that
-- was decided before the worker's process ended resumes the task at once.
create or replace function dispatch.park_task(task_id uuid, session_id uuid, tool text, input jsonb, tool_use_id text)
  returns uuid language plpgsql volatile as $$
declare
  t dispatch.tasks;
  g dispatch.gates;
  m record;
  what text;
begin
  select * into t from dispatch.tasks x where x.id = park_task.task_id for update;
  if not found then
    raise exception 'no task %', park_task.task_id using errcode = 'P0002';
  end if;
  select * into g from dispatch.gates x where x.task_id = t.id and x.tool_use_id = park_task.tool_use_id;
  if not found then
    select * into m from dispatch.gate_match(t.project_id, park_task.tool, park_task.input,
                                             (select k.cwd from dispatch.gate_tokens k where k.session_id = park_task.session_id limit 1));
    g := dispatch.open_gate(t.project_id, t.id, park_task.session_id, 'tool', 'unverified', m.id, park_task.tool,
                            park_task.input, park_task.tool_use_id,
                            'the gate hook could not get this call checked by dispatch, so it was deferred'
                              || coalesce(format(' (rule %s: %s)', m.id, m.reason), ''));
  end if;
  what := format('%s `%s`', g.tool, left(coalesce(g.subject, g.input::text), 200));
  if g.status = 'open' then
    perform dispatch.set_task_status(t.id, 'gated', format('waiting for a person: %s (%s: %s)', what, g.category, g.reason),
                                     jsonb_build_object('gate_id', g.id, 'category', g.category));
    perform dispatch.apply_return_policy(t.id);
  else
    perform dispatch.resume_gated(t.id, g);
  end if;
  return g.id;
end $$;

-- Sends a decided task back to work: its worker resumes and the hook finds the decision.
create or replace function dispatch.resume_gated(task_id uuid, g dispatch.gates) returns void
  language plpgsql volatile as $$
begin
  perform dispatch.set_task_status(resume_gated.task_id, 'running',
                                   format('gate %s: resuming the worker', g.status),
                                   jsonb_build_object('gate_id', g.id));
  perform graphile_worker.add_job('resume_worker', json_build_object('task_id', resume_gated.task_id),
                                  job_key := 'resume_worker:' || resume_gated.task_id, max_attempts := 25);
end $$;

-- Decides a gate: approve or deny, once. A second decision is refused (SQLSTATE PD409). Journals
-- one gate.decided (who, from where, when). A parked worker resumes; a gated spawn is submitted
-- (approve) or ends `skipped` and the orchestrator is told why (deny).
create or replace function dispatch.decide_gate(gate_id uuid, decision text, reason text default null,
                                                decided_by text default null, via text default 'sql')
  returns jsonb language plpgsql volatile as $$
declare
  g dispatch.gates;
  t dispatch.tasks;
  new_status text;
begin
  if decide_gate.decision not in ('approve', 'deny', 'expire') then
    raise exception 'decision must be approve or deny, not %', decide_gate.decision using errcode = '22023';
  end if;
  select * into g from dispatch.gates x where x.id = decide_gate.gate_id for update;
  if not found then
    raise exception 'no gate %', decide_gate.gate_id using errcode = 'P0002';
  end if;
  if g.status <> 'open' then
    raise exception 'gate % was already decided: %', g.id, g.status using errcode = 'PD409',
      detail = coalesce(format('by %s via %s at %s', g.decided_by, g.decided_via, dispatch.iso(g.decided_at)), '');
  end if;
  new_status := case decide_gate.decision when 'approve' then 'approved' when 'deny' then 'denied' else 'expired' end;
  -- The task first, then the gate (the order park_task locks in).
  if g.task_id is not null then
    select * into t from dispatch.tasks x where x.id = g.task_id for update;
  end if;
  update dispatch.gates x
     set status = new_status, decision_reason = nullif(btrim(decide_gate.reason), ''),
         decided_by = coalesce(decide_gate.decided_by, current_user), decided_via = coalesce(decide_gate.via, 'sql'),
         decided_at = now()
   where x.id = g.id
  returning * into g;
  insert into dispatch.events (project_id, task_id, session_id, event_type, payload)
    values (g.project_id, g.task_id, g.session_id, 'gate.decided',
            jsonb_build_object('gate_id', g.id, 'decision', new_status, 'reason', g.decision_reason,
                               'by', g.decided_by, 'via', g.decided_via, 'decided_at', dispatch.iso(g.decided_at),
                               'kind', g.kind, 'category', g.category, 'tool', g.tool, 'subject', g.subject));
  if t.id is not null and t.status = 'gated' then
    if g.kind = 'tool' then
      perform dispatch.resume_gated(t.id, g);
    elsif new_status = 'approved' then
      perform dispatch.set_task_status(t.id, 'queued', 'approved by a person', jsonb_build_object('gate_id', g.id));
      perform graphile_worker.add_job('spawn_worker', json_build_object('task_id', t.id),
                                      job_key := 'spawn_worker:' || t.id, max_attempts := 25);
    else
      perform dispatch.set_task_status(t.id, 'skipped',
                                       format('%s: %s', case new_status when 'expired' then 'nobody approved it in time'
                                                          else 'the person declined it' end,
                                              coalesce(g.decision_reason, 'no reason given')),
                                       jsonb_build_object('gate_id', g.id));
      perform dispatch.apply_return_policy(t.id);
      perform dispatch.request_turn(t.project_id, 'spawn declined at a gate');
    end if;
  end if;
  return dispatch.gate_json(g);
end $$;

comment on function dispatch.decide_gate(uuid, text, text, text, text) is
  'Decides an open gate (approve | deny) with an optional reason; refuses a second decision (PD409).';

-- Open gates whose rule set a timeout and whose time ran out are denied, journalled as expired.
create or replace function dispatch.expire_gates() returns integer
  language plpgsql volatile as $$
declare
  g dispatch.gates;
  n integer := 0;
begin
  for g in select * from dispatch.gates x where x.status = 'open' and x.expires_at <= now() order by x.expires_at loop
    perform dispatch.decide_gate(g.id, 'expire', format('nobody decided within the rule''s time (%s)',
                                                        to_char(g.expires_at - g.created_at, 'HH24:MI')), 'timeout', 'timeout');
    n := n + 1;
  end loop;
  return n;
end $$;

-- Gates for the API: open, decided or all, newest first, optionally of one project.
create or replace function dispatch.list_gates(status text default 'open', project_id uuid default null, lim integer default 100)
  returns jsonb language sql stable as $$
  select coalesce(jsonb_agg(dispatch.gate_json(g) order by g.created_at desc), '[]'::jsonb)
    from (select * from dispatch.gates x
           where (list_gates.status = 'all' or (list_gates.status = 'open') = (x.status = 'open'))
             and (list_gates.project_id is null or x.project_id = list_gates.project_id)
           order by x.created_at desc limit list_gates.lim) g
$$;

-- A spawn that waits for a person (interactive mode, or a ruled-out approach the orchestrator wants
-- to override): the task is created parked `gated` (not queued) under a gate of kind spawn.
-- Approving it queues the worker; denying it ends the task `skipped` and tells the orchestrator.
create or replace function dispatch.gate_spawn(project_id uuid, session_id uuid, brief text, approach text,
                                               plan_ref text, category text, reason text, details jsonb default '{}'::jsonb)
  returns jsonb language plpgsql volatile as $$
declare
  task uuid;
  g dispatch.gates;
begin
  task := dispatch.submit_task(gate_spawn.project_id, gate_spawn.brief, gate_spawn.approach, null, gate_spawn.plan_ref,
                               gate_spawn.session_id);
  -- Submitted like any task (journalled, nested under the turn), but it does not run until decided.
  perform graphile_worker.remove_job('spawn_worker:' || task);
  g := dispatch.open_gate(gate_spawn.project_id, task, gate_spawn.session_id, 'spawn', gate_spawn.category, null,
                          'spawn_worker',
                          jsonb_strip_nulls(jsonb_build_object('brief', gate_spawn.brief, 'approach', gate_spawn.approach,
                                                               'plan_ref', gate_spawn.plan_ref)) || coalesce(gate_spawn.details, '{}'::jsonb),
                          null, gate_spawn.reason);
  perform dispatch.set_task_status(task, 'gated', format('waiting for a person: start this worker (%s: %s)', g.category, g.reason),
                                   jsonb_build_object('gate_id', g.id, 'category', g.category));
  perform dispatch.apply_return_policy(task);
  return jsonb_build_object('task_id', task, 'gate_id', g.id);
end $$;
