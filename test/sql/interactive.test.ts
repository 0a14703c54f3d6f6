// Project mode, as the README states it: in autonomous mode the handoff of a worker the orchestrator
// started wakes the orchestrator (the loop closes itself); in interactive mode it waits for the
// person's next message, which then wakes it. (The interactive spawn gate is in
// test/functions/mcp-gates.test.ts.)
import { describe, expect, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';

describe('after a handoff', () => {
  it.each([
    ['autonomous', true],
    ['interactive', false],
  ] as const)('%s mode: the orchestrator is woken by the handoff: %s', async (mode, wokenByHandoff) => {
    const { sql } = await createTestDb();
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${`mode ${mode}`}, ${sql.json({ mode })}) as id`;
    const [o] = await sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, role, status, ended_at) values (${p!.id}, 'orchestrator', 'success', now()) returning id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'work the orchestrator started', spawned_by := ${o!.id}) as id`;
    await sql`select dispatch.set_task_status(${t!.id}, 'running', 'started')`;
    await sql`select dispatch.set_task_status(${t!.id}, 'success', 'handoff validated')`;
    const turn = async () =>
      (await sql`select 1 from graphile_worker.jobs where key = ${`orchestrator_turn:${p!.id}`}`).length === 1;

    await sql`select dispatch.after_handoff(${t!.id})`;
    expect(await turn()).toBe(wokenByHandoff);

    // The person's next message wakes it in either mode.
    await sql`select * from dispatch.post_user_message(${p!.id}, 'go on', gen_random_uuid())`;
    expect(await turn()).toBe(true);
  });
});
