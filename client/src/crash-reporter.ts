// Crash reports (SC-2): uncaught errors, unhandled promise rejections and an event stream that failed
// to reconnect STREAM_FAILURE_LIMIT times in a row are posted to POST /api/diagnostics/client-errors
// with the app version and the view, and journalled there as client.error. A report that cannot be
// sent (the server is down) waits in localStorage and goes out later. At most 5 a minute leave a
// page, and one error repeating is reported once per 10 s, so a render loop cannot flood the journal.
import { authHeaders } from './api.ts';

declare const __APP_VERSION__: string;

/** Failed reconnects in a row that count as a crash. */
export const STREAM_FAILURE_LIMIT = 5;

interface Report {
  kind: 'error' | 'unhandled_rejection' | 'stream';
  message: string;
  stack?: string;
  source?: string;
  line?: number;
  column?: number;
  app_version: string;
  view: string;
  user_agent?: string;
  attempts?: number;
}

const KEY = 'pd.crash-reports';
const PER_MINUTE = 5;
const REPEAT_MS = 10_000;
const version = typeof __APP_VERSION__ === 'string' ? __APP_VERSION__ : 'dev';

let sentTimes: number[] = [];
const lastSeen = new Map<string, number>();
let flushing = false;

function pending(): Report[] {
  try {
    return JSON.parse(localStorage.getItem(KEY) ?? '[]') as Report[];
  } catch {
    return [];
  }
}

function save(queue: Report[]): void {
  try {
    if (queue.length) localStorage.setItem(KEY, JSON.stringify(queue.slice(-20)));
    else localStorage.removeItem(KEY);
  } catch {
    /* storage full or blocked: the report is lost, the page goes on */
  }
}

/**
 * Error events that are not crashes: the browser's ResizeObserver loop notice (a layout that took
 * two frames to settle, e.g. the virtualised Activity feed; nothing failed) and the opaque
 * "Script error." of a cross-origin script.
 */
const NOT_CRASHES = [/^ResizeObserver loop /, /^Script error\.?$/];

const clipTo = (s: string | undefined, n: number) => (s === undefined ? undefined : s.length > n ? s.slice(0, n) : s);

function report(r: Omit<Report, 'app_version' | 'view' | 'user_agent'>): void {
  const now = Date.now();
  const key = `${r.kind}:${r.message}`;
  if (now - (lastSeen.get(key) ?? -Infinity) < REPEAT_MS) return;
  lastSeen.set(key, now);
  sentTimes = sentTimes.filter((t) => now - t < 60_000);
  if (sentTimes.length >= PER_MINUTE) return;
  sentTimes.push(now);
  const full: Report = {
    ...r,
    message: clipTo(r.message || '(no message)', 2000)!,
    stack: clipTo(r.stack, 8000),
    source: clipTo(r.source, 2000),
    app_version: version,
    view: clipTo(location.hash || '#', 200)!,
    user_agent: clipTo(navigator.userAgent, 500),
  };
  save([...pending(), full]);
  void flush();
}

/** Sends what waits; keeps it when the server cannot be reached or answers 5xx. */
export async function flush(): Promise<void> {
  if (flushing) return;
  flushing = true;
  try {
    let queue = pending();
    while (queue.length) {
      const body = Object.fromEntries(Object.entries(queue[0]!).filter(([, v]) => v !== undefined));
      let status = 0;
      try {
        const res = await fetch('/api/diagnostics/client-errors', {
          method: 'POST',
          headers: { ...authHeaders(), 'content-type': 'application/json' },
          body: JSON.stringify(body),
          keepalive: true,
        });
        status = res.status;
      } catch {
        /* offline: try later */
      }
      if (status === 0 || status >= 500) break;
      // Journalled, or refused for good (4xx, 429): either way done. Reports queued while it was on
      // its way are in storage, not in `queue`: read it again and take out only the one sent.
      const sent = JSON.stringify(queue[0]);
      queue = pending();
      const at = queue.findIndex((r) => JSON.stringify(r) === sent);
      if (at >= 0) queue.splice(at, 1);
      save(queue);
    }
  } finally {
    flushing = false;
  }
}

/** The event stream failed to reconnect `attempts` times in a row. */
export function reportStreamFailure(attempts: number, detail: string): void {
  report({ kind: 'stream', message: `the event stream failed to reconnect ${attempts} times in a row: ${detail}`, attempts });
}

export function installCrashReporter(): void {
  window.addEventListener('error', (e: ErrorEvent) => {
    if (!e.error && NOT_CRASHES.some((re) => re.test(e.message))) return;
    const err = e.error as { stack?: unknown } | undefined;
    report({
      kind: 'error',
      message: e.message || String(e.error),
      stack: typeof err?.stack === 'string' ? err.stack : undefined,
      source: e.filename || undefined,
      line: e.lineno || undefined,
      column: e.colno || undefined,
    });
  });
  window.addEventListener('unhandledrejection', (e: PromiseRejectionEvent) => {
    const r = e.reason as { message?: unknown; stack?: unknown } | undefined;
    report({
      kind: 'unhandled_rejection',
      message: typeof r?.message === 'string' ? r.message : String(e.reason),
      stack: typeof r?.stack === 'string' ? r.stack : undefined,
    });
  });
  window.addEventListener('online', () => void flush());
  setInterval(() => {
    if (pending().length) void flush();
  }, 30_000);
  void flush();
}
