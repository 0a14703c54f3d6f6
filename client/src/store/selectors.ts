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
/** The glance chip a task counts under (the first that applies), or null for none. */
export type TaskGroup = 'needs-you' | 'stalled' | 'running' | 'failed' | 'finished';
export function groupOf(m: Model, t: Task): TaskGroup | null {
  if (needsUser(m, t.status)) return 'needs-you';
  if (t.status === 'stalled' || t.stalled) return 'stalled';
  if (t.status === 'running') return 'running';
  if (failed(m, t.status)) return 'failed';
  if (t.status === 'success') return 'finished';
  return null;
}

export const countsOf = memo((m: Model, tasks: Model['tasks'], project: string): Counts => {
  const c: Counts = { needsYou: 0, running: 0, stalled: 0, failed: 0, finished: 0 };
  const key = { 'needs-you': 'needsYou', stalled: 'stalled', running: 'running', failed: 'failed', finished: 'finished' } as const;
  for (const t of tasks.values()) {
    if (project && t.project_id !== project) continue;
    const g = groupOf(m, t);
    if (g) c[key[g]]++;
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

/** One thing waiting for the person, with where a tap takes them. */
export interface NeedsYouItem {
  key: string;
  kind: 'task' | 'stalled_session' | 'orphaned_message' | 'needs_user' | 'loop_stopped';
  /** What it is, in a few words. */
  title: string;
  /** Why it waits (the status reason, the loop's stop reason…). */
  detail: string;
  project_id: string;
  task_id?: string;
  /** The task's status (task items): an ended one other than gated can be retried. */
  status?: string;
  /** The stalled session's role (stalled_session items): a turn can be stopped. */
  role?: string;
  message_id?: string;
}

/**
 * Everything waiting for the person in a project (or all): tasks whose status needs them (gated,
 * extraction_failed, …), stalled sessions of any role (worker, extractor, orchestrator), messages
 * the server never recorded, the orchestrator's needs_user items and a stopped loop with its reason.
 */
/** How long a stalled session has been silent, in the words its task card uses when it has one. */
function stallDetail(s: { status_reason?: string | null; last_output_at?: string | null; started_at?: string | null }, task: Task | undefined): string {
  if (task?.status === 'stalled' && task.status_reason) return task.status_reason;
  if (s.status_reason) return s.status_reason;
  const since = s.last_output_at ?? s.started_at;
  if (!since) return 'no output yet';
  const at = new Date(since).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return `${s.last_output_at ? 'no output since' : 'no output since it started at'} ${at}`;
}

export const needsYouOf = memo((m: Model, messages: ReadonlyMap<string, { message_id: string; project_id: string; text: string; status: string }>, project: string): NeedsYouItem[] => {
  const items: NeedsYouItem[] = [];
  const inScope = (p: string | null | undefined) => !project || p === project;
  const listed = new Set<string>();
  for (const t of m.tasks.values()) {
    if (!inScope(t.project_id) || !needsUser(m, t.status)) continue;
    listed.add(t.id);
    items.push({ key: `task:${t.id}`, kind: 'task', title: `${t.status.replace(/_/g, ' ')}: ${t.brief}`, detail: t.status_reason ?? '', project_id: t.project_id, task_id: t.id, status: t.status });
  }
  for (const s of m.sessions.values()) {
    if (!inScope(s.project_id) || !s.stalled || s.ended_at) continue;
    const task = s.task_id ? m.tasks.get(s.task_id) : undefined;
    items.push({
      key: `session:${s.id}`, kind: 'stalled_session',
      title: `stalled ${s.role === 'orchestrator' ? 'orchestrator turn' : s.role}: ${task ? task.brief : (m.projects.get(s.project_id)?.name ?? 'project')}`,
      detail: stallDetail(s, task), project_id: s.project_id, role: s.role, ...(s.task_id ? { task_id: s.task_id } : {}),
    });
  }
  for (const msg of messages.values()) {
    if (!inScope(msg.project_id) || msg.status !== 'orphaned') continue;
    items.push({ key: `message:${msg.message_id}`, kind: 'orphaned_message', title: `message not recorded: ${msg.text}`, detail: 'retry it from the chat', project_id: msg.project_id, message_id: msg.message_id });
  }
  for (const [pid, ws] of m.workingSets) {
    if (!inScope(pid)) continue;
    for (const n of ws.needs_user ?? []) {
      if (listed.has(n.id)) continue;
      const task = m.tasks.get(n.id);
      items.push({ key: `needs:${n.id}`, kind: 'needs_user', title: `the orchestrator asks: ${task?.brief ?? n.id}`, detail: `${n.status}${n.status_reason ? ` — ${n.status_reason}` : ''}`, project_id: pid, task_id: n.id });
    }
    if (ws.stop) items.push({ key: `stop:${pid}`, kind: 'loop_stopped', title: `the loop stopped (${m.projects.get(pid)?.name ?? 'project'})`, detail: `${ws.stop.why}${ws.stop.where ? ` — ${ws.stop.where}` : ''}`, project_id: pid });
  }
  return items;
});

/**
 * The list with each chain (tasks linked by depends_on, among those shown) as one group, in the
 * order they run (by depth in the chain, then submitted), where its first shown task was; a task
 * of no chain stays itself.
 */
export const chainsOf = memo((tasks: Task[]): (Task | Task[])[] => {
  const shown = new Map(tasks.map((t) => [t.id, t]));
  const root = new Map<string, string>();
  const find = (id: string): string => {
    let r = id;
    while (root.has(r) && root.get(r) !== r) r = root.get(r)!;
    root.set(id, r);
    return r;
  };
  for (const t of tasks) {
    root.set(t.id, find(t.id));
    for (const d of t.depends_on ?? []) if (shown.has(d)) root.set(find(t.id), find(d));
  }
  const depth = new Map<string, number>();
  const depthOf = (t: Task, seen = new Set<string>()): number => {
    if (depth.has(t.id)) return depth.get(t.id)!;
    seen.add(t.id);
    const up = (t.depends_on ?? []).map((d) => shown.get(d)).filter((d): d is Task => !!d && !seen.has(d.id));
    const n = up.length ? 1 + Math.max(...up.map((d) => depthOf(d, seen))) : 0;
    depth.set(t.id, n);
    return n;
  };
  const members = new Map<string, Task[]>();
  for (const t of tasks) {
    const r = find(t.id);
    members.set(r, [...(members.get(r) ?? []), t]);
  }
  const out: (Task | Task[])[] = [];
  const placed = new Set<string>();
  for (const t of tasks) {
    const r = find(t.id);
    const chain = members.get(r)!;
    if (chain.length === 1) out.push(t);
    else if (!placed.has(r)) {
      placed.add(r);
      out.push([...chain].sort((a, b) => depthOf(a) - depthOf(b) || Date.parse(a.created_at) - Date.parse(b.created_at)));
    }
  }
  return out;
});
