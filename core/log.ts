// A tiny line logger to stderr. Never pass it secrets, SQL text or query parameters.
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
export type Level = keyof typeof LEVELS;

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string): void;
}

export function createLogger(level: Level = 'info', scope = 'dispatch'): Logger {
  const min = LEVELS[level];
  const write = (l: Level, msg: string) => {
    if (LEVELS[l] >= min) process.stderr.write(`${new Date().toISOString()} ${l.padEnd(5)} [${scope}] ${msg}\n`);
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}
