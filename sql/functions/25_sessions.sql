-- Session lifecycle, re-applied on every migrate. A session is one process run; the runner that
-- supervises it reports what it observes through these functions, each of which moves the
-- session's cache columns and journals the event in one transaction. The stdout lines themselves
-- are appended in bulk by the journal writer (jobs/journal-writer.ts).

-- The process started: journals session.spawned under the event that caused it.
create or replace function dispatch.session_started(session_id uuid, pid integer, host text, runner_id text,
                                                    spool_path text, cwd text, argv jsonb, cause uuid default null)
  returns uuid language plpgsql volatile as $$
declare
  s dispatch.sessions;
  ev uuid;
begin
  update dispatch.sessions ss
     set status = 'running', pid = session_started.pid, host = session_started.host,
         runner_id = session_started.runner_id, spool_path = session_started.spool_path,
         started_at = now(), heartbeat_at = now()
   where ss.id = session_started.session_id
  returning * into s;
  if not found then
    raise exception 'no session %', session_started.session_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, session_id, task_id, parent_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, session_started.cause, 'session.spawned',
            jsonb_build_object('pid', s.pid, 'host', s.host, 'role', s.role, 'runner_id', s.runner_id,
                               'cwd', session_started.cwd, 'argv', session_started.argv))
    returning event_id into ev;
  return ev;
end $$;

comment on function dispatch.session_started(uuid, integer, text, text, text, text, jsonb, uuid) is
  'Marks a session running with its pid, host, runner and spool, and journals session.spawned; returns the event id.';

-- A runner took over a session whose runner went away. Returns how many of its stdout lines are
-- journalled already (the new runner reads the spool on from there).
create or replace function dispatch.session_adopted(session_id uuid, runner_id text, pid integer, process_alive boolean)
  returns integer language plpgsql volatile as $$
declare
  s dispatch.sessions;
  done integer;
begin
  select coalesce(max(e.line_no) + 1, 0)::int into done
    from dispatch.events e where e.session_id = session_adopted.session_id and e.line_no is not null;
  update dispatch.sessions ss
     set runner_id = session_adopted.runner_id, adopted_by = session_adopted.runner_id, heartbeat_at = now()
   where ss.id = session_adopted.session_id
  returning * into s;
  if not found then
    raise exception 'no session %', session_adopted.session_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, 'session.adopted',
            jsonb_build_object('runner_id', session_adopted.runner_id, 'pid', session_adopted.pid,
                               'process_alive', session_adopted.process_alive, 'lines_already_journalled', done));
  return done;
end $$;

-- Stall and resume take their locks in the order the other writers take them, so none of them
-- deadlocks with these: the task row first (cancel_task and set_task_status lock it before they
-- journal), then the journal's lock (the journal writer takes it before it touches the session
-- row), then the session row.
create or replace function dispatch.lock_for_session_write(s dispatch.sessions) returns void
  language plpgsql volatile as $$
begin
  if s.task_id is not null and s.role = 'worker' then
    perform 1 from dispatch.tasks t where t.id = s.task_id for update;
  end if;
  perform pg_advisory_xact_lock(7201150001); -- core/db/locks.ts LOCKS.journalSeq
end $$;

-- A live process has been silent for the stall threshold. A worker's task follows (stalled).
-- Once per stall: a session that is stalled already (or over) is left alone, so a runner that
-- adopts a silent session does not journal — and push — its stall a second time.
create or replace function dispatch.session_stalled(session_id uuid, silent_ms bigint, threshold_ms bigint)
  returns void language plpgsql volatile as $$
declare
  s dispatch.sessions;
begin
  select * into s from dispatch.sessions ss where ss.id = session_stalled.session_id;
  if not found then
    raise exception 'no session %', session_stalled.session_id using errcode = 'P0002';
  end if;
  perform dispatch.lock_for_session_write(s);
  update dispatch.sessions ss set stalled = true, status = 'stalled'
   where ss.id = s.id and ss.ended_at is null and not ss.stalled;
  if not found then
    return;
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, 'session.stalled',
            jsonb_build_object('role', s.role, 'silent_for_ms', session_stalled.silent_ms, 'threshold_ms', session_stalled.threshold_ms));
  if s.task_id is not null and s.role = 'worker' then
    perform dispatch.set_task_status(s.task_id, 'stalled', format('no output for %s s', round(session_stalled.silent_ms / 1000.0)));
  end if;
end $$;

-- A stalled process printed again. A worker's task follows (running).
create or replace function dispatch.session_resumed(session_id uuid)
  returns void language plpgsql volatile as $$
declare
  s dispatch.sessions;
begin
  select * into s from dispatch.sessions ss where ss.id = session_resumed.session_id;
  if not found then
    raise exception 'no session %', session_resumed.session_id using errcode = 'P0002';
  end if;
  perform dispatch.lock_for_session_write(s);
  update dispatch.sessions ss set stalled = false, status = 'running'
   where ss.id = s.id and ss.ended_at is null and ss.stalled;
  if not found then
    return; -- not stalled (or over): nothing resumed
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, 'session.resumed', jsonb_build_object('role', s.role));
  if s.task_id is not null and s.role = 'worker' then
    perform dispatch.set_task_status(s.task_id, 'running', 'output resumed');
  end if;
end $$;

-- The process ended (or was found gone): its derived status, how it ended, and the tail of its
-- stderr (journalled as stderr.tail when there is any). Returns the session.exited event id.
create or replace function dispatch.session_exited(session_id uuid, status text, reason text, exit_code integer,
                                                   signal text, exit_known boolean, ended_after_result boolean,
                                                   duration_ms bigint, lines integer, substrate_session_id text,
                                                   stderr_tail text default '')
  returns uuid language plpgsql volatile as $$
declare
  s dispatch.sessions;
  ev uuid;
begin
  update dispatch.sessions ss
     set status = session_exited.status, status_reason = session_exited.reason, exit_code = session_exited.exit_code,
         signal = session_exited.signal, ended_at = now(), stalled = false,
         claude_session_id = coalesce(ss.claude_session_id, session_exited.substrate_session_id)
   where ss.id = session_exited.session_id
  returning * into s;
  if not found then
    raise exception 'no session %', session_exited.session_id using errcode = 'P0002';
  end if;
  if coalesce(session_exited.stderr_tail, '') <> '' then
    insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
      values (s.project_id, s.id, s.task_id, 'stderr.tail', jsonb_build_object('text', session_exited.stderr_tail));
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, 'session.exited',
            jsonb_build_object('role', s.role, 'status', session_exited.status, 'reason', session_exited.reason,
                               'exit_code', session_exited.exit_code, 'signal', session_exited.signal,
                               'exit_known', session_exited.exit_known,
                               'ended_after_result', session_exited.ended_after_result,
                               'duration_ms', session_exited.duration_ms, 'lines', session_exited.lines,
                               'claude_session_id', session_exited.substrate_session_id))
    returning event_id into ev;
  -- A turn that did not end clean did not take in the messages it claimed: give them back.
  if s.role = 'orchestrator' and not coalesce((select st.clean from dispatch.statuses st where st.name = session_exited.status), false) then
    perform dispatch.return_turn_messages(s.id, session_exited.reason);
  end if;
  return ev;
end $$;

-- A runner stopped heart-beating: claim it (once, whichever runner sweeps first), unlock its
-- graphile-worker jobs so they re-run and re-adopt its sessions, and journal runner.lost.
create or replace function dispatch.runner_lost(runner_id text) returns boolean
  language plpgsql volatile as $$
declare
  r dispatch.runners;
begin
  update dispatch.runners rr set stopped_at = now()
   where rr.id = runner_lost.runner_id and rr.stopped_at is null
  returning * into r;
  if not found then
    return false; -- another runner swept it first
  end if;
  if cardinality(r.worker_ids) > 0 then
    perform graphile_worker.force_unlock_workers(r.worker_ids);
  end if;
  insert into dispatch.events (event_type, payload)
    values ('runner.lost', jsonb_build_object('runner_id', r.id, 'host', r.host, 'pid', r.pid, 'worker_ids', to_jsonb(r.worker_ids)));
  return true;
end $$;

-- Seconds since any runner of a host last beat; null when no runner of it ever registered.
create or replace function dispatch.host_silence(host text) returns double precision
  language sql stable as $$
  select extract(epoch from now() - max(r.heartbeat_at))::double precision from dispatch.runners r where r.host = host_silence.host
$$;

-- A runner on another host found this session's job and gave it to the session's own host.
create or replace function dispatch.session_handed_over(session_id uuid, host text, by_host text, by_runner text)
  returns void language plpgsql volatile as $$
declare
  s dispatch.sessions;
begin
  select * into s from dispatch.sessions ss where ss.id = session_handed_over.session_id;
  if not found then
    raise exception 'no session %', session_handed_over.session_id using errcode = 'P0002';
  end if;
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, 'session.handed_over',
            jsonb_build_object('host', session_handed_over.host, 'by_host', session_handed_over.by_host,
                               'by_runner', session_handed_over.by_runner,
                               'host_silent_s', round(coalesce(dispatch.host_silence(session_handed_over.host), -1)::numeric, 1)));
end $$;

-- Every runner of the session's host has been silent past HOST_LOST_SECONDS: the session is
-- declared lost (session.lost) and ends crashed, so the return policy may retry its task — once, by
-- the crashed policy. Idempotent: a session already over is left alone.
create or replace function dispatch.session_lost(session_id uuid, host text, silent_s double precision, timeout_s double precision)
  returns boolean language plpgsql volatile as $$
declare
  s dispatch.sessions;
  why text;
begin
  select * into s from dispatch.sessions ss where ss.id = session_lost.session_id for update;
  if not found then
    raise exception 'no session %', session_lost.session_id using errcode = 'P0002';
  end if;
  if s.ended_at is not null then
    return false;
  end if;
  why := format('lost: every runner of host %s silent for %s s (HOST_LOST_SECONDS=%s)', session_lost.host,
                coalesce(round(session_lost.silent_s::numeric)::text, 'ever'), session_lost.timeout_s);
  insert into dispatch.events (project_id, session_id, task_id, event_type, payload)
    values (s.project_id, s.id, s.task_id, 'session.lost',
            jsonb_build_object('host', session_lost.host, 'silent_s', round(session_lost.silent_s::numeric, 1),
                               'timeout_s', session_lost.timeout_s, 'pid', s.pid));
  perform dispatch.session_exited(s.id, 'crashed', why, null, null, false, false,
                                  (extract(epoch from now() - coalesce(s.started_at, s.created_at)) * 1000)::bigint,
                                  coalesce(s.lines_written, 0)::integer, null, '');
  return true;
end $$;

-- A person stops the project's orchestrator turn (the Stop of a stalled turn in Needs you): journals
-- turn.cancel_requested and signals the runner that owns the process (LISTEN dispatch_cancel; its
-- live sessions are keyed by session id too), which stops it: the turn ends cancelled and gives
-- its messages back, like any turn that did not end clean. The journal row is the request itself:
-- a runner that missed the NOTIFY finds it (its poll, or picking the turn up; events_turn_cancel_idx,
-- jobs/session/cancels.ts). 'none' when no turn is open.
create or replace function dispatch.cancel_turn(project_id uuid) returns text
  language plpgsql volatile as $$
declare
  s dispatch.sessions;
begin
  if not exists (select 1 from dispatch.projects p where p.id = cancel_turn.project_id) then
    raise exception 'no project %', cancel_turn.project_id using errcode = 'P0002';
  end if;
  select * into s from dispatch.sessions ss
   where ss.project_id = cancel_turn.project_id and ss.role = 'orchestrator' and ss.ended_at is null
   order by ss.created_at desc limit 1;
  if not found then
    return 'none';
  end if;
  insert into dispatch.events (project_id, session_id, event_type, payload)
    values (s.project_id, s.id, 'turn.cancel_requested', jsonb_build_object('stalled', s.stalled));
  perform pg_notify('dispatch_cancel', s.id::text);
  return 'cancelling';
end $$;
