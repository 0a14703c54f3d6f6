// The hub reads the journal only for someone: with no subscriber it reads no rows, and a
// subscriber that arrives later still gets every row after its cursor, once, in seq order.
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_COLUMNS, type EventRow } from '../../../functions/queries/events.ts';
import { JournalHub, type Entry } from '../../../functions/stream/hub.ts';
import { JournalWriter } from '../../../jobs/journal-writer.ts';
import { createTestDb, waitFor, type TestDb } from '../../helpers/db.ts';
import { quiet } from '../../helpers/app.ts';
import { defer } from '../../helpers/teardown.ts';

let db: TestDb;
let hub: JournalHub;
let projectId: string;
let sessionId: string;

beforeAll(async () => {
  db = await createTestDb();
  hub = new JournalHub(db.sql, quiet, { pollMs: 200, ringBytes: 64 * 1024 });
  await hub.start();
  defer(() => hub.stop(), 'stop the hub');
  const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('hub') as id`;
  projectId = p!.id;
  const [s] = await db.sql<{ id: string }[]>`insert into dispatch.sessions (project_id, role, status) values (${projectId}, 'worker', 'running') returning id`;
  sessionId = s!.id;
});

async function write(from: number, n: number): Promise<number> {
  const w = new JournalWriter(db.sql, { projectId, sessionId }, { firstLineNo: from });
  for (let i = from; i < from + n; i++) w.push(Buffer.from(JSON.stringify({ type: 'stream_event', i })));
  await w.flush();
  const [{ s } = { s: 0 }] = await db.sql<{ s: number }[]>`select max(seq)::int as s from dispatch.events`;
  return s;
}

function collector() {
  const got: Entry[] = [];
  return {
    got,
    sub: { push: (e: Entry[]) => void got.push(...e), ready: async () => {}, close() {} },
  };
}

describe('the journal hub', () => {
  it('follows the head without reading rows while nobody listens; a late subscriber gets every row once, in order', async () => {
    const [{ s: start } = { s: 0 }] = await db.sql<{ s: number }[]>`select max(seq)::int as s from dispatch.events`;
    const top = await write(0, 1500);
    await waitFor(() => hub.head, (h) => h >= top, { what: 'the hub to reach the head' });
    expect(hub.ringSize).toBe(0); // nothing was read into memory for nobody

    const c = collector();
    const unsubscribe = hub.subscribe(start, {}, c.sub);
    await waitFor(() => c.got.length, (n) => n >= top - start, { what: 'the late subscriber to catch up' });
    const more = await write(1500, 300); // and live rows after it joined
    await waitFor(() => c.got.at(-1)?.seq, (s) => s === more, { what: 'live rows' });
    unsubscribe();
    const seqs = c.got.map((e) => e.seq);
    expect(seqs).toEqual([...new Set(seqs)].sort((a, b) => a - b));
    expect(seqs.length).toBe(more - start);
    expect(c.got.filter((e) => e.fields.event_type === 'claude.stream_event').length).toBe(1800);
  });
});

describe('a subscriber that arrives while the hub is skipping', () => {
  it('still gets the rows written between its cursor and the new head', async () => {
    for (let round = 0; round < 20; round++) {
      const [{ s: start } = { s: 0 }] = await db.sql<{ s: number }[]>`select max(seq)::int as s from dispatch.events`;
      await waitFor(() => hub.head, (h) => h >= start, { what: 'the hub at the head' });
      const top = await write(10_000 + round * 100, 50);
      // Subscribe at once, racing the hub's own reaction to the NOTIFY of those rows.
      const c = collector();
      const unsubscribe = hub.subscribe(start, {}, c.sub);
      await waitFor(() => c.got.at(-1)?.seq ?? 0, (s) => s >= top, { what: `round ${round}: rows up to ${top}`, timeout: 10_000 });
      unsubscribe();
      expect(c.got.map((e) => e.seq)).toEqual(Array.from({ length: top - start }, (_, k) => start + 1 + k));
    }
  });
});

describe('a streamed row', () => {
  it('is the row GET /api/events shows, field for field, whatever its payload holds', async () => {
    const [{ s: start } = { s: 0 }] = await db.sql<{ s: number }[]>`select max(seq)::int as s from dispatch.events`;
    // Lines as a worker may print them: escapes, line and paragraph separators, astral characters,
    // numbers JavaScript cannot hold exactly, deep nesting, and a line that is not JSON at all.
    const lines = [
      JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: 'a "quote", a \\ backslash,\nnew line, \t tab, \u2028 \u2029 é 😀 \u0001' }] } }),
      '{"type":"stream_event","n":12345678901234567890,"f":1.50,"e":1e3,"neg":-0,"deep":{"a":[1,[2,[3,{"b":null}]]]}}',
      'not json at all, </script> <b>',
    ];
    const w = new JournalWriter(db.sql, { projectId, sessionId }, { firstLineNo: 100_000 });
    for (const l of lines) w.push(Buffer.from(l));
    await w.flush();
    await db.sql`insert into dispatch.events (project_id, event_type, payload, thread_ref) values (${projectId}, 'project.created', '{"name":"ünï"}', 'ref "x"')`;
    const rows = await db.sql<EventRow[]>`select ${db.sql.unsafe(EVENT_COLUMNS)} from dispatch.events where seq > ${start} order by seq`;
    expect(rows.length).toBe(4);

    for (const live of [false, true]) {
      const c = collector();
      // Catch-up pages the database (after `start`), a live subscriber gets the fetched rows.
      const unsubscribe = hub.subscribe(live ? rows.at(-2)!.seq : start, {}, c.sub);
      await waitFor(() => c.got.at(-1)?.seq, (s) => s === rows.at(-1)!.seq, { what: 'the rows' });
      unsubscribe();
      const sent = c.got.map((e) => {
        const text = new TextDecoder().decode(e.frame);
        expect(text).toMatch(new RegExp(`^id: ${e.seq}\ndata: [^\n]+\n\n$`)); // one data line: no raw new line
        return JSON.parse(text.slice(text.indexOf('data: ') + 6)) as unknown;
      });
      expect(sent).toEqual(rows.slice(live ? -1 : 0).map((r) => JSON.parse(JSON.stringify(r))));
    }
  });
});
