// Bad input at every route: malformed JSON, wrong types, missing fields, oversized bodies, wrong
// content types and unknown ids. Never a 5xx; every error in the documented shape.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';

let t: TestApp;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  projectId = ((await (await t.call('POST', '/api/projects', { name: 'bad input' })).json()) as { id: string }).id;
});

async function expectError(res: Response, status: number, code?: string) {
  expect(res.status).toBe(status);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toEqual(code ?? expect.any(String));
  expect(body.error.message).toEqual(expect.any(String));
  expect(JSON.stringify(body)).not.toMatch(/select |insert |dispatch\.|\bat .*\.ts:\d+/i);
}

const posts: [string, () => Record<string, unknown>][] = [
  ['/api/projects', () => ({ name: 'p' })],
  ['/api/tasks', () => ({ project_id: projectId, brief: 'b' })],
  ['/api/messages', () => ({ project_id: projectId, text: 't', message_id: randomUUID() })],
  ['/api/focus', () => ({ thread_id: 1 })],
];

/** The fields each route requires (an empty object must name exactly these). */
const required: Record<string, string[]> = {
  '/api/projects': ['name'],
  '/api/tasks': ['project_id', 'brief'],
  '/api/messages': ['project_id', 'text', 'message_id'],
  '/api/focus': ['thread_id', 'task_id'], // one of the two: the object as a whole is named ('')
};

describe('every POST route', () => {
  for (const [path, valid] of posts) {
    it(`${path}: malformed JSON → 400`, async () => expectError(await t.call('POST', path, '{"name": '), 400));
    it(`${path}: not JSON content type → 415`, async () =>
      expectError(
        await t.app.request(path, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(valid()) }),
        415,
        'unsupported_media_type',
      ));
    it(`${path}: oversized body → 413`, async () =>
      expectError(await t.call('POST', path, { ...valid(), padding: 'x'.repeat(300 * 1024) }), 413, 'payload_too_large'));
    it(`${path}: an empty object → 400 naming the fields`, async () => {
      const res = await t.call('POST', path, {});
      const body = (await res.clone().json()) as { error: { message: string; details?: { path: string; message: string }[] } };
      await expectError(res, 400, 'invalid_input');
      // Every field the route requires is named, in details and in the message.
      const named = (body.error.details ?? []).map((d) => d.path);
      expect(named.sort()).toEqual(path === '/api/focus' ? [''] : [...required[path]!].sort());
      for (const field of required[path]!) expect(body.error.message).toContain(field);
    });
    it(`${path}: wrong types → 400`, async () => {
      const wrong = Object.fromEntries(Object.keys(valid()).map((k) => [k, k === 'thread_id' ? { seven: 7 } : 12345]));
      await expectError(await t.call('POST', path, wrong), 400, 'invalid_input');
    });
    it(`${path}: an array or a scalar → 400`, async () => {
      await expectError(await t.call('POST', path, [valid()]), 400);
      await expectError(await t.call('POST', path, 'null'), 400);
    });
  }
});

describe('queries and ids', () => {
  const cases: [string, string, number][] = [
    ['GET', '/api/events?after=-1', 400],
    ['GET', '/api/events?limit=100000', 400],
    ['GET', '/api/events?task=not-a-uuid', 400],
    ['GET', '/api/handoffs', 400],
    ['GET', '/api/handoffs?scope=123', 400],
    ['GET', `/api/handoffs?scope=${randomUUID()}&order=sideways`, 400],
    ['GET', '/api/tasks/not-a-uuid', 400],
    ['POST', '/api/tasks/not-a-uuid/cancel', 400],
    ['GET', '/api/projects/xyz/state', 400],
    ['GET', `/api/tasks/${randomUUID()}`, 404],
    ['GET', '/api/nothing-here', 404],
    ['DELETE', '/api/tasks', 404],
  ];
  for (const [m, p, status] of cases) {
    it(`${m} ${p} → ${status}`, async () => expectError(await t.call(m, p), status));
  }

  it('a bad Last-Event-ID on the stream → 400', async () => {
    await expectError(await t.app.request('/api/stream', { headers: { 'last-event-id': 'abc' } }), 400, 'invalid_input');
  });

  it('a text that Postgres cannot store (NUL) → 400, not 500', async () => {
    await expectError(await t.call('POST', '/api/tasks', { project_id: projectId, brief: 'a\u0000b' }), 400);
    await expectError(await t.call('POST', '/api/messages', { project_id: projectId, text: 'a\u0000b', message_id: randomUUID() }), 400);
  });
});

// A real outage (Postgres stopped) is in test/faults/postgres-restart.test.ts and postgres-restart-api.test.ts.
describe('a closed connection pool', () => {
  it('answers a write 503 database_unavailable with Retry-After, not a 500; a read is tried again on a fresh connection', async () => {
    const lost = await startTestApp();
    await lost.hub.stop();
    await lost.db.sql.end();
    const res = await lost.call('POST', '/api/projects', { name: 'no database' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(await res.json()).toEqual({ error: { code: 'database_unavailable', message: 'the database connection was lost; retry shortly' } });
    expect((await lost.call('GET', '/api/state')).status).toBe(200);
  });
});
