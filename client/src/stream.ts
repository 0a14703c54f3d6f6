// The journal stream: fetch-based SSE (so it can send the token and Last-Event-ID), resuming from
// the last seq after any disconnect — network loss, a server restart, a phone waking up.
import { flush as flushCrashReports, reportStreamFailure, STREAM_FAILURE_LIMIT } from './crash-reporter.ts';
import * as v from 'valibot';
import { authHeaders } from './api.ts';
import { EventRowSchema, type EventRow } from './schemas.ts';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'offline';

export interface StreamHandlers {
  events(rows: EventRow[]): void;
  connection(state: Connection, detail?: string): void;
  /** Where to resume from: the last seq the store holds. */
  after(): number;
  /** The journal filter, as a query string (e.g. `project=…&not_type=…`); '' for every row. */
  filter?(): string;
}

export class JournalStream {
  private abort: AbortController | null = null;
  private stopped = false;
  private attempt = 0;

  constructor(private readonly h: StreamHandlers) {}

  start(): void {
    this.stopped = false;
    void this.loop();
    window.addEventListener('online', this.nudge);
    window.addEventListener('offline', this.dropped);
    document.addEventListener('visibilitychange', this.nudge);
  }

  stop(): void {
    this.stopped = true;
    this.abort?.abort();
    window.removeEventListener('online', this.nudge);
    window.removeEventListener('offline', this.dropped);
    document.removeEventListener('visibilitychange', this.nudge);
  }

  /** The device lost its network: say so now (a stream may not notice for a long while) and drop it; 'online' resumes it. */
  private dropped = () => {
    this.h.connection('offline');
    this.abort?.abort();
  };

  /** Reconnect now (the phone woke up, the network came back). */
  private nudge = () => {
    if (document.visibilityState === 'visible' && this.waiting) this.waiting();
  };
  private waiting: (() => void) | null = null;

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.h.connection(!navigator.onLine ? 'offline' : this.attempt === 0 ? 'connecting' : 'reconnecting');
      let failure = 'the stream ended';
      try {
        await this.once();
      } catch (err) {
        failure = (err as Error).message; /* dropped: retry below */
      }
      if (this.stopped) return;
      this.attempt++;
      if (this.attempt === STREAM_FAILURE_LIMIT && navigator.onLine) reportStreamFailure(this.attempt, failure);
      this.h.connection(navigator.onLine ? 'reconnecting' : 'offline');
      const delay = Math.min(10_000, 500 * 2 ** Math.min(this.attempt - 1, 5));
      await new Promise<void>((r) => {
        const t = setTimeout(r, delay);
        this.waiting = () => {
          clearTimeout(t);
          r();
        };
      });
      this.waiting = null;
    }
  }

  private async once(): Promise<void> {
    this.abort = new AbortController();
    const filter = this.h.filter?.() ?? '';
    const res = await fetch(filter ? `/api/stream?${filter}` : '/api/stream', {
      headers: { accept: 'text/event-stream', 'last-event-id': String(this.h.after()), ...authHeaders() },
      signal: this.abort.signal,
      cache: 'no-store',
      // A stream that never ends is not part of loading the page: at the default (high) priority
      // it would compete with the shell's own requests and keep the page "loading" for good.
      priority: 'low',
    });
    if (!res.ok || !res.body) throw new Error(`HTTP ${res.status}`);
    const recovered = this.attempt > 0;
    this.attempt = 0;
    this.h.connection('live');
    if (recovered) void flushCrashReports(); // reports made while the server was away
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = '';
    // A silent stream (no heartbeat for 40 s) is a dead one.
    let watchdog = setTimeout(() => this.abort?.abort(), 40_000);
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        clearTimeout(watchdog);
        watchdog = setTimeout(() => this.abort?.abort(), 40_000);
        buf += value;
        const batch: EventRow[] = [];
        let idx: number;
        while ((idx = buf.indexOf('\n\n')) !== -1) {
          const block = buf.slice(0, idx);
          buf = buf.slice(idx + 2);
          const data = block
            .split('\n')
            .filter((l) => l.startsWith('data:'))
            .map((l) => l.slice(5).replace(/^ /, ''))
            .join('\n');
          if (!data) continue;
          const parsed = v.safeParse(EventRowSchema, JSON.parse(data));
          if (parsed.success) batch.push(parsed.output);
        }
        if (batch.length) this.h.events(batch);
      }
    } finally {
      clearTimeout(watchdog);
    }
  }
}
