// The hub's recent frames, oldest first, bounded by their bytes. Dropping the oldest moves a head
// index instead of shifting the array (Array.shift() of a ring of ~80 000 frames copies them all,
// once per row: measured at 10 000 lines/s, 16 % of the server's time); the array is compacted
// when the dropped part is the larger half. Entries are in seq order, so a cursor is found by
// binary search.

/** What the ring needs of an entry: its seq and its size. */
export interface Sized {
  seq: number;
  bytes: number;
}

export class FrameRing<T extends Sized> {
  private items: T[] = [];
  private head = 0;
  private total = 0;

  constructor(private readonly maxBytes: number) {}

  get size(): number {
    return this.items.length - this.head;
  }

  /** The oldest seq held, or undefined when empty. */
  get firstSeq(): number | undefined {
    return this.items[this.head]?.seq;
  }

  /** Appends entries (in seq order, after everything held), then drops the oldest past the bound; one entry always stays. */
  push(entries: readonly T[]): void {
    for (const e of entries) {
      this.items.push(e);
      this.total += e.bytes;
    }
    while (this.size > 1 && this.total > this.maxBytes) this.total -= this.items[this.head++]!.bytes;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
  }

  clear(): void {
    this.items = [];
    this.head = 0;
    this.total = 0;
  }

  /** Entries with seq above `after`, oldest first, lazily. */
  *after(after: number): Generator<T> {
    let lo = this.head;
    let hi = this.items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.items[mid]!.seq <= after) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < this.items.length; i++) yield this.items[i]!;
  }
}
