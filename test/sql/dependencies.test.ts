// Task dependencies straight against Postgres: a waiting task has no worker job until the
// transaction that ends its last dependency clean; a dependency that ends not clean (with no retry
// coming) skips the chain after it, naming where it broke; bad dependencies are refused.
import postgres from 'postgres';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.ts';

let db: TestDb;
let project: string;

async function submit(brief: string, deps: string[] | null = null, p = project): Promise<string> {
  const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p}, ${brief}, depends_on => ${deps}::uuid[]) as id`;
  return t!.id;
}
async function task(id: string) {
  const [t] = await db.sql<{ status: string; status_reason: string | null; released_at: Date | null }[]>`
    select status, status_reason, released_at from dispatch.tasks where id = ${id}`;
  return t!;
}
async function workerJobs(id: string): Promise<number> {
  const [r] = await db.sql<{ n: number }[]>`
    select count(*)::int as n from graphile_worker.jobs where task_identifier = 'spawn_worker' and key = ${'spawn_worker:' + id}`;
  return r!.n;
}
/** Ends a task as the runner does: its status, then the return policy, in one transaction. */
async function end(id: string, status: string, sql: postgres.Sql = db.sql) {
  await sql.begin(async (tx) => {
    await tx`select dispatch.set_task_status(${id}, ${status}, ${'ended ' + status})`;
    if (status !== 'success') await tx`select dispatch.apply_return_policy(${id})`;
  });
}
async function refusal(fn: () => Promise<unknown>): Promise<{ code: string; message: string; detail: unknown }> {
  const e = (await fn().then(() => null, (x: unknown) => x)) as { code: string; message: string; detail: string } | null;
  if (!e) throw new Error('expected a refusal');
  return { code: e.code, message: e.message, detail: JSON.parse(e.detail) };
}

beforeAll(async () => {
  db = await createTestDb();
  const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('deps') as id`;
  project = p!.id;
});

describe('a task that depends on others', () => {
  it('waits queued with no worker job, saying what it waits for', async () => {
    const a = await submit('Write the parser');
    const b = await submit('Write the tests', [a]);
    expect(await workerJobs(a)).toBe(1);
    expect(await workerJobs(b)).toBe(0);
    expect(await task(b)).toMatchObject({ status: 'queued', status_reason: 'waits for: Write the parser — queued', released_at: null });
    const [sub] = await db.sql<{ payload: { depends_on: string[] } }[]>`
      select payload from dispatch.events where task_id = ${b} and event_type = 'task.submitted'`;
    expect(sub!.payload.depends_on).toEqual([a]);
  });

  it('gets its worker job in the very transaction that ends its last dependency success', async () => {
    const a1 = await submit('first half');
    const a2 = await submit('second half');
    const b = await submit('join the halves', [a1, a2]);
    await end(a1, 'success');
    expect(await workerJobs(b)).toBe(0);
    expect((await task(b)).status_reason).toBe('waits for: second half — queued');
    await db.sql.begin(async (tx) => {
      await tx`select dispatch.set_task_status(${a2}, 'success', 'done')`;
      // Not yet: the release runs at commit, seeing the transaction's final state.
      const [n] = await tx<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${'spawn_worker:' + b}`;
      expect(n!.n).toBe(0);
    });
    expect(await workerJobs(b)).toBe(1);
    const met = await db.sql<{ payload: { by: string; depends_on: string[] } }[]>`
      select payload from dispatch.events where task_id = ${b} and event_type = 'task.dependencies_met'`;
    expect(met).toHaveLength(1);
    expect(met[0]!.payload.by).toBe(a2);
    expect((await task(b)).status_reason).toBe('dependencies done; waiting for a runner');
  });

  it('starts at once when every dependency ended success before it was submitted', async () => {
    const a = await submit('done already');
    await end(a, 'success');
    const b = await submit('after it', [a]);
    expect(await workerJobs(b)).toBe(1);
    expect((await task(b)).released_at).not.toBeNull();
  });

  it('is skipped with the reason naming the dependency that failed, and so is the chain after it', async () => {
    const a = await submit('Write the parser\nwith details');
    const b = await submit('Use the parser', [a]);
    const c = await submit('Ship it', [b]);
    await end(a, 'failed'); // the return policy escalates to the orchestrator: no retry
    expect(await task(b)).toMatchObject({ status: 'skipped', status_reason: 'dependency "Write the parser" ended failed' });
    expect(await task(c)).toMatchObject({ status: 'skipped', status_reason: 'dependency "Write the parser" ended failed (through "Use the parser")' });
    expect(await workerJobs(b) + (await workerJobs(c))).toBe(0);
    const [ev] = await db.sql<{ payload: Record<string, string> }[]>`
      select payload from dispatch.events where task_id = ${c} and event_type = 'task.status_changed' order by seq desc limit 1`;
    expect(ev!.payload).toMatchObject({ status: 'skipped', dependency: b, root_dependency: a, dependency_status: 'failed' });
  });

  it('keeps waiting while a dependency that crashed is retried by the return policy', async () => {
    const a = await submit('flaky');
    const b = await submit('after flaky', [a]);
    await end(a, 'crashed'); // retry_same: queued again in the same transaction
    expect((await task(a)).status).toBe('queued');
    expect(await task(b)).toMatchObject({ status: 'queued', released_at: null });
    await end(a, 'success');
    expect(await workerJobs(b)).toBe(1);
  });

  it('keeps waiting while a dependency is parked at its gate', async () => {
    const a = await submit('gated one');
    const b = await submit('after the gate', [a]);
    await db.sql`select dispatch.set_task_status(${a}, 'gated', 'waits for a person')`;
    expect(await task(b)).toMatchObject({ status: 'queued', released_at: null });
  });

  it('is skipped when its dependency is cancelled before it started', async () => {
    const a = await submit('to be cancelled');
    const b = await submit('after the cancelled', [a]);
    await db.sql`select dispatch.cancel_task(${a})`;
    expect(await task(b)).toMatchObject({ status: 'skipped', status_reason: 'dependency "to be cancelled" ended cancelled' });
  });

  it("waits, in a project with a check, until its dependency's check passed, then starts", async () => {
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('checked') as id`;
    await db.sql`update dispatch.projects set config = config || '{"verify": {"command": ["npm", "test"]}}'::jsonb where id = ${p!.id}`;
    // The verify step's event (its own migration names it; here for a branch that has not got it yet).
    await db.sql`insert into dispatch.event_types (name, tier, description)
                 values ('verify.finished', 'raw', 'the project''s check ended') on conflict do nothing`;
    const a = await submit('Checked work', null, p!.id);
    const b = await submit('After the checked work', [a], p!.id);
    const verdict = (passed: boolean, attempt: number) => db.sql`
      insert into dispatch.events (project_id, task_id, event_type, payload)
      values (${p!.id}, ${a}, 'verify.finished', ${db.sql.json({ passed, attempt, exit_code: passed ? 0 : 1 })})`;
    await end(a, 'success');
    expect(await workerJobs(b)).toBe(0);
    expect((await task(b)).status_reason).toBe('waits for: Checked work — success, its check not passed yet');
    await verdict(false, 1);
    expect(await workerJobs(b)).toBe(0);
    await verdict(true, 2);
    expect(await workerJobs(b)).toBe(1);
    expect(await task(b)).toMatchObject({ status: 'queued', status_reason: 'dependencies done; waiting for a runner' });
  });

  it('is started once when its two dependencies end at the same moment on two connections', async () => {
    const other = postgres(db.url, { max: 1, onnotice: () => {} });
    try {
      for (let i = 0; i < 5; i++) {
        const a1 = await submit(`left ${i}`);
        const a2 = await submit(`right ${i}`);
        const b = await submit(`both ${i}`, [a1, a2]);
        await Promise.all([end(a1, 'success'), end(a2, 'success', other)]);
        expect(await workerJobs(b)).toBe(1);
        const [n] = await db.sql<{ n: number }[]>`
          select count(*)::int as n from dispatch.events where task_id = ${b} and event_type = 'task.dependencies_met'`;
        expect(n!.n).toBe(1);
      }
    } finally {
      await other.end();
    }
  });
});

describe('a dependency that cannot be', () => {
  it('is refused when no such task exists, naming it', async () => {
    const ghost = '00000000-0000-4000-8000-000000000001';
    const r = await refusal(() => submit('orphan', [ghost]));
    expect(r.code).toBe('PD400');
    expect(r.message).toContain(ghost);
    expect(r.detail).toEqual({ field: 'depends_on', unknown: [ghost] });
    expect(await db.sql`select 1 from dispatch.tasks where brief = 'orphan'`).toHaveLength(0);
  });

  it("is refused when it is another project's task, naming it", async () => {
    const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('elsewhere') as id`;
    const theirs = await submit('their task', null, p!.id);
    const r = await refusal(() => submit('mine', [theirs]));
    expect(r.detail).toEqual({ field: 'depends_on', other_project: [theirs] });
  });

  it('is refused when an edit would make a cycle, naming both tasks', async () => {
    const a2 = await submit('cycle a2');
    const c = await submit('cycle c', [a2]);
    // c waits for a2; making a2 wait for c closes the loop.
    const r = await refusal(() => db.sql`select dispatch.set_task_dependencies(${a2}, ${[c]}::uuid[])`);
    expect(r.code).toBe('PD400');
    expect(r.detail).toEqual({ field: 'depends_on', cycle: [a2, c] });
    expect(await db.sql`select depends_on from dispatch.task_dependencies where task_id = ${a2}`).toHaveLength(0);
  });

  it('is refused on itself through the table, too', async () => {
    const a = await submit('self');
    const r = await refusal(() => db.sql`insert into dispatch.task_dependencies (task_id, depends_on) values (${a}, ${a})`);
    expect(r.detail).toEqual({ field: 'depends_on', cycle: [a, a] });
  });
});
