// A stalled extractor and a stalled orchestrator turn are pushed like a stalled worker, with the real
// CLI held silent by the scripted model: one push per stall, not again when another runner adopts
// the silent session, and the stall ends (session.resumed) when the model answers after the restart.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PushMessage } from '../../core/push.ts';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';
import { startPushService, type PushService } from '../helpers/push-service.ts';

const handoff = { goal: 'Summarise the notes', current_state: 'Summarised', ruled_out: [] };
const scenario: Scenario = {
  name: 'stall-push',
  description: '',
  conversations: [
    // Held for good: the person cancels this one.
    { match: 'CANCEL-STALL-DONE', steps: [{ text: JSON.stringify(handoff), chunks: 1, delay_ms: 0, gate: 'never' }] },
    { match: 'CANCEL-STALL', steps: [{ text: 'CANCEL-STALL-DONE: nothing to say.', chunks: 1, delay_ms: 0 }] },
    // Held until the test releases it: the extractor (and below, the turn) is silent meanwhile.
    { match: 'handoff extractor', steps: [{ text: JSON.stringify(handoff), chunks: 1, delay_ms: 0, gate: 'extractor' }] },
    { match: 'TURN-STALL', steps: [{ text: 'The week is planned.', chunks: 1, delay_ms: 0, gate: 'turn' }] },
    { match: 'EXTRACT-STALL', steps: [{ text: 'The notes say three things.', chunks: 1, delay_ms: 0 }] },
  ],
};

let loop: Loop;
let push: PushService;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], env: { STALL_SECONDS: '1' }, log: !!process.env.PD_TEST_LOG });
  push = await startPushService();
});

async function subscribe(): Promise<string> {
  const key = ((await (await fetch(`${loop.url}/api/push/key`)).json()) as { public_key: string }).public_key;
  const sub = await push.subscribe(key);
  const res = await fetch(`${loop.url}/api/push/subscriptions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ subscription: { endpoint: sub.endpoint, keys: sub.keys }, device: 'test phone' }),
  });
  expect(res.status).toBe(201);
  return sub.clientHash;
}

const pushedFor = async (device: string, sessionId: string) =>
  ((await push.messages(device)) as string[]).map((m) => JSON.parse(m) as PushMessage).filter((m) => m.tag === `session:${sessionId}`);

const eventsOfSession = (sessionId: string) =>
  loop.db.sql<{ seq: number; event_type: string }[]>`select seq, event_type from dispatch.events where session_id = ${sessionId} order by seq`;

/** The session once it is stalled with nothing printed after its stall (it waits on the held model). */
async function stalledSession(where: { task: string; role: 'extractor' } | { project: string; role: 'orchestrator' }): Promise<string> {
  const row = await waitFor(
    async () =>
      (
        'task' in where
          ? await loop.db.sql<{ id: string; stalled: boolean }[]>`
              select id, stalled from dispatch.sessions where task_id = ${where.task} and role = 'extractor'`
          : await loop.db.sql<{ id: string; stalled: boolean }[]>`
              select id, stalled from dispatch.sessions where project_id = ${where.project} and role = 'orchestrator'`
      )[0],
    (s) => !!s?.stalled,
    { timeout: 30_000, what: `the ${where.role} to stall` },
  );
  await waitFor(() => eventsOfSession(row!.id), (ev) => ev.at(-1)?.event_type === 'session.stalled', { what: `the ${where.role}'s stall to be its last event` });
  return row!.id;
}

const pushJobsDone = () =>
  waitFor(
    async () => (await loop.db.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where task_identifier = 'push_notify'`)[0]!.n,
    (n) => n === 0,
    { timeout: 20_000, what: 'the push jobs to finish' },
  );

describe('a stalled extractor and a stalled orchestrator turn', () => {
  it('each send one push per stall, not again after a runner restart, and resume when the model answers', async () => {
    const device = await subscribe();

    // The extractor: its worker answers, then the model holds the extractor's request.
    const notes = await loop.project('stalled extractor');
    const task = await loop.submit(notes, 'EXTRACT-STALL: summarise the notes.');
    await loop.model.atGate('extractor');
    const extractor = await stalledSession({ task, role: 'extractor' });

    // The orchestrator: a message starts a turn whose model request is held.
    const planning = await loop.project('stalled turn');
    const res = await fetch(`${loop.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: planning, text: 'TURN-STALL: plan the week.', message_id: randomUUID() }),
    });
    expect(res.status).toBe(201);
    await loop.model.atGate('turn');
    const turn = await stalledSession({ project: planning, role: 'orchestrator' });

    // One push per journalled stall (a slow CLI start may stall and resume once before the held
    // request: that is a stall too), each naming what stalled and where a tap leads.
    const stalls = async (id: string) => (await eventsOfSession(id)).filter((e) => e.event_type === 'session.stalled').length;
    const before = { extractor: await stalls(extractor), turn: await stalls(turn) };
    await waitFor(() => pushedFor(device, extractor), (m) => m.length >= before.extractor, { timeout: 20_000, what: 'the extractor stall push' });
    await waitFor(() => pushedFor(device, turn), (m) => m.length >= before.turn, { timeout: 20_000, what: 'the turn stall push' });
    await pushJobsDone();
    const extractorPushes = await pushedFor(device, extractor);
    expect(extractorPushes).toHaveLength(before.extractor);
    expect(extractorPushes.at(-1)).toMatchObject({ title: 'Extractor stalled', status: 'stalled', task_id: task, url: `/#/task/${task}` });
    expect(extractorPushes.at(-1)!.body).toMatch(/^No output for \d+ s\nTask: EXTRACT-STALL: summarise the notes\.\nProject: stalled extractor$/);
    const turnPushes = await pushedFor(device, turn);
    expect(turnPushes).toHaveLength(before.turn);
    expect(turnPushes.at(-1)).toMatchObject({ title: 'Orchestrator turn stalled', status: 'stalled', task_id: null, url: '/#/working-set' });
    expect(turnPushes.at(-1)!.body).toMatch(/^No output for \d+ s\nProject: stalled turn$/);

    // A restart: the new runner adopts both silent sessions. The turn's model answers as soon as it
    // is adopted, so its output resumes within the threshold: the resume is journalled (the new
    // runner knew the session was stalled, and did not count the replayed spool as output).
    await loop.restart();
    const adopted = (id: string) =>
      waitFor(
        async () => (await loop.db.sql<{ past: boolean }[]>`
          select s.heartbeat_at > a.created_at + interval '2 seconds' as past
            from dispatch.sessions s join dispatch.events a on a.session_id = s.id and a.event_type = 'session.adopted'
           where s.id = ${id} and s.runner_id = ${loop.runner.id}`)[0],
        (r) => r !== undefined,
        { timeout: 60_000, what: 'the new runner to adopt the session' },
      );
    await adopted(turn);
    loop.model.release('turn');
    // The extractor stays silent past the threshold under the new runner: still stalled, with no
    // second stall and no second push.
    await waitFor(() => adopted(extractor), (r) => !!r?.past, { timeout: 30_000, what: 'the adopted extractor to be silent past the threshold' });
    expect(await stalls(extractor)).toBe(before.extractor);
    const [kept] = await loop.db.sql<{ stalled: boolean }[]>`select stalled from dispatch.sessions where id = ${extractor}`;
    expect(kept!.stalled).toBe(true);
    await pushJobsDone();
    expect(await pushedFor(device, extractor)).toHaveLength(before.extractor);

    // The model answers: each adopted session resumes, then ends clean; no push for that.
    loop.model.release('extractor');
    await loop.waitTask(task, 'success', 60_000);
    const ended = await waitFor(
      () => loop.db.sql<{ id: string; status: string; stalled: boolean }[]>`
        select id, status, stalled from dispatch.sessions where id in (${extractor}, ${turn}) and ended_at is not null`,
      (rows) => rows.length === 2,
      { timeout: 60_000, what: 'both sessions to end' },
    );
    expect(ended.map((s) => [s.status, s.stalled])).toEqual([['success', false], ['success', false]]);
    for (const id of [extractor, turn]) {
      const ev = (await eventsOfSession(id)).map((e) => e.event_type);
      expect(ev.slice(ev.indexOf('session.adopted'))).toContain('session.resumed');
    }
    await pushJobsDone();
    expect(await pushedFor(device, extractor)).toHaveLength(before.extractor);
    expect(await stalls(turn)).toBe(before.turn);
    expect(await pushedFor(device, turn)).toHaveLength(before.turn);
  }, 180_000);

  it('a stalled extractor cancelled by the person ends, and its task is cancelled (not extraction_failed)', async () => {
    const project = await loop.project('cancelled extractor');
    const task = await loop.submit(project, 'CANCEL-STALL: say nothing.');
    await loop.model.atGate('never');
    const extractor = await stalledSession({ task, role: 'extractor' });
    await loop.db.sql`select dispatch.cancel_task(${task})`;
    const t = await loop.waitTask(task, 'cancelled', 60_000);
    expect(t.status_reason).toMatch(/SIGTERM|cancel/i);
    const [s] = await loop.db.sql<{ status: string; stalled: boolean; ended: boolean }[]>`
      select status, stalled, ended_at is not null as ended from dispatch.sessions where id = ${extractor}`;
    expect(s).toEqual({ status: 'cancelled', stalled: false, ended: true });
  }, 120_000);
});
