// A big journal for scale tests and the bench: 3 projects, 20 tasks (one session each), and N
// `claude.assistant` rows shaped like the Phase 0 fixtures (about 500 bytes each), one in five of
// them in the first task (200 000 of 1 000 000), the rest spread over the other 19 — inserted
// with generate_series in a few statements, so a million rows take seconds, not minutes.
import type { Sql } from '../../core/db/client.ts';

export interface BigJournal {
  projects: string[];
  /** Task ids; tasks[0] holds a fifth of the rows. */
  tasks: string[];
  /** The project of each task. */
  projectOf: Map<string, string>;
  rows: number;
}

export async function fillBigJournal(sql: Sql, rows = 1_000_000, tasksWanted = 20): Promise<BigJournal> {
  const projects: string[] = [];
  for (const name of ['alpha service', 'beta mobile app', 'gamma data pipeline']) {
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${`${name} ${Math.random().toString(36).slice(2, 6)}`}) as id`;
    projects.push(p!.id);
  }
  const tasks: string[] = [];
  const sessions: string[] = [];
  const taskProjects: string[] = [];
  const projectOf = new Map<string, string>();
  for (let i = 0; i < tasksWanted; i++) {
    const project = projects[i % projects.length]!;
    const status = i % 4 === 0 ? 'running' : 'success';
    const [t] = await sql<{ id: string }[]>`
      insert into dispatch.tasks (project_id, brief, status, started_at, ended_at)
      values (${project}, ${`Task ${i}: refactor module ${i} and keep its tests green`}, ${status}, now() - interval '1 hour',
              ${status === 'success' ? sql`now()` : null}) returning id`;
    const [s] = await sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, task_id, role, status) values (${project}, ${t!.id}, 'worker', ${status}) returning id`;
    tasks.push(t!.id);
    sessions.push(s!.id);
    taskProjects.push(project);
    projectOf.set(t!.id, project);
  }
  const others = tasksWanted - 1;
  const CHUNK = 250_000;
  for (let from = 1; from <= rows; from += CHUNK) {
    const to = Math.min(rows, from + CHUNK - 1);
    await sql`
      insert into dispatch.events (project_id, session_id, task_id, event_type, payload, summary)
      select (${taskProjects}::uuid[])[i + 1], (${sessions}::uuid[])[i + 1], (${tasks}::uuid[])[i + 1], 'claude.assistant',
             jsonb_build_object('type', 'assistant',
               'message', jsonb_build_object('id', 'msg_' || g, 'type', 'message', 'role', 'assistant', 'model', 'claude-sonnet-4-5',
                 'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'Step ' || g || ': ' || repeat('reading the code, then planning the change. ', 5))),
                 'stop_reason', null, 'usage', jsonb_build_object('input_tokens', 25, 'output_tokens', 40)),
               'parent_tool_use_id', null, 'session_id', (${sessions}::uuid[])[i + 1], 'uuid', md5(g::text)),
             jsonb_build_object('kind', 'text', 'text', 'Step ' || g || ': ' || repeat('reading the code, then planning the change. ', 2))
        from (select g, case when g % 5 = 0 then 0 else 1 + g % ${others} end as i from generate_series(${from}::int, ${to}::int) g) s`;
  }
  await sql`analyze dispatch.events`;
  return { projects, tasks, projectOf, rows };
}
