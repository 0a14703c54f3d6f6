// The Trellis read surface: the live thread and its context when Trellis answers; a quick
// "unavailable" when it is down, slow or not configured — and /api/state never waits on it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrellis, type TrellisServer } from '../../../fixtures/trellis/server.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { freePort } from '../../helpers/process.ts';

let trellis: TrellisServer;
let t: TestApp;
beforeAll(async () => {
  trellis = await startTrellis(
    [
      { id: 1, title: 'petal-dispatch v1', recent_context: [{ role: 'user', text: 'ship the journal first' }] },
      { id: 2, title: 'garden notes' },
    ],
    1,
  );
  t = await startTestApp({ TRELLIS_URL: trellis.url });
});
afterAll(() => trellis.close());

describe('GET /api/trellis', () => {
  it('shows the live thread, its identity and recent context', async () => {
    trellis.set({ mode: 'ok' });
    const body = await (await t.call('GET', '/api/trellis')).json();
    expect(body).toEqual({
      available: true,
      live_thread: { id: 1, title: 'petal-dispatch v1' },
      threads: [{ id: 1, title: 'petal-dispatch v1' }, { id: 2, title: 'garden notes' }],
      recent_context: [{ role: 'user', text: 'ship the journal first' }],
    });
  });

  it('says unavailable, timed out at its 1 s limit, when Trellis hangs, and /api/state still answers', async () => {
    trellis.set({ mode: 'slow' });
    // The reason proves the limit cut the call (speed itself is the bench's business, not a test's).
    const [trellisRes, stateRes] = await Promise.all([t.call('GET', '/api/trellis'), t.call('GET', '/api/state')]);
    const body = (await trellisRes.json()) as { available: boolean; reason: string };
    expect(body).toEqual({ available: false, reason: 'timed out after 1000 ms' });
    expect(stateRes.status).toBe(200);
  });

  it('says why when Trellis fails or is not there', async () => {
    trellis.set({ mode: 'error' });
    expect(await (await t.call('GET', '/api/trellis')).json()).toEqual({ available: false, reason: 'HTTP 500 from /threads/live' });
    const down = await startTestApp({ TRELLIS_URL: `http://127.0.0.1:${await freePort()}` });
    expect(await (await down.call('GET', '/api/trellis')).json()).toEqual({ available: false, reason: 'unreachable (ECONNREFUSED)' });
    const none = await startTestApp();
    expect(await (await none.call('GET', '/api/trellis')).json()).toEqual({ available: false, reason: 'not configured (set TRELLIS_URL)' });
  });
});
