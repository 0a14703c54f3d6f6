// The pure part of the store: a snapshot (GET /api/state) becomes a Model, and each journal row
// folds into it. No I/O, no clock, no DOM: the same rows give the same model (unit-tested in
// test/client/store/reducer.test.ts). The live stream brings rows in seq order, each above the
// model's seq; a row at or below it is history (a page of older rows, or one seen before): the
// model already reflects it, so it never overwrites statuses, only fills what the snapshot lacks
// (handoffs, delivered messages).
import type { EventRow, Project, Session, State, StatusRow, Task, WorkingSet } from '../schemas.ts';

export type MessageStatus = 'sending' | 'pending' | 'delivered' | 'orphaned';

export interface Message {
  message_id: string;
  project_id: string;
  text: string;
  status: MessageStatus;
  seq: number | null;
  created_at: string;
}

export interface Focus {
  task_id: string | null;
  /** The Trellis thread id as Trellis gives it. */
  thread_id: string | number | null;
}

export interface Model {
  /** The journal position the model reflects; rows at or below it are history. */
  seq: number;
  projects: Map<string, Project>;
  tasks: Map<string, Task>;
  sessions: Map<string, Session>;
  /** Recorded user messages (the outbox holds the ones not recorded yet). */
  messages: Map<string, Message>;
  workingSets: Map<string, WorkingSet>;
  handoffs: Map<string, EventRow>;
  statuses: Map<string, StatusRow>;
  focus: Focus | null;
}

/** Statuses a task ends in (from the snapshot's status table when it has one). */
export const TERMINAL = new Set(['success', 'failed', 'crashed', 'cancelled', 'rate_limited', 'partial', 'skipped', 'gated', 'extraction_failed']);

export function emptyModel(): Model {
  return {
    seq: 0, projects: new Map(), tasks: new Map(), sessions: new Map(), messages: new Map(), workingSets: new Map(),
    handoffs: new Map(), statuses: new Map(), focus: null,
  };
}

export function fromSnapshot(state: State): Model {
  const m = emptyModel();
  m.seq = state.seq;
  for (const p of state.projects) m.projects.set(p.id, p);
  for (const t of state.tasks) m.tasks.set(t.id, t);
  for (const s of state.sessions) m.sessions.set(s.id, s);
  for (const msg of state.pending_messages) {
    m.messages.set(msg.message_id, { message_id: msg.message_id, project_id: msg.project_id, text: msg.text, status: 'pending', seq: msg.seq, created_at: msg.created_at });
  }
  for (const [pid, ws] of Object.entries(state.working_sets)) m.workingSets.set(pid, ws);
  for (const s of state.statuses ?? []) m.statuses.set(s.name, s);
  if (state.focus) m.focus = { task_id: state.focus.task_id, thread_id: state.focus.thread_id };
  return m;
}

export function isTerminal(m: Model, status: string): boolean {
  const row = m.statuses.get(status);
  return row ? row.terminal : TERMINAL.has(status);
}

/** A copy of `map` with `key` set (maps are replaced, never mutated, so views can compare them). */
function put<K, V>(map: Map<K, V>, key: K, value: V): Map<K, V> {
  const next = new Map(map);
  next.set(key, value);
  return next;
}

/** Folds rows in seq order. */
export function reduceAll(m: Model, rows: readonly EventRow[]): Model {
  let out = m;
  for (const r of rows) out = reduce(out, r);
  return out;
}

/** Folds one journal row into the model; returns the same model when nothing changed. */
export function reduce(m: Model, row: EventRow): Model {
  const history = row.seq <= m.seq;
  const p = (row.payload ?? {}) as Record<string, unknown>;
  const at = row.created_at;
  let out = m;
  if (!history) out = { ...out, seq: row.seq };
  // Any live row of a task is activity, except the person's own focus switch.
  if (row.task_id && !history && row.event_type !== 'focus.changed') {
    const t = out.tasks.get(row.task_id);
    if (t && t.last_activity_at !== at) out = { ...out, tasks: put(out.tasks, t.id, { ...t, last_activity_at: at }) };
  }
  switch (row.event_type) {
    case 'project.created':
      if (row.project_id && !out.projects.has(row.project_id)) {
        const config = (p.config && typeof p.config === 'object' ? p.config : {}) as Record<string, unknown>;
        out = { ...out, projects: put(out.projects, row.project_id, { id: row.project_id, name: String(p.name ?? ''), config, created_at: at }) };
      }
      return out;
    case 'project.updated': {
      const pr = row.project_id ? out.projects.get(row.project_id) : undefined;
      if (!pr || history) return out;
      const config = (p.config && typeof p.config === 'object' ? p.config : pr.config) as Project['config'];
      return { ...out, projects: put(out.projects, pr.id, { ...pr, name: String(p.name ?? pr.name), config }) };
    }
    case 'task.submitted':
      if (row.task_id && !out.tasks.has(row.task_id) && row.project_id) {
        const t: Task = {
          id: row.task_id, project_id: row.project_id, parent_id: (p.parent_id as string) ?? null, status: 'queued', status_reason: null,
          brief: String(p.brief ?? ''), approach: (p.approach as string) ?? null, plan_ref: (p.plan_ref as string) ?? null,
          attempt: Number(p.attempt ?? 1), created_at: at, started_at: null, ended_at: null, last_activity_at: at, duration_ms: null, stalled: false,
          depends_on: Array.isArray(p.depends_on) ? (p.depends_on as string[]) : [],
        };
        out = { ...out, tasks: put(out.tasks, t.id, t) };
      }
      return out;
    case 'task.status_changed': {
      const t = row.task_id ? out.tasks.get(row.task_id) : undefined;
      if (!t || history) return out;
      const status = String(p.status);
      const ended = isTerminal(out, status);
      const next: Task = {
        ...t, status, status_reason: (p.reason as string) ?? null, attempt: Number(p.attempt ?? t.attempt), stalled: status === 'stalled',
        started_at: status === 'running' ? (t.started_at ?? at) : t.started_at, ended_at: ended ? at : null,
      };
      return { ...out, tasks: put(out.tasks, t.id, next) };
    }
    case 'session.spawned':
      if (row.session_id && !out.sessions.has(row.session_id) && row.project_id) {
        const s: Session = {
          id: row.session_id, project_id: row.project_id, task_id: row.task_id, parent_session_id: null, role: String(p.role ?? 'worker'),
          status: 'running', status_reason: null, attempt: null, pid: (p.pid as number) ?? null, host: (p.host as string) ?? null,
          stalled: false, created_at: at, started_at: at, ended_at: null, last_output_at: null, lines_written: 0, exit_code: null,
          signal: null, duration_ms: null,
        };
        out = { ...out, sessions: put(out.sessions, s.id, s) };
      }
      return out;
    case 'session.stalled':
    case 'session.resumed': {
      const s = row.session_id ? out.sessions.get(row.session_id) : undefined;
      if (!s || history || s.ended_at) return out;
      const stalled = row.event_type === 'session.stalled';
      return { ...out, sessions: put(out.sessions, s.id, { ...s, stalled, status: stalled ? 'stalled' : 'running' }) };
    }
    case 'session.exited': {
      const s = row.session_id ? out.sessions.get(row.session_id) : undefined;
      if (!s || history) return out;
      return { ...out, sessions: put(out.sessions, s.id, { ...s, status: String(p.status), status_reason: (p.reason as string) ?? null, ended_at: at, stalled: false }) };
    }
    case 'user_message': {
      if (!row.message_id || !row.project_id) return out;
      const known = out.messages.get(row.message_id);
      // The record wins where it differs from what was painted. A message missing from the
      // snapshot's pending list but found in history was delivered.
      const status: MessageStatus = known ? (known.status === 'delivered' ? 'delivered' : 'pending') : history ? 'delivered' : 'pending';
      return {
        ...out,
        messages: put(out.messages, row.message_id, { message_id: row.message_id, project_id: row.project_id, text: String(p.text ?? ''), status, seq: row.seq, created_at: at }),
      };
    }
    case 'user_message.delivered': {
      const msg = row.message_id ? out.messages.get(row.message_id) : undefined;
      if (!msg || msg.status === 'delivered') return out;
      return { ...out, messages: put(out.messages, msg.message_id, { ...msg, status: 'delivered' }) };
    }
    case 'user_message.returned': {
      // A failed orchestrator turn gave it back: pending again until the next turn delivers it.
      const msg = row.message_id ? out.messages.get(row.message_id) : undefined;
      if (!msg || msg.status === 'pending') return out;
      return { ...out, messages: put(out.messages, msg.message_id, { ...msg, status: 'pending' }) };
    }
    case 'focus.changed':
      if (history) return out;
      return { ...out, focus: { task_id: (p.task_id as string) ?? null, thread_id: (p.thread_id as string | number) ?? null } };
    case 'orchestrator.working_set':
      if (!row.project_id || history) return out;
      return { ...out, workingSets: put(out.workingSets, row.project_id, { ...(p as WorkingSet), seq: row.seq } as WorkingSet) };
    case 'handoff':
      if (!row.task_id) return out;
      {
        const prev = out.handoffs.get(row.task_id);
        if (prev && prev.seq >= row.seq) return out;
        return { ...out, handoffs: put(out.handoffs, row.task_id, row) };
      }
    default:
      return out;
  }
}
