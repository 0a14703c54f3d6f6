// The return policy as the README states it: each status's action and attempt limit (rate_limited
// backs off 300 s for up to 3 attempts, crashed is retried once, then a person is asked), and a
// back-off that ends in success with the real CLI once the model stops refusing.
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop } from '../helpers/loop.ts';

interface Decision {
  action: string;
  attempt: number;
  next_attempt?: number;
  run_at?: string;
  reason?: string;
}

describe('the attempt limits', () => {
  it.each([
    ['crashed', 2, 'retry_same'],
    ['rate_limited', 3, 'back_off'],
  ] as const)('%s: %s attempts, then a person is asked (escalate_user)', async (status, limit, action) => {
    const db = await createTestDb();
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project(${`limits ${status}`}) as id`;
    const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'end badly') as id`;
    const decisions: string[] = [];
    for (let attempt = 1; attempt <= limit; attempt++) {
      await db.sql`select dispatch.set_task_status(${t!.id}, 'running', 'started')`;
      await db.sql`select dispatch.set_task_status(${t!.id}, ${status}, 'ended badly')`;
      const [r] = await db.sql<{ a: string }[]>`select dispatch.apply_return_policy(${t!.id}) as a`;
      decisions.push(r!.a);
    }
    expect(decisions).toEqual([...Array(limit - 1).fill(action), 'escalate_user']);
    const [task] = await db.sql<{ attempt: number; status: string }[]>`select attempt, status from dispatch.tasks where id = ${t!.id}`;
    expect(task).toEqual({ attempt: limit, status });
    const logged = (await eventsOf(db, t!.id)).filter((e) => e.event_type === 'policy.decision').map((e) => e.payload as unknown as Decision);
    expect(logged.at(-1)).toMatchObject({ action: 'escalate_user', attempt: limit, reason: `${limit} attempts used` });
  });
});

const handoff = { goal: 'Back off', current_state: 'Done on the second attempt', next_step: 'Nothing', ruled_out: [] };
const refusing: Scenario = {
  name: 'policy',
  description: '',
  conversations: [
    { match: 'handoff extractor', steps: [{ text: '```json\n' + JSON.stringify(handoff) + '\n```', chunks: 1, delay_ms: 0 }] },
    { match: 'BACKOFF', steps: [{ error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit', retry_after: 0 } }] },
  ],
};
const answering: Scenario = {
  ...refusing,
  conversations: [refusing.conversations[0]!, { match: 'BACKOFF', steps: [{ text: 'BACKOFF done.', chunks: 1, delay_ms: 0 }] }],
};

describe('a back-off', () => {
  it('waits 300 s, then the same brief runs again and succeeds with its handoff', async () => {
    const loop = await startLoop({ scenarios: [refusing] });
    const project = await loop.project('back off');
    const taskId = await loop.submit(project, 'BACKOFF: answer once the limit lifts.');
    const events = await waitFor(() => eventsOf(loop.db, taskId), (ev) => ev.some((e) => e.event_type === 'policy.decision'), { what: 'the policy decision' });
    const decision = events.find((e) => e.event_type === 'policy.decision')!;
    expect(decision.payload).toMatchObject({ status: 'rate_limited', action: 'back_off', attempt: 1, next_attempt: 2 });
    // The next attempt is scheduled 300 s after the decision (both times are the database's).
    const [job] = await loop.db.sql<{ id: string; delay: number }[]>`
      select j.id::text, extract(epoch from j.run_at - e.created_at)::float as delay
        from graphile_worker.jobs j, dispatch.events e
       where j.key = ${`spawn_worker:${taskId}`} and e.event_id = ${decision.event_id}`;
    expect(job!.delay).toBeGreaterThan(299);
    expect(job!.delay).toBeLessThan(301);

    // The limit lifts; instead of waiting 300 s the test moves the clock's two readers to now: the
    // job's run_at and the account's quota hold (dispatch.quota, which a rate limit also sets).
    loop.model.use(answering);
    await loop.db.sql`update dispatch.quota set limited_until = now() where id = 1`;
    await loop.db.sql`select graphile_worker.reschedule_jobs(array[${job!.id}::bigint], run_at := now())`;
    const t = await loop.waitTask(taskId, 'success', 60_000);
    expect(t).toMatchObject({ attempt: 2, status_reason: 'handoff validated' });
    const [h] = await loop.db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where task_id = ${taskId} and event_type = 'handoff'`;
    expect(h!.payload).toMatchObject({ goal: 'Back off' });
  });
});
