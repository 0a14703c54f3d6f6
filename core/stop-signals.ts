// How a petal-dispatch process is asked to stop: SIGINT, SIGTERM or SIGHUP, heard from the entry
// point's first line on. The first one aborts `signal`, so a start-up under way stops what it has
// started (in reverse order) instead of dying half-way, and runs what was registered with onStop; a
// repeat changes nothing (one Ctrl-C reaches us from the terminal, and again from npm).
import { survivePipeLoss } from './log.ts';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/** Thrown by a start-up that stopped because it was asked to (signal.reason). */
export class StopRequested extends Error {
  override name = 'StopRequested';
  constructor(readonly why: string) {
    super(`stopped during start-up (${why})`);
  }
}

export interface StopSignals {
  /** Aborted by the first stop signal, with a StopRequested as its reason. */
  readonly signal: AbortSignal;
  /** The first signal's name, once one came. */
  readonly why: string | null;
  /** Runs fn on the first stop signal, or at once when it came already. */
  onStop(fn: (why: string) => void): void;
}

/** Starts listening; call it before anything else starts. */
export function listenForStop(): StopSignals {
  survivePipeLoss(); // the Ctrl-C that stops us may have ended the reader of our output too
  const controller = new AbortController();
  let why: string | null = null;
  const waiting: ((why: string) => void)[] = [];
  for (const name of STOP_SIGNALS) {
    process.on(name, () => {
      if (why !== null) return;
      why = name;
      controller.abort(new StopRequested(name));
      for (const fn of waiting.splice(0)) fn(name);
    });
  }
  return {
    signal: controller.signal,
    get why() {
      return why;
    },
    onStop(fn) {
      if (why !== null) fn(why);
      else waiting.push(fn);
    },
  };
}

/** The signal's name when err is a requested stop, else null. */
export function requestedStop(err: unknown): string | null {
  return err instanceof StopRequested ? err.why : null;
}
