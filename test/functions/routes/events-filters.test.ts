// Reads a phone can afford: journal pages filtered by task, tier and type, paged backwards from the
// newest row; a live stream filtered the same way; JSON answers and the bundle compressed; the
// shell revalidated by ETag.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter, type SessionRef } from '../../../jobs/journal-writer.ts';
import { CLIENT_DIR } from '../../../functions/routes/client.ts';
import { listen, startTestApp, type TestApp } from '../../helpers/app.ts';
import { waitFor } from '../../helpers/db.ts';
import { fixtureStdout, makeSession } from '../../helpers/journal.ts';
import { connectSse } from '../../helpers/sse.ts';

interface Row {
  seq: number;
  event_type: string;
  tier: string;
  session_id: string | null;
  project_id: string | null;
}
interface Page {
  events: Row[];
  next_after: number;
  next_before?: number | null;
}

let t: TestApp;
let a: SessionRef;
let b: SessionRef;

const writers = new Map<SessionRef, JournalWriter>();
async function write(ref: SessionRef, lines: Buffer[]): Promise<void> {
  if (!writers.has(ref)) writers.set(ref, new JournalWriter(t.db.sql, ref, { maxBatch: 100 }));
  const w = writers.get(ref)!;
  for (const l of lines) w.push(l);
  await w.flush();
}

const lines = fixtureStdout('bash-tool').toString().split('\n').filter(Boolean).map((l) => Buffer.from(l));

beforeAll(async () => {
  t = await startTestApp({}, undefined, CLIENT_DIR);
  a = await makeSession(t.db.sql, 'filters a');
  b = await makeSession(t.db.sql, 'filters b');
  for (let i = 0; i < 20; i++) await write(i % 2 ? b : a, lines);
});

const page = async (q: string): Promise<Page> => {
  const res = await t.call('GET', `/api/events?${q}`);
  expect(res.status, q).toBe(200);
  return (await res.json()) as Page;
};

describe('GET /api/events, filtered and paged backwards', () => {
  it('before=SEQ answers the newest rows below it, in seq order, and next_before pages on to the first row', async () => {
    const all = (await page(`session=${a.sessionId}&limit=1000`)).events.map((e) => e.seq);
    expect(all.length).toBe(lines.length * 10);
    const got: number[] = [];
    let before: number | null | undefined = Number.MAX_SAFE_INTEGER;
    while (before) {
      const p = await page(`session=${a.sessionId}&before=${before}&limit=37`);
      const seqs = p.events.map((e) => e.seq);
      expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      got.unshift(...seqs);
      before = p.next_before;
    }
    expect(got).toEqual(all);
  });

  it('type takes a list and prefixes, not_type leaves types out, tier narrows', async () => {
    const only = await page(`project=${a.projectId}&type=claude.result,session.*&limit=1000`);
    expect(only.events.length).toBeGreaterThan(0);
    expect(new Set(only.events.map((e) => e.event_type))).toEqual(new Set(['claude.result']));
    const without = await page(`project=${a.projectId}&not_type=claude.*&limit=1000`);
    expect(without.events.every((e) => !e.event_type.startsWith('claude.'))).toBe(true);
    expect(without.events.map((e) => e.event_type)).toContain('project.created');
    const derived = await page(`tier=derived&limit=1000`);
    expect(derived.events.every((e) => e.tier === 'derived')).toBe(true);
    const raw = await page(`tier=raw&project=${b.projectId}&limit=1000`);
    expect(raw.events.length).toBe(lines.length * 10 + 1);
  });

  it('role keeps the rows of sessions in that role: an orchestrator\'s words paged back past the output of a worker around them', async () => {
    const worker = await makeSession(t.db.sql, 'filters roles');
    const [o] = await t.db.sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, role, status) values (${worker.projectId}, 'orchestrator', 'success') returning id`;
    const orchestrator: SessionRef = { projectId: worker.projectId, sessionId: o!.id };
    for (let i = 0; i < 6; i++) await write(i % 3 ? worker : orchestrator, lines);
    const words = (await page(`session=${o!.id}&type=claude.assistant&limit=1000`)).events.map((e) => e.seq);
    expect(words.length).toBeGreaterThan(0);
    const got: number[] = [];
    let before: number | null | undefined = Number.MAX_SAFE_INTEGER;
    while (before) {
      const p = await page(`project=${worker.projectId}&type=claude.assistant&role=orchestrator&before=${before}&limit=3`);
      expect(p.events.every((e) => e.session_id === o!.id)).toBe(true);
      got.unshift(...p.events.map((e) => e.seq));
      before = p.next_before;
    }
    expect(got).toEqual(words);
    // A list of roles; a role no session has keeps nothing.
    const both = await page(`project=${worker.projectId}&type=claude.assistant&role=worker,orchestrator&limit=1000`);
    expect(new Set(both.events.map((e) => e.session_id))).toEqual(new Set([worker.sessionId, o!.id]));
    expect((await page(`project=${worker.projectId}&role=reviewer&limit=1000`)).events).toEqual([]);
  });

  it('refuses a malformed filter with 400', async () => {
    for (const q of ['tier=cooked', 'type=DROP TABLE', 'before=0', 'type=a,,b', 'role=', 'role=Chief Orchestrator']) {
      const res = await t.call('GET', `/api/events?${q}`);
      expect(res.status, q).toBe(400);
    }
  });
});

describe('GET /api/stream, filtered', () => {
  it('a client subscribed to one project and not_type=claude.assistant receives only those rows, live and on resume', async () => {
    const server = await listen(t);
    const got: Row[] = [];
    const conn = await connectSse(`${server.url}/api/stream?project=${b.projectId}&not_type=claude.assistant&after=0`, (e) => got.push(JSON.parse(e.data) as Row));
    const expected = (await page(`project=${b.projectId}&not_type=claude.assistant&limit=1000`)).events.length;
    await waitFor(() => got.length, (n) => n >= expected, { what: 'the catch-up' });
    await write(a, lines);
    await write(b, lines);
    const more = lines.filter((l) => !l.toString().includes('"type":"assistant"')).length;
    await waitFor(() => got.length, (n) => n >= expected + more, { what: 'the live rows' });
    conn.abort();
    await conn.done;
    expect(got.every((r) => r.project_id === b.projectId && r.event_type !== 'claude.assistant')).toBe(true);
    const seqs = got.map((r) => r.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  });
});

describe('compression and caching', () => {
  it('a journal page is gzip-compressed when the browser asks, and the bytes are far fewer', async () => {
    const plain = await t.call('GET', `/api/events?project=${a.projectId}&limit=500`);
    const zipped = await t.call('GET', `/api/events?project=${a.projectId}&limit=500`, undefined, { 'accept-encoding': 'gzip, deflate, br' });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toMatch(/accept-encoding/i);
    const raw = Buffer.from(await plain.arrayBuffer()).length;
    const compressed = Buffer.from(await zipped.arrayBuffer()).length;
    expect(compressed).toBeLessThan(raw / 4);
  });

  it('the bundle is served from its pre-compressed copy (brotli), cached for good', async () => {
    // The entry chunk (the views that are not on the first screen are chunks of their own).
    const js = fs.readdirSync(path.join(CLIENT_DIR, 'assets')).find((f) => /^index-.*\.js$/.test(f))!;
    const res = await t.call('GET', `/assets/${js}`, undefined, { 'accept-encoding': 'gzip, br' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-encoding')).toBe('br');
    expect(res.headers.get('cache-control')).toContain('immutable');
    const bytes = Buffer.from(await res.arrayBuffer()).length;
    expect(bytes).toBeLessThan(fs.statSync(path.join(CLIENT_DIR, 'assets', js)).size / 2);
  });

  it('the shell carries an ETag and answers 304 to a browser that has it', async () => {
    const first = await t.call('GET', '/');
    const tag = first.headers.get('etag');
    expect(tag).toBeTruthy();
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await t.call('GET', '/', undefined, { 'if-none-match': tag! });
    expect(again.status).toBe(304);
    const view = await t.call('GET', '/some/client/view', undefined, { 'if-none-match': tag! });
    expect(view.status).toBe(304);
  });
});
