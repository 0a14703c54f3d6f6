// The clocks of one session: silence past the stall threshold (and the output that ends it), a
// process that lives on after its result (stopped after the grace period), and the way a stop
// escalates (SIGTERM to the process group, SIGKILL after the kill grace).

export interface WatchdogOptions {
  stallMs: number;
  resultGraceMs: number;
  killGraceMs: number;
  /**
   * The session is stalled already (journalled so by a previous runner): the stall is not reported
   * again, and the next output reports the resume.
   */
  stalled?: boolean;
  /** Signals the session's process group. */
  kill(signal: NodeJS.Signals): void;
  /** The session went silent for `silentMs` while its process lives. */
  onStall(silentMs: number): void;
  /** A stalled session printed again. */
  onResume(): void;
  /** Why the session is being stopped (for the log). */
  onTerminate(reason: string): void;
}

export class Watchdog {
  private lastOutput = Date.now();
  private stalled = false;
  private ended = false;
  private stallTimer: NodeJS.Timeout | null = null;
  private resultTimer: NodeJS.Timeout | null = null;
  private killTimer: NodeJS.Timeout | null = null;
  /** Set when the watchdog stopped a process that lived on after its result. */
  endedAfterResult = false;
  /** The last signal the watchdog sent the process (null while it sent none). */
  lastSignal: NodeJS.Signals | null = null;

  constructor(private readonly o: WatchdogOptions) {
    this.stalled = o.stalled ?? false;
  }

  /** Starts the stall clock. */
  start(): void {
    this.stallTimer = setInterval(() => this.checkStall(), Math.max(50, Math.min(1000, this.o.stallMs / 4)));
  }

  /** The process printed something. */
  output(): void {
    this.lastOutput = Date.now();
    if (this.stalled) {
      this.stalled = false;
      this.o.onResume();
    }
  }

  /** The process printed its result: it has resultGraceMs to exit on its own (called again, it waits on). */
  resultArrived(): void {
    if (this.resultTimer || this.endedAfterResult || this.ended) return;
    this.resultTimer = setTimeout(() => {
      this.endedAfterResult = true;
      this.terminate(`result arrived but the process did not exit within ${this.o.resultGraceMs} ms`);
    }, this.o.resultGraceMs);
  }

  /** Stops the process: SIGTERM now, SIGKILL after the kill grace unless it is gone by then. */
  terminate(reason: string): void {
    if (this.ended) return; // over, or left for another runner: its pid is not ours to signal
    this.o.onTerminate(reason);
    this.signal('SIGTERM');
    this.killTimer ??= setTimeout(() => this.signal('SIGKILL'), this.o.killGraceMs);
  }

  /** Every clock off (the session ended or was left for another runner). */
  stop(): void {
    this.ended = true;
    if (this.stallTimer) clearInterval(this.stallTimer);
    if (this.resultTimer) clearTimeout(this.resultTimer);
    if (this.killTimer) clearTimeout(this.killTimer);
  }

  private signal(sig: NodeJS.Signals): void {
    if (this.lastSignal !== 'SIGKILL') this.lastSignal = sig; // a later SIGTERM does not undo a SIGKILL
    this.o.kill(sig);
  }

  private checkStall(): void {
    const silent = Date.now() - this.lastOutput;
    if (!this.stalled && silent >= this.o.stallMs) {
      this.stalled = true;
      this.o.onStall(silent);
    }
  }
}
