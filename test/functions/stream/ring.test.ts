// The hub's ring of recent frames: bounded by bytes, oldest dropped first, found by seq.
import { describe, expect, it } from 'vitest';
import { FrameRing } from '../../../functions/stream/ring.ts';

const entry = (seq: number, bytes = 10) => ({ seq, bytes });
const seqs = (it: Iterable<{ seq: number }>) => [...it].map((e) => e.seq);

describe('the frame ring', () => {
  it('keeps the newest entries within its bytes, and always the last one', () => {
    const ring = new FrameRing(35);
    ring.push([entry(1), entry(2), entry(3)]);
    expect(ring.size).toBe(3);
    ring.push([entry(4)]);
    expect(seqs(ring.after(0))).toEqual([2, 3, 4]);
    expect(ring.firstSeq).toBe(2);
    ring.push([entry(5, 100)]); // larger than the whole bound: kept alone
    expect(seqs(ring.after(0))).toEqual([5]);
    ring.clear();
    expect(ring.size).toBe(0);
    expect(ring.firstSeq).toBeUndefined();
    expect(seqs(ring.after(0))).toEqual([]);
  });

  it('finds the entries after any cursor, across many drops (seqs with gaps)', () => {
    const ring = new FrameRing(10 * 5000);
    for (let k = 1; k <= 40_000; k++) ring.push([entry(k * 3)]);
    expect(ring.size).toBe(5000);
    expect(ring.firstSeq).toBe((40_000 - 4999) * 3);
    expect(seqs(ring.after(0))).toHaveLength(5000);
    expect(seqs(ring.after(119_990))).toEqual([119_991, 119_994, 119_997, 120_000]);
    expect(seqs(ring.after(119_991))).toEqual([119_994, 119_997, 120_000]);
    expect(seqs(ring.after(119_992))).toEqual([119_994, 119_997, 120_000]);
    expect(seqs(ring.after(120_000))).toEqual([]);
  });
});
