// The one client store: seeded from GET /api/state, then fed by the journal stream from the seq the
// snapshot reflects; keyed by event_id (journal rows) and message_id (user messages). Everything it
// shows comes from durable records, except a message just sent, which is painted at once and
// reconciled in place when its record arrives (the record wins), or marked orphaned.
import * as v from 'valibot';
import { api, ApiError } from './api.ts';
import { EventRowSchema, StateSchema, type EventRow, type Project, type Session, type Task, type WorkingSet } from './schemas.ts';
import { JournalStream, type Connection } from './stream.ts';

/** A v4 UUID; crypto.randomUUID exists only in secure contexts, and a phone on the tailnet may use plain http. */
export function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

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

export const TERMINAL = new Set(['success', 'failed', 'crashed', 'cancelled', 'rate_limited', 'partial', 'skipped', 'gated', 'extraction_failed']);
export const BAD = new Set(['failed', 'crashed', 'rate_limited', 'extraction_failed', 'gated']);
const ORPHAN_MS = 10_000;
const HISTORY_WINDOW = 100_000;

export interface StatusChange {
  task: Task;
  from: string;
}

export class Store extends EventTarget {
  seq = 0;
  loaded = false;
  connection: Connection = 'connecting';
  /** Server clock minus ours, so durations tick in server time. */
  clockOffset = 0;
  projects = new Map<string, Project>();
  tasks = new Map<string, Task>();
  sessions = new Map<string, Session>();
  messages = new Map<string, Message>();
  workingSets = new Map<string, WorkingSet>();
  handoffs = new Map<string, EventRow>();
  focus: Focus | null = null;
  /** Journal rows this client holds, in seq order, each once. */
  events: EventRow[] = [];
  private ids = new Set<string>();
  private stream: JournalStream | null = null;
  private scheduled = false;

  now(): number {
    return Date.now() + this.clockOffset;
  }

  async start(): Promise<void> {
    const state = await api(v.looseObject({ ...StateSchema.entries, generated_at: v.string() }), '/api/state');
    this.clockOffset = Date.parse(state.generated_at) - Date.now();
    this.seq = state.seq;
    for (const p of state.projects) this.projects.set(p.id, p);
    for (const t of state.tasks) this.tasks.set(t.id, t);
    for (const s of state.sessions) this.sessions.set(s.id, s);
    for (const m of state.pending_messages) {
      this.messages.set(m.message_id, { message_id: m.message_id, project_id: m.project_id, text: m.text, status: 'pending', seq: m.seq, created_at: m.created_at });
    }
    for (const [pid, ws] of Object.entries(state.working_sets)) this.workingSets.set(pid, ws);
    if (state.focus) this.focus = { task_id: state.focus.task_id, thread_id: state.focus.thread_id };
    this.loaded = true;
    this.changed();
    this.stream = new JournalStream({
      events: (rows) => this.apply(rows),
      connection: (c) => {
        this.connection = c;
        this.changed();
      },
      after: () => this.seq,
    });
    this.stream.start();
    void this.loadHistory(state.seq);
  }

  stop(): void {
    this.stream?.stop();
  }

  /** Recent journal rows from before the snapshot, for the feeds (the snapshot has no rows). */
  private async loadHistory(upTo: number): Promise<void> {
    let after = Math.max(0, upTo - HISTORY_WINDOW);
    const page = v.object({ events: v.array(EventRowSchema), next_after: v.number() });
    try {
      while (after < upTo) {
        const r = await api(page, `/api/events?after=${after}&limit=1000`);
        const rows = r.events.filter((e) => e.seq <= upTo);
        this.apply(rows, { history: true });
        if (r.events.length < 1000 || r.next_after >= upTo) break;
        after = r.next_after;
      }
    } catch {
      /* the live view still works; the feeds just start later */
    }
  }

  /** Applies journal rows (live or history) in seq order, each once. */
  apply(rows: EventRow[], opts: { history?: boolean } = {}): void {
    let fresh = false;
    const sorted = rows.length > 1 ? [...rows].sort((a, b) => a.seq - b.seq) : rows;
    for (const row of sorted) {
      if (this.ids.has(row.event_id)) continue;
      this.ids.add(row.event_id);
      fresh = true;
      if (!opts.history) this.seq = Math.max(this.seq, row.seq);
      this.insertEvent(row);
      this.reduce(row, !!opts.history);
    }
    if (fresh) this.changed();
  }

  private insertEvent(row: EventRow): void {
    const last = this.events.at(-1);
    if (!last || last.seq < row.seq) {
      this.events.push(row);
      return;
    }
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.events[mid]!.seq < row.seq) lo = mid + 1;
      else hi = mid;
    }
    this.events.splice(lo, 0, row);
  }

  /** Folds one row into the derived views. History rows never overwrite fresher snapshot state. */
  private reduce(row: EventRow, history: boolean): void {
    const p = (row.payload ?? {}) as Record<string, unknown>;
    const at = row.created_at;
    if (row.task_id) {
      const t = this.tasks.get(row.task_id);
      if (t && !history) t.last_activity_at = at;
    }
    switch (row.event_type) {
      case 'project.created':
        if (row.project_id && !this.projects.has(row.project_id)) {
          this.projects.set(row.project_id, { id: row.project_id, name: String(p.name ?? ''), config: {}, created_at: at });
        }
        break;
      case 'task.submitted':
        if (row.task_id && !this.tasks.has(row.task_id) && row.project_id) {
          this.tasks.set(row.task_id, {
            id: row.task_id, project_id: row.project_id, parent_id: (p.parent_id as string) ?? null, status: 'queued',
            status_reason: null, brief: String(p.brief ?? ''), approach: (p.approach as string) ?? null, plan_ref: (p.plan_ref as string) ?? null, attempt: Number(p.attempt ?? 1),
            created_at: at, started_at: null, ended_at: null, last_activity_at: at, duration_ms: null, stalled: false,
          });
        }
        break;
      case 'task.status_changed': {
        const t = row.task_id ? this.tasks.get(row.task_id) : undefined;
        if (!t || history) break;
        const from = t.status;
        t.status = String(p.status);
        t.status_reason = (p.reason as string) ?? null;
        t.attempt = Number(p.attempt ?? t.attempt);
        t.stalled = t.status === 'stalled';
        if (t.status === 'running') t.started_at ??= at;
        if (TERMINAL.has(t.status)) t.ended_at = at;
        else t.ended_at = null;
        if (from !== t.status) this.dispatchEvent(new CustomEvent<StatusChange>('task-status', { detail: { task: t, from } }));
        break;
      }
      case 'session.spawned':
        if (row.session_id && !this.sessions.has(row.session_id) && row.project_id) {
          this.sessions.set(row.session_id, {
            id: row.session_id, project_id: row.project_id, task_id: row.task_id, parent_session_id: null, role: String(p.role ?? 'worker'),
            status: 'running', status_reason: null, attempt: null, pid: (p.pid as number) ?? null, host: (p.host as string) ?? null,
            stalled: false, created_at: at, started_at: at, ended_at: null, last_output_at: null, lines_written: 0, exit_code: null,
            signal: null, duration_ms: null,
          });
        }
        break;
      case 'session.stalled':
      case 'session.resumed': {
        const s = row.session_id ? this.sessions.get(row.session_id) : undefined;
        if (s && !history && !s.ended_at) {
          s.stalled = row.event_type === 'session.stalled';
          s.status = s.stalled ? 'stalled' : 'running';
        }
        break;
      }
      case 'session.exited': {
        const s = row.session_id ? this.sessions.get(row.session_id) : undefined;
        if (s && !history) {
          s.status = String(p.status);
          s.status_reason = (p.reason as string) ?? null;
          s.ended_at = at;
          s.stalled = false;
        }
        break;
      }
      case 'user_message': {
        if (!row.message_id || !row.project_id) break;
        const m = this.messages.get(row.message_id);
        // The record wins where it differs from what was painted.
        // A message missing from the snapshot's pending list but found in history was delivered.
        const status: MessageStatus = m ? (m.status === 'delivered' ? 'delivered' : 'pending') : history ? 'delivered' : 'pending';
        this.messages.set(row.message_id, {
          message_id: row.message_id, project_id: row.project_id, text: String(p.text ?? ''), status, seq: row.seq, created_at: at,
        });
        break;
      }
      case 'user_message.delivered': {
        const m = row.message_id ? this.messages.get(row.message_id) : undefined;
        if (m) m.status = 'delivered';
        break;
      }
      case 'user_message.returned': {
        // A failed turn gave it back: pending again until the next turn delivers it.
        const m = row.message_id ? this.messages.get(row.message_id) : undefined;
        if (m) m.status = 'pending';
        break;
      }
      case 'focus.changed':
        if (!history) this.focus = { task_id: (p.task_id as string) ?? null, thread_id: (p.thread_id as string | number) ?? null };
        break;
      case 'orchestrator.working_set':
        if (row.project_id && !history) this.workingSets.set(row.project_id, p as WorkingSet);
        break;
      case 'handoff':
        if (row.task_id) this.handoffs.set(row.task_id, row);
        break;
    }
  }

  /** Sends a message: painted at once, reconciled by message_id, orphaned if no record comes. */
  async send(projectId: string, text: string, messageId: string = uuid()): Promise<void> {
    this.messages.set(messageId, { message_id: messageId, project_id: projectId, text, status: 'sending', seq: null, created_at: new Date(this.now()).toISOString() });
    this.changed();
    setTimeout(() => {
      const m = this.messages.get(messageId);
      if (m && m.status === 'sending') {
        m.status = 'orphaned';
        this.changed();
      }
    }, ORPHAN_MS);
    try {
      await api(v.looseObject({ message_id: v.string() }), '/api/messages', { method: 'POST', body: { project_id: projectId, text, message_id: messageId } });
    } catch (err) {
      const m = this.messages.get(messageId);
      if (m && m.status === 'sending') m.status = 'orphaned';
      this.changed();
      throw err instanceof ApiError ? err : new ApiError(0, 'offline', 'The message could not be sent.');
    }
  }

  async retry(messageId: string): Promise<void> {
    const m = this.messages.get(messageId);
    if (m) await this.send(m.project_id, m.text, messageId);
  }

  async setFocus(f: { task_id?: string; thread_id?: string | number }): Promise<void> {
    await api(v.looseObject({ id: v.string() }), '/api/focus', { method: 'POST', body: f });
  }

  async cancel(taskId: string): Promise<void> {
    await api(v.looseObject({ status: v.string() }), `/api/tasks/${taskId}/cancel`, { method: 'POST' });
  }

  /** Rows of one task from the server (older than what the stream brought), merged in. */
  async loadTask(taskId: string): Promise<void> {
    const page = v.object({ events: v.array(EventRowSchema), next_after: v.number() });
    let after = 0;
    for (;;) {
      const r = await api(page, `/api/events?task=${taskId}&after=${after}&limit=1000`);
      this.apply(r.events, { history: true });
      if (r.events.length < 1000) return;
      after = r.next_after;
    }
  }

  /** Notifies views once per frame, however many rows arrived. */
  changed(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.dispatchEvent(new Event('change'));
    });
  }

  /** Whether the project's orchestrator is busy (a turn or a worker it started), so input queues. */
  busy(projectId: string): boolean {
    for (const s of this.sessions.values()) if (s.project_id === projectId && !s.ended_at && s.role !== 'extractor') return true;
    for (const t of this.tasks.values()) if (t.project_id === projectId && !TERMINAL.has(t.status) && t.status !== 'queued') return true;
    return false;
  }
}

export const store = new Store();
