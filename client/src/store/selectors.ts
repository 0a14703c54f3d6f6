// Selectors: what one view shows, computed from the model (and the journal) and memoised on the
// identity of what they read, so a component re-renders from a cached answer unless its own slice
// changed. A project id of '' means all projects.
import type { EventRow, Task } from '../schemas.ts';
import type { Journal } from './journal.ts';
import { isTerminal, type Model } from './reducer.ts';

/** Memoises a function of a few values on their identity (one entry: the last call). */
function memo<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
  let last: A | null = null;
  let value!: R;
  return (...args: A) => {
    if (last && last.length === args.length && last.every((a, i) => a === args[i])) return value;
    last = args;
    value = fn(...args);
    return value;
  };
}

const RANK: Record<string, number> = { stalled: 0, running: 1, queued: 2 };

/** The tasks of a project (or all), live ones first, then newest first. */
export const tasksOf = memo((tasks: Model['tasks'], project: string): Task[] =>
  [...tasks.values()]
    .filter((t) => !project || t.project_id === project)
    .sort((a, b) => (RANK[a.status] ?? 9) - (RANK[b.status] ?? 9) || Date.parse(b.created_at) - Date.parse(a.created_at)),
);

export interface Counts {
  needsYou: number;
  running: number;
  stalled: number;
  failed: number;
  finished: number;
}

/** Whether a status asks for the person (the status table's needs_user column). */
export function needsUser(m: Model, status: string): boolean {
  const row = m.statuses.get(status);
  return row ? row.needs_user : status === 'gated' || status === 'extraction_failed';
}

/** Whether a status counts as failed (and not as needing the person). */
export function failed(m: Model, status: string): boolean {
  const row = m.statuses.get(status);
  return (row ? row.failure || row.alarming : ['failed', 'crashed', 'rate_limited'].includes(status)) && !needsUser(m, status);
}

/** The header chips of a project (or all): each task counted once, in the first bucket it fits. */
export const countsOf = memo((m: Model, tasks: Model['tasks'], project: string): Counts => {
  const c: Counts = { needsYou: 0, running: 0, stalled: 0, failed: 0, finished: 0 };
  for (const t of tasks.values()) {
    if (project && t.project_id !== project) continue;
    if (needsUser(m, t.status)) c.needsYou++;
    else if (t.status === 'stalled' || t.stalled) c.stalled++;
    else if (t.status === 'running') c.running++;
    else if (failed(m, t.status)) c.failed++;
    else if (t.status === 'success') c.finished++;
  }
  return c;
});

/** Journal rows of the scope for the Activity feed, optionally one project's only. */
export const activityOf = memo((journal: Journal, _version: number, project: string): readonly EventRow[] => {
  const rows = journal.rows();
  if (!project) return rows;
  const floor = journal.floor;
  return journal.project(project).filter((r) => r.seq >= floor);
});

/** One task's rows, complete from its floor on. */
export const taskRowsOf = memo((journal: Journal, _version: number, task: string): readonly EventRow[] => journal.task(task));

/** Whether the project's orchestrator is busy (a turn or a worker it started), so input queues. */
export function busy(m: Model, projectId: string): boolean {
  for (const s of m.sessions.values()) if (s.project_id === projectId && !s.ended_at && s.role !== 'extractor') return true;
  for (const t of m.tasks.values()) if (t.project_id === projectId && !isTerminal(m, t.status) && t.status !== 'queued') return true;
  return false;
}
