// The Trellis tile's own state: the view from GET /api/trellis (live thread, thread list, and the
// recent context of the focused thread or else the live one), refreshed every 10 s, whenever the
// focused thread changes (on any client: focus arrives through the store's stream), when the
// stream is back after a loss, and on demand.
// It lives apart from the store, so nothing else waits on Trellis.
import { api } from './api.ts';
import { TrellisSchema, type Trellis } from './schemas.ts';
import { store } from './store.ts';

export type ThreadId = string | number;

const REFRESH_MS = 10_000;

/** Trellis ids may be strings or numbers; one thread is the same whichever way it was written. */
export function sameThread(a: ThreadId | null | undefined, b: ThreadId | null | undefined): boolean {
  return a !== null && a !== undefined && b !== null && b !== undefined && String(a) === String(b);
}

class TrellisState extends EventTarget {
  /** The last answer; null before the first. */
  view: Trellis | null = null;
  /** The thread whose context view.recent_context holds. */
  contextOf: ThreadId | null = null;
  /** A thread whose focus switch is on its way to the server. */
  switching: ThreadId | null = null;
  private users = 0;
  private timer: ReturnType<typeof setInterval> | undefined;
  private loads = 0;
  private focusSeen: ThreadId | null | undefined;

  private readonly onStore = () => {
    const f = store.focus?.thread_id ?? null;
    if (this.focusSeen !== undefined && String(f) === String(this.focusSeen)) return;
    this.focusSeen = f;
    void this.load();
  };
  /** Back from offline or a lost server: ask at once rather than at the next refresh. */
  private readonly onBack = () => void this.load();

  /** Starts loading and refreshing while at least one tile is on screen. */
  attach(): void {
    if (this.users++ > 0) return;
    store.addEventListener('change', this.onStore);
    store.addEventListener('reconnected', this.onBack);
    this.timer = setInterval(() => void this.load(), REFRESH_MS);
    this.focusSeen = store.focus?.thread_id ?? null;
    // After the snapshot: the open's own request goes first (see Store.opened).
    void store.opened.then(() => this.load());
  }

  detach(): void {
    if (--this.users > 0) return;
    store.removeEventListener('change', this.onStore);
    store.removeEventListener('reconnected', this.onBack);
    clearInterval(this.timer);
  }

  /** Asks the server again; the newest answer wins. */
  async load(): Promise<void> {
    const n = ++this.loads;
    const thread = store.focus?.thread_id ?? null;
    let view: Trellis;
    try {
      view = await api(TrellisSchema, thread === null ? '/api/trellis' : `/api/trellis?thread=${encodeURIComponent(String(thread))}`);
    } catch {
      // Our own server did not answer: that says nothing about Trellis (the connection banner
      // says the server is away), so the tile keeps what it showed — none at all on a server
      // without Trellis — and asks again once the stream is back.
      return;
    }
    if (n !== this.loads) return;
    this.view = view;
    this.contextOf = view.available ? (thread ?? view.live_thread?.id ?? null) : null;
    this.dispatchEvent(new Event('change'));
  }

  /** Switches every client's focus to a thread, keeping the focused task. */
  async focus(id: ThreadId): Promise<void> {
    this.switching = id;
    this.dispatchEvent(new Event('change'));
    try {
      await store.setFocus({ thread_id: id, ...(store.focus?.task_id ? { task_id: store.focus.task_id } : {}) });
    } finally {
      this.switching = null;
      this.dispatchEvent(new Event('change'));
    }
  }
}

export const trellis = new TrellisState();
