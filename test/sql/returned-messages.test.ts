// A failed orchestrator turn gives its claimed user messages back, straight against Postgres: pending
// again with a user_message.returned row each, claimed by the next turn exactly once, and a message
// that three turns failed on stops waking the orchestrator by itself but stays pending.
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.ts';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});

async function project(name: string): Promise<string> {
  const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project(${name}) as id`;
  return p!.id;
}
async function post(projectId: string, text: string): Promise<string> {
  const id = randomUUID();
  await db.sql`select * from dispatch.post_user_message(${projectId}, ${text}, ${id})`;
  return id;
}
async function claim(projectId: string): Promise<{ session_id: string; messages: { message_id: string; failed_turns: number }[] } | null> {
  const [r] = await db.sql<{ input: never }[]>`select dispatch.claim_orchestrator_turn(${projectId}) as input`;
  return r!.input;
}
async function end(sessionId: string, status: string, reason: string) {
  await db.sql`select dispatch.session_exited(${sessionId}, ${status}, ${reason}, 1, null, true, false, 10, 3, ${'claude-' + sessionId})`;
}
const pending = async (projectId: string) =>
  (await db.sql<{ message_id: string; failed_turns: number }[]>`
    select message_id, failed_turns from dispatch.user_messages where project_id = ${projectId} and delivered_at is null order by seq`).map((r) => ({ ...r }));
const turnJobs = async (projectId: string) =>
  Number((await db.sql<{ n: string }[]>`select count(*) as n from graphile_worker.jobs where key = ${'orchestrator_turn:' + projectId}`)[0]!.n);

describe('a failed orchestrator turn', () => {
  it('gives its messages back as pending, journalled, and the next turn gets each once', async () => {
    const p = await project('returned');
    const a = await post(p, 'first');
    const b = await post(p, 'second');
    const turn1 = (await claim(p))!;
    expect(turn1.messages.map((m) => m.message_id)).toEqual([a, b]);
    expect(await pending(p)).toEqual([]);

    await end(turn1.session_id, 'failed', 'API Error: 400 scripted');
    expect(await pending(p)).toEqual([{ message_id: a, failed_turns: 1 }, { message_id: b, failed_turns: 1 }]);
    const returned = await db.sql<{ message_id: string; session_id: string; payload: Record<string, unknown> }[]>`
      select message_id, session_id, payload from dispatch.events where project_id = ${p} and event_type = 'user_message.returned' order by seq`;
    expect(returned.map((r) => r.message_id)).toEqual([a, b]);
    expect(returned[0]!.session_id).toBe(turn1.session_id);
    expect(returned[0]!.payload).toMatchObject({ session_id: turn1.session_id, failed_turns: 1, will_retry: true, reason: 'API Error: 400 scripted' });

    await db.sql`select dispatch.wake_if_waiting(${p})`;
    expect(await turnJobs(p)).toBe(1);
    const turn2 = (await claim(p))!;
    expect(turn2.messages.map((m) => [m.message_id, m.failed_turns])).toEqual([[a, 1], [b, 1]]);
    await end(turn2.session_id, 'success', 'done');
    expect(await pending(p)).toEqual([]);
    expect(await claim(p)).toBeNull(); // nothing is delivered a third time
    const [delivered] = await db.sql<{ n: number }[]>`
      select count(*)::int as n from dispatch.user_messages where project_id = ${p} and delivered_to = ${turn2.session_id}`;
    expect(delivered!.n).toBe(2);
  });

  it('a turn that ends clean gives nothing back; one that crashes or is cancelled does', async () => {
    const p = await project('crash and cancel');
    const a = await post(p, 'x');
    await end((await claim(p))!.session_id, 'success', 'ok');
    expect(await pending(p)).toEqual([]);
    const b = await post(p, 'y');
    await end((await claim(p))!.session_id, 'crashed', 'killed by SIGKILL');
    expect(await pending(p)).toEqual([{ message_id: b, failed_turns: 1 }]);
    await end((await claim(p))!.session_id, 'cancelled', 'SIGTERM');
    expect(await pending(p)).toEqual([{ message_id: b, failed_turns: 2 }]);
    expect(a).not.toBe(b);
  });

  it('after three failed turns a message stays pending but no longer wakes the orchestrator by itself', async () => {
    const p = await project('three strikes');
    const a = await post(p, 'poison');
    for (let i = 1; i <= 3; i++) {
      const t = (await claim(p))!;
      await end(t.session_id, 'failed', `try ${i}`);
    }
    expect(await pending(p)).toEqual([{ message_id: a, failed_turns: 3 }]);
    const [last] = await db.sql<{ payload: { will_retry: boolean } }[]>`
      select payload from dispatch.events where message_id = ${a} and event_type = 'user_message.returned' order by seq desc limit 1`;
    expect(last!.payload.will_retry).toBe(false);
    await db.sql`select graphile_worker.remove_job(${'orchestrator_turn:' + p})`;
    expect(await turnJobs(p)).toBe(0);
    const [w] = await db.sql<{ woke: boolean }[]>`select dispatch.wake_if_waiting(${p}) as woke`;
    expect(w!.woke).toBe(false);
    // A new message wakes it, and the held one rides along, once.
    const b = await post(p, 'fresh');
    expect(await turnJobs(p)).toBe(1);
    expect((await claim(p))!.messages.map((m) => m.message_id)).toEqual([a, b]);
  });

  it('the next turn resumes the last turn that succeeded, not the failed one', async () => {
    const p = await project('resume');
    await post(p, 'one');
    const good = (await claim(p))!;
    await end(good.session_id, 'success', 'ok');
    await post(p, 'two');
    const bad = (await claim(p))! as unknown as { session_id: string; resume: string | null };
    expect(bad.resume).toBe('claude-' + good.session_id);
    await end(bad.session_id, 'crashed', 'SIGKILL');
    const next = (await claim(p))! as unknown as { resume: string | null };
    expect(next.resume).toBe('claude-' + good.session_id);
  });
});
