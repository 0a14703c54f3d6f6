// Follows a spool file as a process appends to it. The process writes its stdout straight into the
// file (not through a pipe to us), so nothing it printed is lost if this runner dies: the next runner
// reads the same file again.
import fs from 'node:fs';

export class SpoolTail {
  private fd: number | null = null;
  private pos = 0;
  private reading: Promise<void> | null = null;
  private dirty = false;
  private watcher: fs.FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly buf = Buffer.allocUnsafe(1 << 20);

  constructor(
    private readonly file: string,
    private readonly onChunk: (chunk: Buffer) => void,
    private readonly pollMs = 200,
    /** Backpressure: while this says no, bytes wait in the file, not in memory. */
    private readonly canRead: () => boolean = () => true,
  ) {}

  /** Starts following: inotify wake-ups for latency, a slow poll as a safety net. */
  start(): void {
    this.fd = fs.openSync(this.file, 'r');
    try {
      this.watcher = fs.watch(this.file, () => this.kick());
      this.watcher.on('error', () => {});
    } catch {
      /* no inotify: the poll still works */
    }
    this.timer = setInterval(() => this.kick(), this.pollMs);
    this.kick();
  }

  /** Reads everything written so far; resolves at end of file (waiting for room when paused). */
  async drain(waitForRoom: () => Promise<void> = async () => {}): Promise<void> {
    if (this.fd === null) this.fd = fs.openSync(this.file, 'r');
    for (;;) {
      this.kick();
      await this.reading;
      if (this.dirty) continue;
      if (this.canRead()) {
        // One more read to be sure nothing arrived after the last one.
        const before = this.pos;
        this.kick();
        await this.reading;
        if (this.pos === before && !this.dirty) return;
      } else {
        await waitForRoom();
      }
    }
  }

  /** Stops following; the file descriptor is closed only once no read is in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.watcher?.close();
    if (this.timer) clearInterval(this.timer);
    this.watcher = null;
    this.timer = null;
    await this.reading?.catch(() => {});
    if (this.fd !== null) fs.closeSync(this.fd);
    this.fd = null;
  }

  /** Reads what is new (also called when the consumer has room again). */
  kick(): void {
    if (this.stopped) return;
    if (this.reading) {
      this.dirty = true;
      return;
    }
    this.dirty = false;
    this.reading = this.readToEnd().catch(() => {}).finally(() => {
      this.reading = null;
      if (this.dirty) this.kick();
    });
  }

  private async readToEnd(): Promise<void> {
    const fd = this.fd;
    if (fd === null) return;
    for (;;) {
      if (this.stopped || !this.canRead()) return;
      const n = await new Promise<number>((resolve, reject) =>
        fs.read(fd, this.buf, 0, this.buf.length, this.pos, (err, bytes) => (err ? reject(err) : resolve(bytes))),
      );
      if (n === 0) return;
      this.pos += n;
      this.onChunk(Buffer.from(this.buf.subarray(0, n)));
      // Short of a full buffer: the end for now. A write after it wakes the watcher (or the poll),
      // so no second read that finds nothing (each is a thread-pool round trip, per burst of lines).
      if (n < this.buf.length) return;
    }
  }
}
