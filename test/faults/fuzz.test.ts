// Bad input everywhere, generated: arbitrary bodies and queries at every route never give a 5xx and
// always answer in the error shape; arbitrary stdout bytes never crash the writer or lose a line.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../jobs/journal-writer.ts';
import { LineSplitter } from '../../jobs/session/line-splitter.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { makeSession, sessionRows } from '../helpers/journal.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

// Every route the API documents (its OpenAPI document), plus /mcp and /healthz, read at start-up so a
// new route is fuzzed without anyone listing it here.
let POSTS: string[] = [];
let GETS: string[] = [];
let DELETES: string[] = [];
const ANY_ID = '00000000-0000-4000-8000-000000000000';

beforeAll(async () => {
  const doc = (await (await t.call('GET', '/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
  const of = (method: string) =>
    Object.entries(doc.paths)
      .filter(([, ops]) => method in ops)
      .map(([path]) => path);
  POSTS = [...of('post'), '/mcp'];
  GETS = [...of('get'), '/healthz'];
  DELETES = of('delete');
});

/** A path template with each `{param}` filled (a valid-looking id, or the fuzzed text). */
function fill(template: string, param: string | null): string {
  return template.replace(/\{[^}]+\}/g, param === null ? ANY_ID : encodeURIComponent(param));
}

async function check(res: Response): Promise<void> {
  expect(res.status).toBeLessThan(500);
  if (res.status >= 400) {
    const body = (await res.json()) as { error?: { code?: unknown; message?: unknown } };
    expect(typeof body.error?.code).toBe('string');
    expect(typeof body.error?.message).toBe('string');
  } else {
    await res.body?.cancel();
  }
}

describe('fuzzed API input', () => {
  it('covers every documented route', () => {
    // The document lists the routes the README's API table promises; none may escape the fuzzing.
    expect(GETS.length).toBeGreaterThanOrEqual(10);
    expect(POSTS).toContain('/mcp');
    expect(POSTS.length).toBeGreaterThanOrEqual(7);
  });

  it('arbitrary JSON bodies at every POST and DELETE route (ids fuzzed too): never a 5xx, always the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS, ...DELETES.map((d) => `DELETE ${d}`)), fc.option(fc.string({ maxLength: 40 })), fc.jsonValue(), async (route, id, body) => {
        const [method, template] = route.startsWith('DELETE ') ? ['DELETE', route.slice(7)] : ['POST', route];
        await check(await t.call(method, fill(template, id), JSON.stringify(body)));
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary bytes and content types: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS.map((p) => fill(p, null))), fc.string({ maxLength: 300 }), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''), async (path, body, type) => {
        await check(await t.app.request(path, { method: 'POST', headers: type ? { 'content-type': type } : {}, body }));
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary query strings at every GET route: never a 5xx', async () => {
    const param = fc.tuple(fc.constantFrom('after', 'limit', 'project', 'task', 'session', 'scope', 'order', 'x'), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GETS), fc.option(fc.string({ maxLength: 40 })), fc.array(param, { maxLength: 4 }), async (template, id, params) => {
        const q = new URLSearchParams(params).toString();
        const res = await t.call('GET', `${fill(template, id)}?${q}`);
        if (res.headers.get('content-type')?.startsWith('text/event-stream')) {
          await res.body?.cancel();
          return;
        }
        await check(res);
      }),
      { numRuns: 200 },
    );
  });
});

describe('fuzzed stdout', () => {
  it('arbitrary bytes: every line is journalled once, in order, with its content', async () => {
    // Chunks of arbitrary bytes, of JSON objects and of newlines, cut anywhere.
    const chunk = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.jsonValue().map((v) => new TextEncoder().encode(`${JSON.stringify({ type: 'assistant', v })}\n`)),
      fc.constantFrom(new Uint8Array([0x0a]), new Uint8Array([0x0d, 0x0a]), new Uint8Array([0x7b, 0x0a])),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(chunk, { minLength: 1, maxLength: 30 }), async (chunks) => {
        const ref = await makeSession(t.db.sql, `fuzz ${Math.random()}`);
        const writer = new JournalWriter(t.db.sql, ref);
        const splitter = new LineSplitter((l) => writer.push(l));
        for (const c of chunks) splitter.push(Buffer.from(c));
        splitter.end();
        await writer.flush();
        // The oracle: the bytes split on \n by hand (a last piece without \n is a line too).
        const expected = linesOf(Buffer.concat(chunks.map((c) => Buffer.from(c))));
        const rows = await sessionRows(t.db.sql, ref.sessionId);
        expect(rows.map((r) => r.line_no)).toEqual([...expected.keys()]);
        rows.forEach((row, i) => expect(contentOf(row), `line ${i} (${row.event_type})`).toEqual(expectedContent(expected[i]!, row.event_type)));
      }),
      { numRuns: 60 },
    );
  });

  it('a 10 MiB line and a line nested 100 000 deep are kept', async () => {
    const ref = await makeSession(t.db.sql, 'huge lines');
    const writer = new JournalWriter(t.db.sql, ref);
    const big = `{"type":"assistant","text":"${'z'.repeat(10 * 1024 * 1024)}"}`;
    const deep = `{"type":"assistant","deep":${'['.repeat(100_000)}${']'.repeat(100_000)}}`; // valid JSON
    writer.push(Buffer.from(big));
    writer.push(Buffer.from(deep));
    await writer.flush();
    const rows = await sessionRows(t.db.sql, ref.sessionId);
    expect(rows.map((r) => r.event_type)).toEqual(['stdout.oversized', 'stdout.rejected']);
    expect(rows[0]!.payload.text).toBe(big);
    // Deeper than Postgres' jsonb can hold: kept as its text, with the reason.
    expect(rows[1]!.payload).toEqual({ text: deep, reason: expect.stringMatching(/stack depth/) });
  });
});

function linesOf(all: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = 0; i < all.length; i++) {
    if (all[i] === 0x0a) {
      out.push(all.subarray(start, i));
      start = i + 1;
    }
  }
  if (start < all.length) out.push(all.subarray(start));
  return out;
}

/** What a row keeps of its line: the bytes (binary), the text, or the parsed JSON value. */
function contentOf(row: { event_type: string; payload: Record<string, unknown> }): unknown {
  const p = row.payload;
  if (row.event_type === 'stdout.binary') return Buffer.from(p.base64 as string, 'base64');
  if (row.event_type.startsWith('stdout.')) return p.text;
  if (row.event_type === 'claude.unknown') return p.value;
  return p;
}

function expectedContent(line: Buffer, eventType: string): unknown {
  if (eventType === 'stdout.binary') return line;
  const text = line.toString('utf8').replace(/\r$/, '');
  if (eventType.startsWith('stdout.')) return text;
  return JSON.parse(text);
}

