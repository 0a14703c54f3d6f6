// The client store, put together from its parts: the model (store/reducer.ts, pure), the journal
// rows held (store/journal.ts, ordered, de-duplicated, indexed, bounded), the outbox
// (store/outbox.ts) and the selectors views read (store/selectors.ts). This file owns the I/O: it
// opens from GET /api/state plus a bounded window of recent rows, follows the journal stream of
// its scope (one project, or all) from the seq the snapshot reflects, and pages older rows in on
// demand (a task's journal scrolled up, "older" in Activity, the chat scrolled to its top).
//
// @fires change - the model or the journal changed (once per microtask, however many rows came)
// @fires task-status - a task reached a new status (detail: {@link StatusChange})
// @fires reconnected - the stream is live again after it was lost (offline, server restart): what is
//   read apart from the stream (gates, Trellis) may have changed meanwhile
import * as v from 'valibot';
import { api, ApiError } from './api.ts';
import { EventRowSchema, StateSchema, type EventRow, type Project, type Session, type Task, type WorkingSet } from './schemas.ts';
import { Journal } from './store/journal.ts';
import { Outbox } from './store/outbox.ts';
import { emptyModel, fromSnapshot, reduce, TERMINAL, type Focus, type Message, type Model } from './store/reducer.ts';
import { busy } from './store/selectors.ts';
import { JournalStream, type Connection } from './stream.ts';

export { TERMINAL, type Focus, type Message };
export type { MessageStatus } from './store/reducer.ts';

/** A v4 UUID; crypto.randomUUID exists only in secure contexts, and a phone on the tailnet may use plain http. */
export function uuid(): string {
  const b = crypto.getRandomValues(new Uint8Array(16));
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export const BAD = new Set(['failed', 'crashed', 'rate_limited', 'extraction_failed', 'gated']);
/** Rows fetched when the client opens, and per page of older history. */
export const RECENT_ROWS = 300;
/** Rows "From the start" (pd-journal-start) holds at most: twenty pages, far more than anyone reads forward by hand. */
export const READER_CAP = 6_000;
/** Rows per page of a project's conversation, of each of its two kinds (the person's, the orchestrator's words). */
export const CHAT_PAGE = 200;
/**
 * The person's side of the conversation as history holds it: messages, spawns and refusals. (A
 * message's delivery rows are left out: in history it was delivered, unless the snapshot lists it
 * as pending.)
 */
const SAID = ['user_message', 'task.submitted', 'spawn.refused'];
/** Partial-token lines: the phone shows whole messages, so it never downloads these. */
const NOT_SHOWN = 'claude.stream_event';
/** A task's rows as its journal shows them. */
const taskRows = (task: string) => `task=${task}&not_type=${NOT_SHOWN}`;

export interface StatusChange {
  task: Task;
  from: string;
}

export interface StoreEventMap {
  change: Event;
  'task-status': CustomEvent<StatusChange>;
}

const Page = v.object({ events: v.array(EventRowSchema), next_after: v.number(), next_before: v.optional(v.nullable(v.number())) });

export class Store extends EventTarget {
  loaded = false;
  private markOpened!: () => void;
  /**
   * Resolves when the first snapshot is in. What the first paint of the tasks does not need (usage,
   * gates, Trellis) waits for it, so the open's own request does not queue behind theirs on a
   * phone's few connections and a busy server.
   */
  readonly opened = new Promise<void>((r) => (this.markOpened = r));
  connection: Connection = 'connecting';
  /** The stream was live and is not now (a 'reconnected' follows when it is back). */
  private lost = false;
  /** Server clock minus ours, so durations tick in server time. */
  clockOffset = 0;
  /** The project whose journal this client follows ('' for all). */
  scope = '';
  model: Model = emptyModel();
  readonly journal = new Journal();
  readonly outbox = new Outbox({
    post: async (project_id, text, message_id) => {
      await api(v.looseObject({ message_id: v.string() }), '/api/messages', { method: 'POST', body: { project_id, text, message_id } });
    },
    recorded: (id) => this.model.messages.has(id),
    now: () => new Date(this.now()).toISOString(),
    changed: () => this.changed(),
  });
  private stream: JournalStream | null = null;
  private scheduled = false;
  /** Bumped on every (re)open, so answers of an earlier scope are dropped. */
  private generation = 0;
  private openTask: string | null = null;
  private paging = new Set<string>();
  /**
   * How far back each project's conversation is held: the floor of its two kinds of rows, each
   * paged back on its own (0: that kind is held from its first row).
   */
  private chats = new Map<string, { said: number; replies: number }>();
  /** Orchestrator sessions met in paged replies (older than the snapshot's sessions). */
  private orchestrators = new Set<string>();
  /** The project whose conversation is on screen: its rows survive trimming. */
  private openChat: string | null = null;
  private merged: { a: unknown; m: Map<string, Message> } | null = null;

  get seq(): number {
    return this.model.seq;
  }
  get projects(): Map<string, Project> {
    return this.model.projects;
  }
  get tasks(): Map<string, Task> {
    return this.model.tasks;
  }
  get sessions(): Map<string, Session> {
    return this.model.sessions;
  }
  get workingSets(): Map<string, WorkingSet> {
    return this.model.workingSets;
  }
  get handoffs(): Map<string, EventRow> {
    return this.model.handoffs;
  }
  get focus(): Focus | null {
    return this.model.focus;
  }
  /** Recorded messages, and the outbox's not recorded yet. */
  get messages(): Map<string, Message> {
    const a = this.model.messages;
    if (this.merged && this.merged.a === a && !this.outboxDirty) return this.merged.m;
    const m = new Map(a);
    for (const [k, msg] of this.outbox.messages) if (!m.has(k)) m.set(k, msg);
    this.merged = { a, m };
    this.outboxDirty = false;
    return m;
  }
  /** The outbox changed since the merged map was built. */
  private outboxDirty = true;
  /** The journal rows held in the scope, in seq order (bounded; older ones page in). */
  get events(): readonly EventRow[] {
    return this.journal.rows();
  }

  now(): number {
    return Date.now() + this.clockOffset;
  }

  async start(scope = this.scope): Promise<void> {
    this.scope = scope;
    await this.open();
  }

  stop(): void {
    this.generation++;
    this.stream?.stop();
    this.stream = null;
  }

  /** Follows another project ('' for all): the snapshot, the window and the stream start afresh. */
  async setScope(project: string): Promise<void> {
    if (project === this.scope && this.loaded) return;
    this.scope = project;
    await this.open();
  }

  private filter(): string {
    return `${this.scope ? `project=${this.scope}&` : ''}not_type=${NOT_SHOWN}`;
  }

  private async open(): Promise<void> {
    this.stop();
    const gen = this.generation;
    let state: v.InferOutput<typeof StateSchema>;
    for (let attempt = 0; ; attempt++) {
      try {
        state = await api(StateSchema, '/api/state');
        break;
      } catch (err) {
        // The first open reports (the app shows the token form or retries); a scope switch
        // keeps what it shows and tries again, like the stream does.
        if (gen !== this.generation) return;
        if (!this.loaded || (err instanceof ApiError && err.status === 401)) throw err;
        this.connection = navigator.onLine ? 'reconnecting' : 'offline';
        this.changed();
        await new Promise((r) => setTimeout(r, Math.min(10_000, 500 * 2 ** Math.min(attempt, 5))));
        if (gen !== this.generation) return;
      }
    }
    if (gen !== this.generation) return;
    this.clockOffset = Date.parse(state.generated_at) - Date.now();
    this.model = fromSnapshot(state);
    this.journal.clear();
    this.chats.clear();
    // Nothing below the snapshot is held until the recent window arrives.
    this.journal.floor = state.seq + 1;
    this.loaded = true;
    this.changed();
    this.markOpened();
    this.stream = new JournalStream({
      events: (rows) => this.apply(rows),
      connection: (c) => {
        const back = c === 'live' && this.lost;
        if (this.connection === 'live' && c !== 'live') this.lost = true;
        if (back) this.lost = false;
        this.connection = c;
        this.changed();
        if (back) this.dispatchEvent(new Event('reconnected'));
      },
      after: () => this.model.seq,
      filter: () => this.filter(),
    });
    this.stream.start();
    await this.page(`before=${state.seq + 1}&limit=${RECENT_ROWS}&${this.filter()}`, gen, (floor) => (this.journal.floor = floor)).catch(() => {
      /* the live view still works; the feeds start with the stream */
    });
    if (this.openTask) void this.showTask(this.openTask);
    if (this.openChat) void this.loadChat(this.openChat).catch(() => {});
  }

  /** Live rows from the stream, in seq order: held, then folded into the model. */
  apply(rows: readonly EventRow[]): void {
    const fresh = this.journal.add(rows);
    if (!fresh.length) return;
    this.fold(fresh);
  }

  /** Task id → seq of the status row last announced as a task-status event. */
  private readonly announced = new Map<string, number>();

  private fold(rows: readonly EventRow[]): void {
    for (const r of rows) {
      // Row by row, so each status row is announced with the status it set (a batch may hold several).
      const before = this.model;
      this.model = reduce(before, r);
      if (r.event_type === 'user_message' && r.message_id) this.outbox.settle(r.message_id);
      if (r.event_type !== 'task.status_changed' || !r.task_id) continue;
      const was = before.tasks.get(r.task_id);
      const now = this.model.tasks.get(r.task_id);
      if (!was || !now || was.status === now.status) continue;
      // Once per status row, across restarts of the stream (a scope change re-reads from a snapshot
      // that may be older than rows the previous stream already announced).
      if ((this.announced.get(r.task_id) ?? 0) >= r.seq) continue;
      this.announced.set(r.task_id, r.seq);
      if (this.announced.size > 5000) this.announced.delete(this.announced.keys().next().value!);
      this.dispatchEvent(new CustomEvent<StatusChange>('task-status', { detail: { task: now, from: was.status } }));
    }
    this.changed();
  }

  /**
   * A page of older rows: held and folded as history. Rows above the model's seq are left to the
   * stream, which brings them in order (so no live effect is ever taken for history).
   */
  private async page(query: string, gen: number, floor?: (seq: number) => void, seen?: (rows: readonly EventRow[]) => void): Promise<void> {
    const r = await api(Page, `/api/events?${query}`);
    if (gen !== this.generation) return;
    const rows = r.events.filter((e) => e.seq <= this.model.seq);
    seen?.(rows);
    const fresh = this.journal.add(rows);
    floor?.(r.next_before ?? 0);
    if (fresh.length) this.fold(fresh);
    else this.changed();
  }

  /** Whether older rows exist on the server (for a task, or the scope's feed). */
  hasOlder(task?: string): boolean {
    return (task ? this.journal.taskFloor(task) : this.journal.floor) > 0;
  }

  /** Pages in the next older rows of a task's journal, or of the scope's feed. */
  async loadOlder(task?: string): Promise<void> {
    const key = task ?? '';
    const floor = task ? this.journal.taskFloor(task) : this.journal.floor;
    if (!floor || this.paging.has(key)) return;
    this.paging.add(key);
    try {
      const q = task ? taskRows(task) : this.filter();
      await this.page(`before=${floor}&limit=${RECENT_ROWS}&${q}`, this.generation, (f) => (task ? this.journal.setTaskFloor(task, f) : (this.journal.floor = f)));
    } finally {
      this.paging.delete(key);
    }
  }

  /**
   * A page of a task's journal read forward from `after` (0: its first row), as the rows it shows
   * (partial tokens left out). Not held or folded: reading a task from its start leaves the
   * journal the store follows as it was.
   */
  async taskRowsAfter(task: string, after: number): Promise<{ rows: EventRow[]; more: boolean }> {
    const r = await api(Page, `/api/events?${taskRows(task)}&after=${after}&limit=${RECENT_ROWS}`);
    return { rows: r.events, more: r.events.length === RECENT_ROWS };
  }

  /**
   * Whether the person follows the open task's newest rows (its journal pinned to the bottom): its
   * held rows are then a bounded window of the newest (older ones page back in); while they read
   * older rows none of them go, and back at the bottom the window is trimmed again.
   */
  followTask(on: boolean): void {
    const v = this.journal.version;
    this.journal.follow(on);
    if (this.journal.version !== v) this.changed();
  }

  /** A task is on screen (followed at its newest rows): its rows are kept through the scope's trimming, and its newest ones and handoff are fetched. */
  async showTask(taskId: string | null): Promise<void> {
    this.openTask = taskId;
    this.journal.keep(taskId);
    if (!taskId || !this.loaded) return;
    const gen = this.generation;
    // Its handoff, if it has one (a derived row: the partial index on derived rows finds it at once).
    if (!this.model.handoffs.has(taskId)) void this.page(`task=${taskId}&tier=derived&type=handoff&before=${this.model.seq + 1}&limit=1`, gen).catch(() => {});
    const held = this.journal.task(taskId).length;
    if (held < RECENT_ROWS && this.hasOlder(taskId)) await this.loadOlder(taskId);
  }

  /** Whether a session is one of the orchestrator's turns (from the snapshot, the stream or a page of replies). */
  isOrchestrator(sessionId: string | null): boolean {
    return !!sessionId && (this.model.sessions.get(sessionId)?.role === 'orchestrator' || this.orchestrators.has(sessionId));
  }

  /** Whether a row is part of a project's conversation as the chat shows it. */
  inChat(row: EventRow): boolean {
    return SAID.includes(row.event_type) || (row.event_type === 'claude.assistant' && this.isOrchestrator(row.session_id));
  }

  /**
   * From which seq on the project's conversation is held complete (0: from its first message).
   * Below it the chat shows nothing: rows held there are sparse (one kind paged further back than
   * the other, or left over from trimming).
   */
  chatFloor(project: string): number {
    const c = this.chats.get(project);
    // Complete from the floor of the scope's rows (when the scope holds the project), and from where both kinds were paged back to.
    const scoped = this.scope === '' || this.scope === project ? this.journal.floor : this.model.seq + 1;
    const held = c ? Math.min(scoped, Math.max(c.said, c.replies)) : scoped;
    // The conversation on screen survives trimming; another one is complete only above the cut.
    return project === this.openChat ? held : Math.max(held, this.journal.trimmed);
  }

  /** Whether older parts of the project's conversation exist on the server. */
  hasOlderChat(project: string): boolean {
    return this.chatFloor(project) > 0;
  }

  /** Whether an older part of the project's conversation is being fetched. */
  chatLoading(project: string): boolean {
    return this.paging.has(`chat:${project}`);
  }

  /** A project's conversation is on screen (null: none): its rows are kept, and its newest part fetched if not yet. */
  showChat(project: string | null): void {
    this.openChat = project || null;
    this.journal.spare(project ? (r) => r.project_id === project && this.inChat(r) : null);
    if (project && !this.chats.has(project)) void this.loadChat(project).catch(() => {});
  }

  /**
   * Pages in the next older part of a project's conversation: the person's rows and the
   * orchestrator's words (claude.assistant rows of its sessions, found by role on the server, as
   * the snapshot knows only recent sessions), each kind from where it is held complete and until
   * its start. The conversation is complete from the higher of the two floors on; the kind held
   * further back shows the rest when the other one catches up.
   */
  async loadChat(project: string): Promise<void> {
    const key = `chat:${project}`;
    if (!project || !this.loaded || this.paging.has(key)) return;
    const floor = this.chatFloor(project);
    if (!floor) return;
    const gen = this.generation;
    const c = this.chats.get(project);
    // Each kind pages on from where it is held complete (the floor at the highest); not paged yet,
    // or the floor raised by trimming, both start from the floor.
    const fresh = !c || floor > Math.max(c.said, c.replies);
    let said = fresh ? floor : Math.min(c.said, floor);
    let replies = fresh ? floor : Math.min(c.replies, floor);
    this.paging.add(key);
    this.changed();
    try {
      await Promise.all([
        said ? this.page(`project=${project}&type=${SAID.join(',')}&before=${said}&limit=${CHAT_PAGE}`, gen, (f) => (said = f)) : null,
        replies
          ? this.page(`project=${project}&type=claude.assistant&role=orchestrator&before=${replies}&limit=${CHAT_PAGE}`, gen, (f) => (replies = f), (rows) => {
              for (const r of rows) if (r.session_id) this.orchestrators.add(r.session_id);
            })
          : null,
      ]);
      if (gen === this.generation) this.chats.set(project, { said, replies });
    } finally {
      this.paging.delete(key);
      this.changed();
    }
  }

  /** Sends a message: painted at once, reconciled by message_id, orphaned if no record comes. */
  async send(projectId: string, text: string, messageId: string = uuid()): Promise<void> {
    // Throws TooLongError (the draft stays in the box) or the ApiError of the failed POST.
    await this.outbox.send(projectId, text, messageId);
  }

  async retry(messageId: string): Promise<void> {
    await this.outbox.retry(messageId);
  }

  /** Sets the focus as a whole; a null (or a field left out) is no focus of that kind. */
  async setFocus(f: { task_id?: string | null; thread_id?: string | number | null }): Promise<void> {
    await api(v.looseObject({ id: v.string() }), '/api/focus', { method: 'POST', body: f });
  }

  async cancel(taskId: string): Promise<void> {
    await api(v.looseObject({ status: v.string() }), `/api/tasks/${taskId}/cancel`, { method: 'POST' });
  }

  /** Stops the project's running orchestrator turn (a stalled one). */
  async cancelTurn(projectId: string): Promise<void> {
    await api(v.looseObject({ status: v.string() }), `/api/projects/${projectId}/turn/cancel`, { method: 'POST' });
  }

  /** Runs a task that ended not clean once more (a new attempt). */
  async retryTask(taskId: string): Promise<void> {
    await api(v.looseObject({ status: v.string() }), `/api/tasks/${taskId}/retry`, { method: 'POST' });
  }

  /** Kept for views written before showTask: a task on screen. */
  async loadTask(taskId: string): Promise<void> {
    await this.showTask(taskId);
  }

  /** Notifies views once per frame, however many rows arrived. */
  changed(): void {
    this.outboxDirty = true;
    if (this.scheduled) return;
    this.scheduled = true;
    queueMicrotask(() => {
      this.scheduled = false;
      this.dispatchEvent(new Event('change'));
    });
  }

  /** Whether the project's orchestrator is busy (a turn or a worker it started), so input queues. */
  busy(projectId: string): boolean {
    return busy(this.model, projectId);
  }
}

export const store = new Store();
