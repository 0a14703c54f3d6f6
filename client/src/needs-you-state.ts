// What Needs you lists, as the server's one definition says it (GET /api/needs-you, from
// dispatch.needs_you): loaded after the snapshot and reloaded a moment after a row that can change
// it arrives on the stream (a gate, a task's status, a session's stall, a turn, a dismissal), so a
// decision taken in one client leaves every other client's list within the stream's latency. The
// badge on the app icon counts the same items. Components share it while at least one uses it.
import * as v from 'valibot';
import { api } from './api.ts';
import { NeedsYouListSchema, type FinishedLoop, type NeedsYouItem } from '../../core/contracts/needs-you.valibot.ts';
import type { Store } from './store.ts';

export type { FinishedLoop, NeedsYouItem };

/** Row types after which the list may differ (prefixes end with a dot). */
const RELOAD_ON = ['gate.', 'session.', 'task.status_changed', 'policy.decision', 'orchestrator.working_set', 'needs_you.', 'budget.', 'quota.', 'user_message', 'turn.'];
const reloads = (type: string) => RELOAD_ON.some((p) => (p.endsWith('.') ? type.startsWith(p) : type === p));

const Dismissed = v.object({ key: v.string(), event_id: v.string() });

export class NeedsYouState extends EventTarget {
  items: NeedsYouItem[] = [];
  finished: FinishedLoop[] = [];
  /** Successful loads so far (0: nothing known yet, so nothing is counted). */
  loaded = 0;
  error: string | null = null;
  private seenSeq = 0;
  private loading: Promise<void> | null = null;
  private again = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private users = 0;
  private detach: (() => void) | null = null;

  /** The items of one project ('' = all). */
  of(project: string): NeedsYouItem[] {
    return project ? this.items.filter((i) => i.project_id === project || i.project_id === null) : this.items;
  }

  /** Whether a project's loop ended because its work is done. */
  isFinished(project: string): boolean {
    return this.finished.some((f) => f.project_id === project);
  }

  /** Follows the store while at least one component uses it. */
  use(store: Store): () => void {
    if (this.users++ === 0) this.detach = this.attach(store);
    return () => {
      if (--this.users === 0) {
        this.detach?.();
        this.detach = null;
      }
    };
  }

  private attach(store: Store): () => void {
    const onChange = () => {
      let fresh = false;
      const rows = store.events;
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        if (row.seq <= this.seenSeq) break;
        if (reloads(row.event_type)) fresh = true;
      }
      this.seenSeq = Math.max(this.seenSeq, rows.at(-1)?.seq ?? 0);
      if (fresh) this.soon();
    };
    const onBack = () => void this.load();
    store.addEventListener('change', onChange);
    store.addEventListener('reconnected', onBack);
    this.seenSeq = store.events.at(-1)?.seq ?? 0;
    void store.opened.then(() => this.load());
    // A stall is noticed by the server's sweep; a new row says so, but a quiet minute is re-read too.
    const poll = setInterval(() => void this.load(), 60_000);
    return () => {
      store.removeEventListener('change', onChange);
      store.removeEventListener('reconnected', onBack);
      clearInterval(poll);
      clearTimeout(this.timer);
    };
  }

  /** Rows come in bursts: one reload a moment after the last of them. */
  private soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), 150);
  }

  /** Reloads the list (one request at a time; a reload asked meanwhile runs after it). */
  load(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      try {
        const r = await api(NeedsYouListSchema, '/api/needs-you');
        this.items = r.items;
        this.finished = r.finished;
        this.error = null;
        this.loaded++;
      } catch (err) {
        this.error = (err as Error).message;
      } finally {
        this.loading = null;
        this.dispatchEvent(new Event('change'));
        if (this.again) {
          this.again = false;
          void this.load();
        }
      }
    })();
    return this.loading;
  }

  /** Marks an item seen: gone here at once, and from every client when the dismissal row reaches it. */
  async dismiss(key: string): Promise<void> {
    await api(Dismissed, '/api/needs-you/dismiss', { method: 'POST', body: { key } });
    this.items = this.items.filter((i) => i.key !== key);
    this.dispatchEvent(new Event('change'));
    void this.load();
  }
}

export const needsYouState = new NeedsYouState();
