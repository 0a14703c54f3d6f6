// The open gates this client shows ("Needs you"): loaded from GET /api/gates, reloaded whenever a
// gate.* row arrives on the journal stream (so a decision taken anywhere shows everywhere), and
// decided with one request. Kept apart from the store so the gates list can be embedded anywhere.
import { api } from './api.ts';
import { GateListSchema, GateSchema, type Gate } from './schemas.ts';
import type { Store } from './store.ts';

export type { Gate };

export class GatesState extends EventTarget {
  gates: Gate[] = [];
  error: string | null = null;
  /** Successful loads so far: an error shown before the latest one is out of date. */
  loaded = 0;
  private seenSeq = 0;
  private loading: Promise<void> | null = null;
  private again = false;
  private store: Store | null = null;

  /** Follows the store's rows: any gate event reloads the list. */
  attach(store: Store): () => void {
    this.store = store;
    const onChange = () => {
      let fresh = false;
      for (let i = store.events.length - 1; i >= 0; i--) {
        const row = store.events[i]!;
        if (row.seq <= this.seenSeq) break;
        if (row.event_type.startsWith('gate.')) fresh = true;
      }
      this.seenSeq = Math.max(this.seenSeq, store.events.at(-1)?.seq ?? 0);
      if (fresh) void this.load();
    };
    // Back from a lost connection: gates may have been decided elsewhere meanwhile, and an error
    // taken while away is out of date, so the list is read again.
    const onBack = () => void this.load();
    store.addEventListener('change', onChange);
    store.addEventListener('reconnected', onBack);
    this.seenSeq = store.events.at(-1)?.seq ?? 0;
    // After the snapshot: the open's own request goes first (see Store.opened).
    void store.opened.then(() => this.load());
    return () => {
      store.removeEventListener('change', onChange);
      store.removeEventListener('reconnected', onBack);
    };
  }

  /** Reloads the open gates (one request at a time; a reload asked meanwhile runs after it). */
  load(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    // What this load reads reflects every row up to the store's seq: only rows above it (live ones,
    // not the history the open pages in) call for another.
    if (this.store) this.seenSeq = Math.max(this.seenSeq, this.store.seq);
    this.loading = (async () => {
      try {
        const r = await api(GateListSchema, '/api/gates?status=open');
        this.gates = r.gates;
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

  /** Approves or denies a gate; the list follows (a gate decided elsewhere first is simply gone). */
  async decide(id: string, decision: 'approve' | 'deny', reason?: string): Promise<Gate> {
    const gate = await api(GateSchema, `/api/gates/${id}/decision`, { method: 'POST', body: { decision, reason, via: 'web' } });
    this.gates = this.gates.filter((g) => g.id !== id);
    this.dispatchEvent(new Event('change'));
    void this.load();
    return gate;
  }
}

export const gatesState = new GatesState();

/** Hands the API token to the service worker, so a notification's Approve/Deny can authenticate. */
export async function shareTokenWithServiceWorker(token: string | null): Promise<void> {
  if (!('serviceWorker' in navigator)) return;
  const reg = await navigator.serviceWorker.ready;
  reg.active?.postMessage({ type: 'pd-token', token });
}
