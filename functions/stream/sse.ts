// One SSE client of the journal hub, written straight to the Node response: no web stream between
// the hub and the socket, one shared heartbeat timer for every client. An idle client then costs
// its socket and a closure, not a stream pipeline (measured by `npm run bench`, fan-out).
import type { EventFilter } from '../queries/events.ts';
import type { JournalHub } from './hub.ts';

/** What a client is written to: Node's ServerResponse, or a PassThrough where there is none. */
export interface SseSink {
  write(chunk: Uint8Array | string): boolean;
  readonly writableLength: number;
  once(event: 'drain' | 'close', fn: () => void): unknown;
  on(event: 'close' | 'error', fn: () => void): unknown;
  end(): unknown;
  destroy(): unknown;
}

export interface SseOptions {
  hub: JournalHub;
  after: number;
  filter: EventFilter;
  /** Bytes queued for the client before it is cut off (it resumes with Last-Event-ID). */
  limit: number;
  retryMs: number;
  heartbeatMs: number;
}

const beats = new Set<() => void>();
let beatTimer: NodeJS.Timeout | null = null;

/** One timer for all clients (the period is the first client's), stopped when the last one goes. */
function everyBeat(ms: number, ping: () => void): () => void {
  beats.add(ping);
  beatTimer ??= setInterval(() => beats.forEach((f) => f()), ms).unref();
  return () => {
    beats.delete(ping);
    if (beats.size === 0 && beatTimer) {
      clearInterval(beatTimer);
      beatTimer = null;
    }
  };
}

/** Streams the journal after `after` to the sink until the client goes or the hub stops. */
export function streamTo(sink: SseSink, o: SseOptions): void {
  let done = false;
  let waiters: (() => void)[] = [];
  const wake = () => {
    const w = waiters;
    waiters = [];
    for (const f of w) f();
  };
  const stop = () => {
    if (done) return;
    done = true;
    unsubscribe();
    stopBeat();
    wake();
  };
  sink.on('close', stop);
  sink.on('error', stop);
  sink.write(`retry: ${o.retryMs}\n: resuming after ${o.after}\n\n`);

  const stopBeat = everyBeat(o.heartbeatMs, () => {
    if (!done && sink.writableLength === 0) sink.write(': ping\n\n');
  });
  const unsubscribe = o.hub.subscribe(o.after, o.filter, {
    push(entries, joined) {
      if (done) return;
      const chunk = joined ?? (entries.length === 1 ? entries[0]!.frame : Buffer.concat(entries.map((e) => e.frame)));
      const queued = sink.writableLength;
      // Past the limit a client that does not read is cut off (a single huge row alone is let through).
      if (queued > 0 && queued + chunk.length > o.limit) {
        stop();
        sink.destroy();
        return;
      }
      sink.write(chunk);
    },
    ready() {
      if (done || sink.writableLength <= o.limit / 2) return Promise.resolve();
      return new Promise<void>((resolve) => {
        if (waiters.length === 0) sink.once('drain', wake);
        waiters.push(resolve);
      });
    },
    close() {
      if (done) return;
      stop();
      sink.end();
    },
  });
}
