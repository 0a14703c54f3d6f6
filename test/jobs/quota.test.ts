// Quota as one shared state, with the real CLI and the scripted model: while the model answers 429
// with a retry time, the first run's stream records "rate limited until T" for the whole account;
// the tasks queued meanwhile wait instead of hitting the limit, and at T all of them run by
// themselves.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import type { QuotaState } from '../../core/contracts/usage.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';

const handoff = { goal: 'Count', current_state: 'Counted', next_step: 'Nothing', ruled_out: [] };
const scenario: Scenario = {
  name: 'quota',
  description: 'the account is rate limited for 5 s from the first request; retry-after says 6 s',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0 }] },
    {
      match: 'Quota task',
      steps: [
        {
          error: { status: 429, type: 'rate_limit_error', message: "This request would exceed your account's rate limit. Please try again later.", retry_after: 6 },
          for_ms: 5000,
        },
        { text: 'Counted.', chunks: 1, delay_ms: 0 },
      ],
    },
  ],
};

let loop: Loop;
let app: TestApp;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario] });
  app = await startTestApp({}, loop.db);
});

const quota = async () => (await (await app.call('GET', '/api/quota')).json()) as QuotaState;

describe('quota', () => {
  it('three tasks queued while the model answers 429: one run hits the limit, the others wait for its reset and then all run', async () => {
    const project = await loop.project('quota');
    const first = await loop.submit(project, 'Quota task one.');
    const limited = await waitFor(quota, (q) => q.limited, { timeout: 30_000, what: 'the account to be rate limited' });
    expect(limited.reason).toBe('rate limited (429, attempt 1/1)');
    const until = Date.parse(limited.until!);

    const others = [await loop.submit(project, 'Quota task two.'), await loop.submit(project, 'Quota task three.')];
    for (const id of others) {
      const t = await waitFor(
        async () => (await loop.db.sql<{ status: string; status_reason: string | null }[]>`select status, status_reason from dispatch.tasks where id = ${id}`)[0]!,
        (x) => x.status_reason?.startsWith('waiting: rate limited until') ?? false,
        { what: `task ${id} to wait for the quota` },
      );
      expect(t).toEqual({ status: 'queued', status_reason: `waiting: rate limited until ${limited.until}` });
    }
    expect(await quota()).toMatchObject({ limited: true, until: limited.until, waiting_tasks: 2 });

    // Nobody else asked the model while it was limited; at T the waiting work started by itself.
    for (const id of [first, ...others]) await loop.waitTask(id, 'success', 60_000);
    const retries = await loop.db.sql<{ task_id: string }[]>`select task_id from dispatch.events where event_type = 'claude.api_retry'`;
    expect(retries.map((r) => r.task_id)).toEqual([first]);
    for (const id of others) {
      const ev = await eventsOf(loop.db, id);
      const [spawned] = await loop.db.sql<{ at: Date }[]>`
        select created_at as at from dispatch.events where task_id = ${id} and event_type = 'session.spawned'`;
      expect(spawned!.at.getTime()).toBeGreaterThanOrEqual(until);
      expect(ev.filter((e) => e.event_type === 'session.spawned')).toHaveLength(2); // worker and extractor, one attempt
    }
    const [limitedEv] = await loop.db.sql<{ payload: { until: string; reason: string } }[]>`
      select payload from dispatch.events where event_type = 'quota.limited' order by seq limit 1`;
    expect(limitedEv!.payload).toMatchObject({ until: limited.until, reason: 'rate limited (429, attempt 1/1)' });
    expect(await quota()).toMatchObject({ limited: false, waiting_tasks: 0 });
  });
});
