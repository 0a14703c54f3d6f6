// "Needs you" is one SQL definition (dispatch.needs_you): each item is there while an act of a
// person is what the work waits for and leaves by itself when that is no longer true; a loop that
// ended because its work is done is finished, not listed; a dismissed item stays out, journalled.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.ts';

let db: TestDb;

async function project(name: string): Promise<string> {
  const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project(${name}) as id`;
  return p!.id;
}
async function task(p: string, brief = 'brief') {
  const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p}, ${brief}) as id`;
  const [s] = await db.sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, task_id, role, attempt, started_at) values (${p}, ${t!.id}, 'worker', 1, now()) returning id`;
  return { task: t!.id, session: s!.id };
}
async function keys(p: string): Promise<string[]> {
  return (await db.sql<{ key: string }[]>`select key from dispatch.needs_you(${p})`).map((r) => r.key);
}
async function turnEnds(p: string, ws: Record<string, unknown>): Promise<string> {
  const [s] = await db.sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, role, attempt, started_at, ended_at, status) values (${p}, 'orchestrator', 1, now(), now(), 'success') returning id`;
  const [e] = await db.sql<{ id: string }[]>`select dispatch.journal_working_set(${p}, ${s!.id}, ${JSON.stringify({ session_id: s!.id, ...ws })}::text::jsonb) as id`;
  return e!.id;
}

beforeAll(async () => {
  db = await createTestDb();
});

describe('Needs you', () => {
  it('lists an open gate and drops it the moment the gate is decided', async () => {
    const p = await project('gate');
    const { task: t, session: s } = await task(p);
    const [g] = await db.sql<{ id: string }[]>`
      select (dispatch.open_gate(${p}, ${t}, ${s}, 'tool', 'destructive', null, 'Bash', '{"command":"rm -rf build"}'::jsonb, 'tu1', 'deletes files')).id`;
    const [item] = await db.sql<{ kind: string; title: string; detail: string }[]>`select kind, title, detail from dispatch.needs_you(${p})`;
    expect(item).toEqual({ kind: 'gate', title: 'approve Bash?', detail: 'rm -rf build — deletes files' });
    await db.sql`select dispatch.decide_gate(${g!.id}, 'approve')`;
    expect(await keys(p)).toEqual([]);
  });

  it('lists a task that ended waiting for a person, and drops it when it is retried', async () => {
    const p = await project('extract');
    const { task: t } = await task(p, 'summarise the logs');
    await db.sql`select dispatch.set_task_status(${t}, 'extraction_failed', 'the extractor answered no JSON')`;
    const [item] = await db.sql<{ key: string; title: string; detail: string }[]>`select key, title, detail from dispatch.needs_you(${p})`;
    expect(item).toEqual({ key: `task:${t}:1`, title: 'extraction failed: summarise the logs', detail: 'the extractor answered no JSON' });
    await db.sql`select dispatch.retry_task(${t})`;
    expect(await keys(p)).toEqual([]);
  });

  it('lists a crashed task once its retries are used up, with its last reason, and not before', async () => {
    const p = await project('crash');
    const { task: t } = await task(p, 'build it');
    await db.sql`select dispatch.set_task_status(${t}, 'crashed', 'killed by SIGKILL')`;
    await db.sql`select dispatch.apply_return_policy(${t})`; // retry_same: attempt 2 queued
    expect(await keys(p)).toEqual([]);
    await db.sql`select dispatch.set_task_status(${t}, 'crashed', 'killed by SIGKILL again')`;
    await db.sql`select dispatch.apply_return_policy(${t})`; // 2 attempts used: a person decides
    const [item] = await db.sql<{ key: string; detail: string }[]>`select key, detail from dispatch.needs_you(${p})`;
    expect(item).toEqual({ key: `task:${t}:2`, detail: 'killed by SIGKILL again' });
  });

  it('lists a stalled session until it speaks again', async () => {
    const p = await project('stall');
    const { session: s } = await task(p);
    await db.sql`select dispatch.session_stalled(${s}, 5000, 1000)`;
    expect((await keys(p))[0]).toMatch(new RegExp(`^stalled:${s}:`));
    await db.sql`update dispatch.sessions set stalled = false where id = ${s}`;
    expect(await keys(p)).toEqual([]);
  });

  it('leaves out a loop whose work is done and lists it as finished; a question or a failed turn is listed', async () => {
    const p = await project('loops');
    const done = await turnEnds(p, { turn_status: 'success', stop: { where: 'finished', why: 'the work is done' }, last_message: 'All three notes are filed.' });
    expect(await keys(p)).toEqual([]);
    const [f] = await db.sql<{ event_id: string }[]>`select event_id from dispatch.finished_loops(${p})`;
    expect(f!.event_id).toBe(done);
    // Rows of older versions said where = 'orchestrator' for the same thing.
    await turnEnds(p, { turn_status: 'success', stop: { where: 'orchestrator', why: 'the orchestrator ended its turn without starting more work' } });
    expect(await keys(p)).toEqual([]);
    const asks = await turnEnds(p, { turn_status: 'success', stop: { where: 'finished', why: 'done' }, last_message: 'Shall I also tidy the archive?' });
    const [q] = await db.sql<{ key: string; kind: string; detail: string }[]>`select key, kind, detail from dispatch.needs_you(${p})`;
    expect(q).toEqual({ key: `question:${asks}`, kind: 'question', detail: 'Shall I also tidy the archive?' });
    // The person answers: the question is no longer waiting.
    await db.sql`select dispatch.post_user_message(${p}, 'yes', gen_random_uuid())`;
    expect(await keys(p)).toEqual([]);
    const failed = await turnEnds(p, { turn_status: 'failed', stop: { where: 'orchestrator', why: 'the orchestrator turn ended failed: exit 1' } });
    expect(await keys(p)).toEqual([`loop:${failed}`]);
    expect(await db.sql`select 1 from dispatch.finished_loops(${p})`).toHaveLength(0);
  });

  it('lists held tasks once per project as a spent budget', async () => {
    const p = await project('budget');
    for (const b of ['a', 'b']) {
      const { task: t } = await task(p, b);
      await db.sql`update dispatch.sessions set ended_at = now() where task_id = ${t}`;
      await db.sql`select dispatch.set_task_status(${t}, 'held', 'waiting: the daily budget is spent')`;
    }
    const rows = await db.sql<{ kind: string; detail: string }[]>`select kind, detail from dispatch.needs_you(${p})`;
    expect(rows).toEqual([{ kind: 'budget', detail: '2 tasks wait until the daily budget is raised or the day ends' }]);
  });

  it('drops a dismissed item, journals the dismissal, and refuses a key that is not listed', async () => {
    const p = await project('dismiss');
    const failed = await turnEnds(p, { turn_status: 'failed', stop: { where: 'orchestrator', why: 'exit 1' } });
    const [d] = await db.sql<{ id: string }[]>`select dispatch.dismiss_needs_you(${`loop:${failed}`}, 'me') as id`;
    expect(await keys(p)).toEqual([]);
    const [row] = await db.sql<{ event_type: string; project_id: string; key: string }[]>`
      select event_type, project_id, payload->>'key' as key from dispatch.events where event_id = ${d!.id}`;
    expect(row).toEqual({ event_type: 'needs_you.dismissed', project_id: p, key: `loop:${failed}` });
    await expect(db.sql`select dispatch.dismiss_needs_you('loop:nothing')`).rejects.toMatchObject({ code: 'P0002' });
  });
});
