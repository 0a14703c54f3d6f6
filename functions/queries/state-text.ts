// The state snapshot as response bytes that can be sent again and again: the JSON text is made
// once, with holes for the few values that depend on when it is sent (generated_at, and the
// duration of whatever is still running); the constant stretches are also deflated once, so a
// gzip answer is those stretches with the holes' bytes between them as stored (uncompressed)
// deflate blocks — no compressor runs per request.
import zlib from 'node:zlib';
import type { Session } from '../../core/contracts/session.ts';
import type { State } from '../../core/contracts/state.ts';
import type { Task } from '../../core/contracts/task.ts';

type Fill = (now: number) => string;

/** A JSON text with holes, and per hole what fills it at a given time. */
export interface StateText {
  /** UTF-8 bytes of the stretches between holes (one more than there are holes). */
  stretches: Buffer[];
  fills: Fill[];
  /** Each stretch deflated (raw, ending on a sync flush), made on first use. */
  deflated?: Buffer[];
}

/** A hole in the JSON text: a string no value from the database can hold (text holds no NUL). */
const HOLE = /"\\u0000(\d+)"/;

/** Splits the snapshot's text at its time-dependent values. */
export function stateText(state: State): StateText {
  const fills: Fill[] = [];
  const hole = (fill: Fill) => `\u0000${fills.push(fill) - 1}`;
  // duration_ms of a started, unfinished row is its age at the time of the answer.
  const live = <R extends Task | Session>(r: R): R => {
    if (r.started_at === null || r.ended_at !== null) return r;
    const started = Date.parse(r.started_at);
    return { ...r, duration_ms: hole((now) => String(Math.round(now - started))) };
  };
  const doc = {
    ...state,
    generated_at: hole((now) => `"${new Date(now).toISOString()}"`),
    tasks: state.tasks.map(live),
    sessions: state.sessions.map(live),
  };
  const parts = JSON.stringify(doc).split(HOLE);
  const stretches: Buffer[] = [];
  for (let i = 0; i < parts.length; i += 2) stretches.push(Buffer.from(parts[i]!));
  // Holes in text order (the split's odd parts are their numbers).
  const ordered = parts.filter((_, i) => i % 2 === 1).map((n) => fills[Number(n)]!);
  return { stretches, fills: ordered };
}

function holeBytes(t: StateText, now: number): Buffer[] {
  return t.fills.map((f) => Buffer.from(f(now)));
}

/** The JSON text at `now`. */
export function renderJson(t: StateText, now: number): Buffer {
  const holes = holeBytes(t, now);
  const out: Buffer[] = [];
  t.stretches.forEach((s, i) => {
    out.push(s);
    if (i < holes.length) out.push(holes[i]!);
  });
  return Buffer.concat(out);
}

const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff]);
/** The last deflate block: stored, final, empty. */
const FINAL_BLOCK = Buffer.from([0x01, 0x00, 0x00, 0xff, 0xff]);

/** `data` as stored deflate blocks (not final), at a byte boundary. */
function storedBlocks(data: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let i = 0; i < data.length; i += 0xffff) {
    const chunk = data.subarray(i, Math.min(data.length, i + 0xffff));
    const head = Buffer.alloc(5);
    head[0] = 0x00; // BFINAL 0, BTYPE 00 (stored)
    head.writeUInt16LE(chunk.length, 1);
    head.writeUInt16LE(~chunk.length & 0xffff, 3);
    out.push(head, chunk);
  }
  return out;
}

/**
 * The gzip of the JSON text at `now`: one gzip member whose deflate stream is the cached
 * stretches (each its own deflate run ending in a sync flush, so byte-aligned and not final) with
 * the holes as stored blocks between them, then an empty final block; CRC-32 and length over the
 * whole text, as any gunzip checks.
 */
export function renderGzip(t: StateText, now: number): Buffer {
  t.deflated ??= t.stretches.map((s) => zlib.deflateRawSync(s, { finishFlush: zlib.constants.Z_SYNC_FLUSH }));
  const holes = holeBytes(t, now);
  const out: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let size = 0;
  t.stretches.forEach((s, i) => {
    out.push(t.deflated![i]!);
    crc = zlib.crc32(s, crc);
    size += s.length;
    const h = holes[i];
    if (h) {
      out.push(...storedBlocks(h));
      crc = zlib.crc32(h, crc);
      size += h.length;
    }
  });
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  out.push(FINAL_BLOCK, trailer);
  return Buffer.concat(out);
}
