// A tiny line logger to stderr. Never pass it secrets, SQL text or query parameters.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type Level = keyof typeof LEVELS;

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

let guarded = false;

/**
 * Output whose reader is gone is dropped, not fatal: `npm start 2>&1 | tee log` and a Ctrl-C end tee
 * with us, and an unhandled EPIPE (or EIO from a closed terminal) would crash the stop half-way,
 * leaving the embedded Postgres running. Called by createLogger; idempotent.
 */
export function survivePipeLoss(): void {
  if (guarded) return;
  guarded = true;
  for (const stream of [process.stdout, process.stderr]) stream.on('error', () => {});
}

export function createLogger(level: Level = 'info', scope = 'dispatch'): Logger {
  survivePipeLoss();
  const min = LEVELS[level];
  const write = (l: Level, msg: string) => {
    if (LEVELS[l] < min || process.stderr.destroyed) return;
    try {
      process.stderr.write(`${new Date().toISOString()} ${l.padEnd(5)} [${scope}] ${msg}\n`);
    } catch {
      /* the reader is gone: see survivePipeLoss */
    }
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}
