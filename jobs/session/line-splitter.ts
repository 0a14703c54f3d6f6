// Splits a byte stream into lines on \n, keeping bytes intact (decoding is the substrate's business).

export class LineSplitter {
  private pending: Buffer[] = [];

  constructor(private readonly onLine: (line: Buffer) => void) {}

  push(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(0x0a, start);
      if (nl === -1) break;
      const piece = chunk.subarray(start, nl);
      if (this.pending.length) {
        this.pending.push(piece);
        this.onLine(Buffer.concat(this.pending));
        this.pending = [];
      } else {
        this.onLine(Buffer.from(piece));
      }
      start = nl + 1;
    }
    if (start < chunk.length) this.pending.push(Buffer.from(chunk.subarray(start)));
  }

  /** Emits a last line that had no newline (a truncated final write is still a line). */
  end(): void {
    if (this.pending.length) {
      this.onLine(Buffer.concat(this.pending));
      this.pending = [];
    }
  }
}
