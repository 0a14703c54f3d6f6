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

const POSTS = ['/api/projects', '/api/tasks', '/api/messages', '/api/focus', '/api/push/subscriptions', '/api/tasks/00000000-0000-4000-8000-000000000000/cancel'];
const GETS = ['/api/events', '/api/handoffs', '/api/tasks', '/api/stream'];

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
  it('arbitrary JSON bodies at every POST route: never a 5xx, always the error shape', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), fc.jsonValue(), async (path, body) => {
        await check(await t.call('POST', path, JSON.stringify(body)));
      }),
      { numRuns: 300 },
    );
  });

  it('arbitrary bytes and content types: never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...POSTS), fc.string({ maxLength: 300 }), fc.constantFrom('application/json', 'text/plain', 'application/x-www-form-urlencoded', ''), async (path, body, type) => {
        await check(await t.app.request(path, { method: 'POST', headers: type ? { 'content-type': type } : {}, body }));
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary query strings at every GET route: never a 5xx', async () => {
    const param = fc.tuple(fc.constantFrom('after', 'limit', 'project', 'task', 'session', 'scope', 'order', 'x'), fc.string({ maxLength: 40 }));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...GETS), fc.array(param, { maxLength: 4 }), async (path, params) => {
        const q = new URLSearchParams(params).toString();
        const res = await t.call('GET', `${path}?${q}`);
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
  it('arbitrary bytes: every line is journalled once, in order, whatever it holds', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 200 }), { minLength: 1, maxLength: 30 }), async (chunks) => {
        const ref = await makeSession(t.db.sql, `fuzz ${Math.random()}`);
        const writer = new JournalWriter(t.db.sql, ref);
        let lines = 0;
        const splitter = new LineSplitter((l) => {
          lines++;
          writer.push(l);
        });
        for (const c of chunks) splitter.push(Buffer.from(c));
        splitter.end();
        await writer.flush();
        const rows = await sessionRows(t.db.sql, ref.sessionId);
        expect(rows.map((r) => r.line_no)).toEqual([...Array(lines).keys()]);
      }),
      { numRuns: 60 },
    );
  });

  it('a 10 MiB line and deep nesting are kept', async () => {
    const ref = await makeSession(t.db.sql, 'huge lines');
    const writer = new JournalWriter(t.db.sql, ref);
    const big = `{"type":"assistant","text":"${'z'.repeat(10 * 1024 * 1024)}"}`;
    writer.push(Buffer.from(big));
    writer.push(Buffer.from('['.repeat(100_000)));
    await writer.flush();
    const rows = await sessionRows(t.db.sql, ref.sessionId);
    expect(rows.map((r) => r.event_type)).toEqual(['stdout.oversized', 'stdout.truncated_json']);
    expect((rows[0]!.payload.text as string).length).toBe(big.length);
  });
});
