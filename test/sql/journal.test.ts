// The journal's invariants are enforced by Postgres itself, whoever writes.
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestDb, type TestDb } from '../helpers/db.ts';

let db: TestDb;
let projectId: string;

beforeAll(async () => {
  db = await createTestDb();
  const [row] = await db.sql<{ id: string }[]>`select dispatch.create_project('journal invariants') as id`;
  projectId = row!.id;
});

describe('the journal schema', () => {
  it('creating a project journals project.created', async () => {
    const rows = await db.sql`select event_type, payload from dispatch.events where project_id = ${projectId}`;
    expect(rows).toEqual([{ event_type: 'project.created', payload: { name: 'journal invariants' } }]);
  });

  it('refuses an event of an unknown type', async () => {
    await expect(
      db.sql`insert into dispatch.events (project_id, event_type) values (${projectId}, 'no.such_type')`,
    ).rejects.toMatchObject({ code: '23503' });
  });

  it('refuses a whole batch that points at a missing project, session, task or parent, naming it', async () => {
    const ghost = '00000000-0000-4000-8000-00000000dead';
    await db.sql`insert into dispatch.event_types (name, description) values ('custom.refcheck', 'a test type') on conflict do nothing`;
    for (const [col, what] of [['project_id', 'no project'], ['session_id', 'no session'], ['task_id', 'no task'], ['parent_id', 'no parent event']] as const) {
      const before = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
      // One good row and one bad row in the same statement: neither is kept.
      await expect(
        db.sql.unsafe(
          `insert into dispatch.events (project_id, event_type${col === 'project_id' ? '' : `, ${col}`})
           values ($1, 'custom.refcheck'${col === 'project_id' ? '' : ', null'}), (${col === 'project_id' ? '$2' : '$1'}, 'custom.refcheck'${col === 'project_id' ? '' : ', $2'})`,
          [projectId, ghost],
        ),
      ).rejects.toMatchObject({ code: '23503', message: expect.stringContaining(`${what} ${ghost}`) });
      const after = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
      expect(after[0]!.n).toBe(before[0]!.n);
    }
  });

  it('keeps what the journal points at: a referenced project, task, session or event type cannot be deleted or truncated', async () => {
    await db.sql`insert into dispatch.event_types (name, description) values ('custom.refcheck', 'a test type') on conflict do nothing`;
    const [s] = await db.sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, role, status) values (${projectId}, 'worker', 'running') returning id`;
    await db.sql`insert into dispatch.events (project_id, session_id, event_type) values (${projectId}, ${s!.id}, 'custom.refcheck')`;
    await expect(db.sql`delete from dispatch.sessions where id = ${s!.id}`).rejects.toMatchObject({ code: '23503' });
    await expect(db.sql`update dispatch.sessions set id = gen_random_uuid() where id = ${s!.id}`).rejects.toMatchObject({ code: '23503' });
    await expect(db.sql`delete from dispatch.projects where id = ${projectId}`).rejects.toMatchObject({ code: '23503' });
    await expect(db.sql`delete from dispatch.event_types where name = 'project.created'`).rejects.toMatchObject({ code: '23503' });
    await expect(db.sql`truncate dispatch.projects cascade`).rejects.toMatchObject({ code: '23503' });
    // Other updates of a referenced row are untouched, and an unused row can still go.
    await db.sql`update dispatch.sessions set status = 'success' where id = ${s!.id}`;
    await db.sql`insert into dispatch.event_types (name, description) values ('custom.unused', 'never journalled')`;
    await db.sql`delete from dispatch.event_types where name = 'custom.unused'`;
  });

  it('accepts a new event type after one INSERT into event_types', async () => {
    await db.sql`insert into dispatch.event_types (name, description) values ('custom.signal', 'a test type')`;
    const [row] = await db.sql<{ seq: number }[]>`
      insert into dispatch.events (project_id, event_type, payload) values (${projectId}, 'custom.signal', '{"x":1}')
      returning seq`;
    expect(row!.seq).toBeGreaterThan(0);
  });

  it('refuses UPDATE, DELETE and TRUNCATE on events', async () => {
    await expect(db.sql`update dispatch.events set payload = '{}' where project_id = ${projectId}`).rejects.toMatchObject({
      code: 'PD001',
      message: expect.stringContaining('append-only'),
    });
    await expect(db.sql`delete from dispatch.events where project_id = ${projectId}`).rejects.toMatchObject({ code: 'PD001' });
    await expect(db.sql`truncate dispatch.events cascade`).rejects.toMatchObject({ code: 'PD001' });
    const [{ n } = { n: 0 }] = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where project_id = ${projectId}`;
    expect(n).toBeGreaterThanOrEqual(2);
  });

  it('refuses UPDATE and DELETE on the contract, and accepts a new field as an INSERT', async () => {
    await expect(db.sql`update dispatch.contract set required = false where field_key = 'goal'`).rejects.toMatchObject({ code: 'PD001' });
    await expect(db.sql`delete from dispatch.contract where field_key = 'goal'`).rejects.toMatchObject({ code: 'PD001' });
    await db.sql`insert into dispatch.contract (field_key, required, semantics, shape)
                 values ('confidence', false, 'how sure the worker is', '{"type":"number"}')`;
    const keys = await db.sql<{ field_key: string }[]>`select field_key from dispatch.contract order by field_key`;
    expect(keys.map((k) => k.field_key)).toEqual(
      ['artifacts', 'chosen_option', 'confidence', 'current_state', 'decision_point', 'gate', 'gate_decision', 'gate_triggers', 'goal',
       'next_step', 'ruled_out', 'status'],
    );
  });

  it('seeds the v1 contract with required goal, current_state and ruled_out', async () => {
    const rows = await db.sql<{ field_key: string; shape: { type?: string } }[]>`
      select field_key, shape from dispatch.contract where required order by field_key`;
    expect(rows.map((r) => r.field_key)).toEqual(['current_state', 'goal', 'ruled_out']);
    expect(rows.find((r) => r.field_key === 'ruled_out')!.shape.type).toBe('array');
  });

  it('assigns strictly increasing seq regardless of what the writer supplies', async () => {
    const rows = await db.sql<{ seq: number }[]>`
      insert into dispatch.events (project_id, event_type, seq)
      select ${projectId}, 'custom.signal', 1 from generate_series(1, 5)
      returning seq`;
    const seqs = rows.map((r) => r.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(5);
    expect(seqs[0]).toBeGreaterThan(1);
  });

  it('sends one NOTIFY per statement carrying the highest seq', async () => {
    const got: string[] = [];
    const listener = await db.sql.listen('dispatch_events', (p) => got.push(p));
    const rows = await db.sql<{ seq: number }[]>`
      insert into dispatch.events (project_id, event_type)
      select ${projectId}, 'custom.signal' from generate_series(1, 50) returning seq`;
    const top = Math.max(...rows.map((r) => r.seq));
    const deadline = Date.now() + 5000;
    while (!got.includes(String(top)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await listener.unlisten();
    expect(got).toEqual([String(top)]);
  });

  it('lets a derived row inherit its parent row thread_id', async () => {
    const [parent] = await db.sql<{ event_id: string }[]>`
      insert into dispatch.events (project_id, event_type, thread_id) values (${projectId}, 'custom.signal', 42)
      returning event_id`;
    const [child] = await db.sql.begin(async (tx) => {
      await tx`select set_config('dispatch.handoff_gate', 'validated', true)`;
      return tx<{ thread_id: number }[]>`
        insert into dispatch.events (project_id, event_type, tier, parent_id, payload)
        values (${projectId}, 'handoff', 'derived', ${parent!.event_id}, '{}') returning thread_id`;
    });
    expect(child!.thread_id).toBe(42);
  });

  it('refuses a derived row written outside the validation gate', async () => {
    await expect(
      db.sql`insert into dispatch.events (project_id, event_type, tier, payload) values (${projectId}, 'handoff', 'derived', '{}')`,
    ).rejects.toMatchObject({ code: 'PD002' });
  });

  it('keeps one user_message per message_id', async () => {
    const mid = '5b0c1a3e-2f7d-4c55-9a51-0d7f3f9b1e01';
    await db.sql`insert into dispatch.events (project_id, event_type, message_id) values (${projectId}, 'user_message', ${mid})`;
    await expect(
      db.sql`insert into dispatch.events (project_id, event_type, message_id) values (${projectId}, 'user_message', ${mid})`,
    ).rejects.toMatchObject({ code: '23505' });
  });
});
