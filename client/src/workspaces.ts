// Workspaces on the client, kept apart from the main store: each shown task's workspace (its change,
// fetched from GET /api/tasks/:id/workspace, null when none) and how many changes wait for a decision
// (GET /api/workspaces). Both are refetched when a workspace.* row arrives on the journal stream,
// so a merge made on one client shows on every other one without a reload.
//
// @fires change - a workspace or the waiting count changed
import * as v from 'valibot';
import { api, authHeaders } from './api.ts';
import { DecisionSchema, WorkspaceListSchema, WorkspaceSchema, type Workspace } from '../../core/contracts/workspace.valibot.ts';
import { TaskSchema, type Task } from './schemas.ts';
import { store } from './store.ts';

export type { Change, Workspace } from '../../core/contracts/workspace.valibot.ts';

/** A refused decision: the server's code and message, and the conflicting files when there are. */
export interface Refusal {
  code: string;
  message: string;
  files: string[];
}

const ConflictBody = v.object({ error: v.object({ code: v.string(), message: v.string(), details: v.optional(v.looseObject({ files: v.optional(v.array(v.string())) })) }) });

class Workspaces extends EventTarget {
  /** Workspaces by task id (null: the task has none). Only tasks someone looked at are held. */
  readonly byTask = new Map<string, Workspace | null>();
  /** Changes waiting for a decision, in the store's scope. */
  waiting = 0;
  /** The tasks whose change waits (the newest 100), for the chip's list and the task cards' mark. */
  waitingTasks: string[] = [];
  private seen = 0;
  private started = false;
  private scope = '';

  /** Follows the store's journal for workspace rows (idempotent). */
  start(): void {
    if (this.started) return;
    this.started = true;
    store.addEventListener('change', () => this.onStore());
    this.onStore();
  }

  private onStore(): void {
    if (!store.loaded) return;
    if (store.scope !== this.scope || !this.seen) {
      this.scope = store.scope;
      this.seen = store.seq;
      void this.refreshWaiting();
    }
    const rows = store.events;
    const touched = new Set<string>();
    for (let i = rows.length - 1; i >= 0 && rows[i]!.seq > this.seen; i--) {
      const r = rows[i]!;
      if (r.event_type.startsWith('workspace.') && r.task_id) touched.add(r.task_id);
    }
    if (rows.length) this.seen = Math.max(this.seen, rows[rows.length - 1]!.seq);
    if (!touched.size) return;
    for (const id of touched) if (this.byTask.has(id)) void this.load(id);
    void this.refreshWaiting();
  }

  private async refreshWaiting(): Promise<void> {
    const q = store.scope ? `project_id=${store.scope}&` : '';
    const ticket = this.issue('waiting');
    const r = await api(WorkspaceListSchema, `/api/workspaces?${q}state=waiting&limit=100`).catch(() => null);
    if (!this.latest('waiting', ticket)) return;
    const ids = r ? r.workspaces.map((w) => w.task_id) : this.waitingTasks;
    if (r && (r.waiting !== this.waiting || ids.join() !== this.waitingTasks.join())) {
      this.waiting = r.waiting;
      this.waitingTasks = ids;
      this.changed();
    }
  }

  /** Fetches the task's workspace (null when it has none). */
  async load(taskId: string): Promise<Workspace | null> {
    const ticket = this.issue(taskId);
    const w: Workspace | null = await api(v.nullable(WorkspaceSchema), `/api/tasks/${taskId}/workspace`);
    // Answers can overtake each other (a decision's and a stream row's): only the newest asked counts.
    if (!this.latest(taskId, ticket)) return this.byTask.get(taskId) ?? null;
    this.byTask.set(taskId, w);
    this.changed();
    return w;
  }

  /**
   * Merge or discard: resolves when the job is queued; a refusal (409) comes back as a Refusal.
   * `force` merges although the project's check failed or never ran (a person's choice, journalled).
   */
  async decide(taskId: string, action: 'merge' | 'discard', o: { force?: boolean } = {}): Promise<Refusal | null> {
    const init: RequestInit = o.force
      ? { method: 'POST', headers: { ...authHeaders(), 'content-type': 'application/json' }, body: JSON.stringify({ force: true }) }
      : { method: 'POST', headers: authHeaders() };
    const res = await fetch(`/api/tasks/${taskId}/${action}`, init);
    const body: unknown = await res.json().catch(() => null);
    if (res.status === 202 && v.is(DecisionSchema, body)) {
      await this.load(taskId);
      return null;
    }
    const e = v.safeParse(ConflictBody, body);
    return e.success
      ? { code: e.output.error.code, message: e.output.error.message, files: e.output.error.details?.files ?? [] }
      : { code: 'http_error', message: `HTTP ${res.status}`, files: [] };
  }

  /** Continue (a follow-up task with a brief) or Resolve (a task carrying the conflict): the new task. */
  async follow(taskId: string, how: { continue: string } | { resolve: true }): Promise<Task> {
    const t = 'resolve' in how
      ? await api(TaskSchema, `/api/tasks/${taskId}/resolve`, { method: 'POST' })
      : await api(TaskSchema, `/api/tasks/${taskId}/continue`, { method: 'POST', body: { brief: how.continue } });
    await this.load(taskId);
    return t;
  }

  private readonly tickets = new Map<string, number>();
  private issue(key: string): number {
    const n = (this.tickets.get(key) ?? 0) + 1;
    this.tickets.set(key, n);
    return n;
  }
  private latest(key: string, ticket: number): boolean {
    return this.tickets.get(key) === ticket;
  }

  private changed(): void {
    this.dispatchEvent(new Event('change'));
  }
}

export const workspaces = new Workspaces();
