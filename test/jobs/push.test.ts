// Web Push against a loopback push service: a stall and a completion each deliver exactly one
// encrypted notification naming the task; an expired subscription (410) is removed.
import { beforeAll, describe, expect, it } from 'vitest';
import { startPushService, type PushService } from '../helpers/push-service.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

let loop: Loop;
let app: TestApp;
let push: PushService;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [] });
  app = await startTestApp({}, loop.db);
  push = await startPushService();
});

async function subscribe(statuses?: string[]) {
  const key = ((await (await app.call('GET', '/api/push/key')).json()) as { public_key: string }).public_key;
  const sub = await push.subscribe(key);
  const res = await app.call('POST', '/api/push/subscriptions', { subscription: { endpoint: sub.endpoint, keys: sub.keys }, statuses, device: 'test phone' });
  expect(res.status).toBe(201);
  return { sub, id: ((await res.json()) as { id: string }).id };
}

describe('push notifications', () => {
  it('a stall and a completion each deliver exactly one encrypted notification with the task id', async () => {
    const { sub } = await subscribe();
    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('push') as id`;
    // A task that never reaches a runner's worker: statuses are set as the supervisor would.
    const [t] = await loop.db.sql<{ id: string }[]>`
      insert into dispatch.tasks (project_id, brief) values (${p!.id}, 'Translate the docs') returning id`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'running', 'started')`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'stalled', 'no output for 120 s')`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'running', 'output resumed')`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'success', 'handoff validated')`;
    const messages = await waitFor(() => push.messages(sub.clientHash), (m) => m.length >= 2, { timeout: 20_000, what: 'two pushes' });
    const parsed = messages.map((m) => JSON.parse(m as string) as { task_id: string; status: string; title: string; url: string });
    expect(parsed.map((m) => [m.task_id, m.status, m.title])).toEqual([
      [t!.id, 'stalled', 'Task stalled'],
      [t!.id, 'success', 'Task finished'],
    ]);
    expect(parsed[1]!.url).toBe(`/#/task/${t!.id}`);
    // Nothing more arrives: one push per moment, each recorded once; running transitions notify nobody.
    const deliveries = await waitFor(
      async () => (await loop.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.push_deliveries`)[0]!.n,
      (n) => n >= 2,
      { what: 'both deliveries to be recorded' },
    );
    expect(deliveries).toBe(2);
    await waitFor(
      async () => (await loop.db.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'push_notify'`)[0]!.n,
      (n) => n === 0,
      { what: 'the push jobs to finish' },
    );
    expect(await push.messages(sub.clientHash)).toHaveLength(2);
  });

  it('honours a device\'s preferences', async () => {
    const { sub } = await subscribe(['failed']);
    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('push prefs') as id`;
    const [t] = await loop.db.sql<{ id: string }[]>`insert into dispatch.tasks (project_id, brief) values (${p!.id}, 'x') returning id`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'stalled', 'silent')`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'failed', 'boom')`;
    await waitFor(() => push.messages(sub.clientHash), (m) => m.length >= 1, { timeout: 20_000, what: 'the failure push' });
    // The stalled moment was not wanted: once every push job has run, still only the failure arrived.
    await waitFor(
      async () => (await loop.db.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'push_notify'`)[0]!.n,
      (n) => n === 0,
      { what: 'the push jobs to finish' },
    );
    const messages = await push.messages(sub.clientHash);
    expect(messages.map((m) => (JSON.parse(m as string) as { status: string }).status)).toEqual(['failed']);
  });

  it('removes a subscription the push service says expired (410)', async () => {
    const { sub, id } = await subscribe();
    await push.expire(sub.clientHash);
    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('push expired') as id`;
    const [t] = await loop.db.sql<{ id: string }[]>`insert into dispatch.tasks (project_id, brief) values (${p!.id}, 'y') returning id`;
    await loop.db.sql`select dispatch.set_task_status(${t!.id}, 'crashed', 'killed')`;
    await waitFor(
      () => loop.db.sql`select 1 from dispatch.push_subscriptions where id = ${id}`,
      (rows) => rows.length === 0,
      { timeout: 20_000, what: 'the expired subscription to be removed' },
    );
    const [removed] = await loop.db.sql<{ payload: { status: number } }[]>`
      select payload from dispatch.events where event_type = 'push.subscription_removed' and payload->>'subscription_id' = ${id}`;
    expect(removed!.payload.status).toBe(410);
  });
});
