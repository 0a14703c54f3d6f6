// The journal hub of one server process: LISTENs for dispatch_events (one NOTIFY per written batch),
// reads new rows once for all subscribers (seq > last, safe because commits are serialised in seq
// order), serialises each row once into an SSE frame, keeps a bounded ring of recent frames, and
// feeds every subscriber from its own cursor. A subscriber behind the ring pages the database,
// one page at a time as it drains. A slow poll covers a lost notification.
import type { Sql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import { EVENT_TEXT_COLUMNS, filtered, filterSql, journalHead, matches, type EventFilter, type EventTextRow, type FilterFields } from '../queries/events.ts';
import { FrameRing } from './ring.ts';

export { matches };
export type StreamFilter = EventFilter;

/**
 * A journal row as the hub keeps it: its SSE frame, serialised once for every client, and the few
 * fields a stream filter reads. Not the parsed row: with a full ring (32 MB of frames, 41 000
 * realistic rows) the parsed payloads were 49 MB of heap for the collector to walk; now 27.
 */
export interface Entry {
  seq: number;
  bytes: number;
  fields: FilterFields;
  frame: Uint8Array;
}

export interface Subscriber {
  /**
   * Rows in seq order, each exactly once, none at or below the cursor; `joined` is their frames
   * already concatenated (shared by every unfiltered subscriber of a live batch).
   */
  push(entries: Entry[], joined?: Uint8Array): void;
  /** Resolves when the subscriber has room for more (catch-up paces itself on it). */
  ready(): Promise<void>;
  /** The hub stops feeding the subscriber (server stopping, or catch-up failed). */
  close(reason: string): void;
}

interface Sub {
  sub: Subscriber;
  cursor: number;
  filter: StreamFilter;
  live: boolean;
}

export interface HubOptions {
  ringBytes?: number;
  pollMs?: number;
  pageSize?: number;
}

const encoder = new TextEncoder();
/** Catch-up pushes at most about this much before waiting for the subscriber to drain. */
const SLICE_BYTES = 512 * 1024;
/** Rows in a resuming subscriber's first database page. */
const FIRST_PAGE = 50;

const str = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));

/**
 * The row as JSON in column order (EVENT_TEXT_COLUMNS): what JSON.stringify of the parsed row
 * gives, up to whitespace inside payload and summary, which are Postgres' JSON text as is. Written
 * out rather than looped over: the loop cost a quarter of what not parsing saves.
 */
function rowJson(r: EventTextRow): string {
  return `{"event_id":${str(r.event_id)},"seq":${r.seq},"project_id":${str(r.project_id)},"session_id":${str(r.session_id)},"task_id":${str(r.task_id)},"parent_id":${str(r.parent_id)},"thread_id":${r.thread_id ?? 'null'},"thread_ref":${str(r.thread_ref ?? null)},"message_id":${str(r.message_id)},"event_type":${str(r.event_type)},"tier":${str(r.tier)},"payload":${r.payload},"summary":${r.summary ?? 'null'},"line_no":${r.line_no ?? 'null'},"created_at":${str(r.created_at)}}`;
}

export function toEntry(row: EventTextRow): Entry {
  const frame = encoder.encode(`id: ${row.seq}\ndata: ${rowJson(row)}\n\n`);
  const { project_id, session_id, task_id, tier, event_type } = row;
  return { seq: row.seq, bytes: frame.length, fields: { project_id, session_id, task_id, tier, event_type }, frame };
}

/** Consecutive runs of entries of about SLICE_BYTES each (a single larger entry is its own run). */
function* slices(entries: Entry[]): Generator<Entry[]> {
  let start = 0;
  let bytes = 0;
  for (let i = 0; i < entries.length; i++) {
    if (i > start && bytes + entries[i]!.bytes > SLICE_BYTES) {
      yield entries.slice(start, i);
      start = i;
      bytes = 0;
    }
    bytes += entries[i]!.bytes;
  }
  if (start < entries.length) yield entries.slice(start);
}

export class JournalHub {
  private last = 0;
  private readonly ring: FrameRing<Entry>;
  private subs = new Set<Sub>();
  private fetching: Promise<void> | null = null;
  private again = false;
  private timer: NodeJS.Timeout | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private changeCount = 0;
  private listening = false;
  private readonly pageSize: number;

  constructor(
    private readonly sql: Sql,
    private readonly log: Logger,
    private readonly opts: HubOptions = {},
  ) {
    this.ring = new FrameRing(opts.ringBytes ?? 32 * 1024 * 1024);
    this.pageSize = opts.pageSize ?? 500;
  }

  /** The highest seq this hub has read. */
  get head(): number {
    return this.last;
  }

  /** Rows held in memory for subscribers that resume. */
  get ringSize(): number {
    return this.ring.size;
  }

  get subscriberCount(): number {
    return this.subs.size;
  }

  /**
   * Counts what may have changed the state's tables without a new journal head: every NOTIFY on
   * dispatch_state (sql/migrations/0021_state_reads.sql), every (re)connection of the listener
   * (notifications may have been missed meanwhile) and every touch(). Null while not listening:
   * then nothing may be kept on its account.
   */
  get changes(): number | null {
    return this.listening ? this.changeCount : null;
  }

  /** Something this process wrote may have changed the state's tables (a write request ended). */
  touch(): void {
    this.changeCount++;
  }

  async start(): Promise<void> {
    this.last = await journalHead(this.sql);
    const l = await this.sql.listen(
      'dispatch_events',
      () => this.kick(),
      () => this.kick(), // (re)connected: re-query whatever was missed meanwhile
    );
    const s = await this.sql.listen(
      'dispatch_state',
      () => this.changeCount++,
      () => this.changeCount++,
    );
    this.unlisten = async () => {
      this.listening = false;
      await Promise.all([l.unlisten(), s.unlisten()]);
    };
    this.listening = true;
    this.timer = setInterval(() => this.kick(), this.opts.pollMs ?? 3000);
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.unlisten?.().catch(() => {});
    for (const s of this.subs) s.sub.close('server stopping');
    this.subs.clear();
  }

  /** Feeds a subscriber every matching row after `after`. Returns the unsubscribe function. */
  subscribe(after: number, filter: StreamFilter, sub: Subscriber): () => void {
    const s: Sub = { sub, cursor: after, filter, live: false };
    this.subs.add(s);
    void this.catchUp(s);
    return () => {
      this.subs.delete(s);
    };
  }

  private async catchUp(s: Sub): Promise<void> {
    // A resuming client's first database page is small, so its first rows arrive after a short
    // read rather than a full page's (pages of realistic rows are a few hundred KB).
    let limit = Math.min(FIRST_PAGE, this.pageSize);
    try {
      for (;;) {
        if (!this.subs.has(s)) return;
        const ringStart = this.ring.firstSeq;
        const behindRing = ringStart === undefined ? s.cursor < this.last : s.cursor + 1 < ringStart;
        if (behindRing) {
          // Older than anything in memory: one database page, then wait for the client to drain.
          const { rows, visible } = await this.page(s.cursor, s.filter, limit);
          if (!this.subs.has(s)) return;
          if (!(await this.feed(s, rows.map(toEntry)))) return;
          s.cursor = rows.length === limit ? rows.at(-1)!.seq : Math.max(visible, s.cursor);
          limit = this.pageSize;
          continue;
        }
        const slice: Entry[] = [];
        let bytes = 0;
        for (const e of this.ring.after(s.cursor)) {
          s.cursor = e.seq;
          if (matches(e.fields, s.filter)) {
            slice.push(e);
            bytes += e.bytes;
          }
          if (slice.length >= this.pageSize || bytes >= SLICE_BYTES) break;
        }
        if (slice.length) s.sub.push(slice);
        if (s.cursor >= this.last) break; // caught up; no await until live, so nothing slips between
        await s.sub.ready();
      }
      s.live = true;
    } catch (err) {
      this.log.warn(`stream catch-up failed: ${(err as Error).message}`);
      this.subs.delete(s);
      s.sub.close('catch-up failed');
    }
  }

  /** Pushes entries in slices of about SLICE_BYTES, waiting for the subscriber to drain between. */
  private async feed(s: Sub, entries: Entry[]): Promise<boolean> {
    for (const slice of slices(entries)) {
      s.sub.push(slice);
      await s.sub.ready();
      if (!this.subs.has(s)) return false;
    }
    return true;
  }

  private async page(after: number, f: StreamFilter, limit: number): Promise<{ rows: EventTextRow[]; visible: number }> {
    // One snapshot for both reads: every row up to `visible` has been looked at, since commits
    // arrive in seq order.
    return this.sql.begin('isolation level repeatable read read only', async (tx) => {
      const rows = await tx<EventTextRow[]>`
        select ${tx.unsafe(EVENT_TEXT_COLUMNS)} from dispatch.events
         where seq > ${after} ${filterSql(tx, f)}
         order by seq limit ${limit}`;
      return { rows: [...rows], visible: await journalHead(tx) };
    });
  }

  kick(): void {
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.again = false;
    this.fetching = this.fetch()
      .catch((err) => this.log.warn(`stream fetch failed: ${(err as Error).message}`))
      .finally(() => {
        this.fetching = null;
        if (this.again) this.kick();
      });
  }

  private async fetch(): Promise<void> {
    for (;;) {
      if (this.subs.size === 0) {
        // Nobody listens: no rows read, no frames made. A later subscriber pages the database from
        // its own cursor (rows up to the head are committed: commits arrive in seq order).
        const head = await journalHead(this.sql);
        // Someone subscribed meanwhile, from the old head: read the rows for them after all.
        if (this.subs.size > 0) continue;
        this.last = Math.max(this.last, head);
        this.ring.clear();
        return;
      }
      const rows = await this.sql<EventTextRow[]>`
        select ${this.sql.unsafe(EVENT_TEXT_COLUMNS)} from dispatch.events where seq > ${this.last} order by seq limit ${this.pageSize}`;
      if (rows.length === 0) return;
      const entries = rows.map(toEntry);
      this.last = rows.at(-1)!.seq;
      this.ring.push(entries);
      // Fan-out in slices of about SLICE_BYTES: one concatenated chunk per slice, written as is to
      // every unfiltered client; a client that stops reading falls behind by whole slices.
      for (const slice of slices(entries)) {
        let joined: Uint8Array | undefined;
        const firstSeq = slice[0]!.seq;
        const lastSeq = slice.at(-1)!.seq;
        for (const s of this.subs) {
          if (!s.live) continue;
          const unfiltered = !filtered(s.filter);
          if (unfiltered && s.cursor < firstSeq) {
            joined ??= Buffer.concat(slice.map((e) => e.frame));
            s.cursor = lastSeq;
            s.sub.push(slice, joined);
            continue;
          }
          const mine = slice.filter((e) => e.seq > s.cursor && matches(e.fields, s.filter));
          s.cursor = Math.max(s.cursor, lastSeq);
          if (mine.length) s.sub.push(mine);
        }
      }
      if (rows.length < this.pageSize) return;
    }
  }
}
