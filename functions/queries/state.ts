// GET /api/state: one bounded snapshot a client can paint at a glance. It reads the dimension
// tables and small caches through indexes, never the journal at large, all in one snapshot whose
// `seq` says which journal position it reflects. The route keeps its last answer (state-text.ts)
// while neither the head nor anything else it shows has changed.
import type { Focus } from '../../core/contracts/focus.ts';
import type { Message } from '../../core/contracts/message.ts';
import type { Project } from '../../core/contracts/project.ts';
import type { Session } from '../../core/contracts/session.ts';
import type { State } from '../../core/contracts/state.ts';
import type { StatusRow } from '../../core/contracts/status.ts';
import type { Task } from '../../core/contracts/task.ts';
import type { WorkingSet } from '../../core/contracts/working-set.ts';
import type { Sql } from '../../core/db/client.ts';
import { iso, selectList } from './columns.ts';
import { journalHead } from './events.ts';
import { MESSAGE_COLUMNS } from './messages.ts';
import { finishedLoops, needsYou } from './needs-you.ts';
import { PROJECT_COLUMNS } from './projects.ts';
import { SESSION_COLUMNS } from './sessions.ts';
import { TASK_COLUMNS } from './tasks.ts';

const RECENT_TASKS = 100;
const RECENT_SESSIONS = 100;

/** Select list over the focus.changed events. */
export const FOCUS_COLUMNS = selectList<Focus>({
  id: 'event_id',
  seq: 'seq',
  thread_id: "payload->'thread_id'",
  task_id: 'task_id',
  project_id: 'project_id',
  created_at: iso('created_at'),
});

export const STATUS_COLUMNS = selectList<StatusRow>({
  name: 'name',
  terminal: 'terminal',
  clean: 'clean',
  alarming: 'alarming',
  failure: 'failure',
  blocking: 'blocking',
  needs_user: 'needs_user',
  notifies: 'notifies',
  description: 'description',
});

export async function stateSnapshot(sql: Sql): Promise<State> {
  return sql.begin('isolation level repeatable read read only', async (tx) => {
    // One snapshot, and the queries pipelined on its connection (one round trip, not eight).
    const [head, projects, tasks, sessions, pending, [focus], workingSets, statuses, needs, finished] = await Promise.all([
      journalHead(tx),
      tx<Project[]>`select ${tx.unsafe(PROJECT_COLUMNS)} from dispatch.projects order by created_at limit 200`,
      tx<Task[]>`
        select ${tx.unsafe(TASK_COLUMNS)} from dispatch.tasks t
         where t.id in (select id from dispatch.tasks where ended_at is null
                        union
                        select id from (select id from dispatch.tasks order by created_at desc limit ${RECENT_TASKS}) r)
         order by t.created_at desc`,
      tx<Session[]>`
        select ${tx.unsafe(SESSION_COLUMNS)} from dispatch.sessions s
         where s.id in (select id from dispatch.sessions where ended_at is null
                        union
                        select id from (select id from dispatch.sessions order by created_at desc limit ${RECENT_SESSIONS}) r)
         order by s.created_at desc`,
      tx<Message[]>`
        select ${tx.unsafe(MESSAGE_COLUMNS)} from dispatch.user_messages where delivered_at is null order by seq limit 200`,
      tx<Focus[]>`
        select ${tx.unsafe(FOCUS_COLUMNS)} from dispatch.events where event_type = 'focus.changed' order by seq desc limit 1`,
      // The newest working set of each project: one index probe per project, not a read of every
      // working set ever written (one per orchestrator turn).
      tx<{ project_id: string; payload: WorkingSet; seq: number }[]>`
        select p.id as project_id, w.payload, w.seq from dispatch.projects p
         cross join lateral (select e.payload, e.seq from dispatch.events e
                              where e.event_type = 'orchestrator.working_set' and e.project_id = p.id
                              order by e.seq desc limit 1) w`,
      tx<StatusRow[]>`select ${tx.unsafe(STATUS_COLUMNS)} from dispatch.statuses order by name`,
      needsYou(tx),
      finishedLoops(tx),
    ]);
    return {
      seq: head,
      generated_at: new Date().toISOString(),
      projects: [...projects],
      tasks: [...tasks],
      sessions: [...sessions],
      pending_messages: [...pending],
      focus: focus ?? null,
      working_sets: Object.fromEntries(workingSets.map((w) => [w.project_id, { ...w.payload, seq: w.seq }])),
      statuses: [...statuses],
      needs_you: needs,
      finished,
    };
  });
}
