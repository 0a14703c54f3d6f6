// Statuses live in dispatch.statuses; TypeScript's typed view of them (STATUS_NAMES) and the
// locks both halves take must agree with the database.
import { beforeAll, describe, expect, it } from 'vitest';
import { STATUS_NAMES, StatusRowSchema } from '../../../core/contracts/status.ts';
import type { Sql } from '../../../core/db/client.ts';
import { LOCKS } from '../../../core/db/locks.ts';
import { createTestDb } from '../../helpers/db.ts';

let sql: Sql;
beforeAll(async () => {
  sql = (await createTestDb()).sql;
});

describe('statuses', () => {
  it('TypeScript knows exactly the statuses of dispatch.statuses', async () => {
    const rows = await sql<{ name: string }[]>`select name from dispatch.statuses order by name`;
    expect(rows.map((r) => r.name)).toEqual([...STATUS_NAMES].sort());
  });

  it('every row fits the status contract, and what a status means is consistent', async () => {
    const rows = await sql`select * from dispatch.statuses`;
    for (const row of rows) {
      const s = StatusRowSchema.parse(row);
      if (s.clean) expect(s.terminal).toBe(true);
      if (s.failure) expect(s.alarming && s.terminal).toBe(true);
      if (s.needs_user) expect(s.blocking).toBe(true);
    }
    expect(rows.filter((r) => r.clean).map((r) => r.name)).toEqual(['success']);
  });

  it('a device may subscribe to the notifying statuses, the loop stopping, the daily budget reached and a gate opening, nothing else', async () => {
    const [row] = await sql<{ m: string[] }[]>`select dispatch.push_moments() as m`;
    const notifying = await sql<{ name: string }[]>`select name from dispatch.statuses where notifies order by name`;
    expect(row!.m).toEqual([...notifying.map((n) => n.name), 'loop_stopped', 'budget_reached', 'gate_requested']);
  });
});

describe('advisory locks', () => {
  it('the journal trigger and the orchestrator claim take the locks core/db/locks.ts names', async () => {
    const [trigger] = await sql<{ d: string }[]>`select pg_get_functiondef('dispatch.events_lock_seq'::regproc) as d`;
    expect(trigger!.d).toContain(`pg_advisory_xact_lock(${LOCKS.journalSeq})`);
    const [claim] = await sql<{ d: string }[]>`select pg_get_functiondef('dispatch.claim_orchestrator_turn'::regproc) as d`;
    expect(claim!.d).toContain(`'${LOCKS.orchestratorClaimPrefix}'`);
    const [start] = await sql<{ d: string }[]>`select pg_get_functiondef('dispatch.server_started'::regproc) as d`;
    expect(start!.d).toContain(`'${LOCKS.serverInstancePrefix}'`);
    // Every other function that takes the journal's lock names the same id.
    const takers = await sql<{ name: string; d: string }[]>`
      select name, d from (
        select p.proname as name, case when p.prokind = 'f' then pg_get_functiondef(p.oid) end as d
          from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'dispatch') f
       where d like '%pg_advisory_xact_lock(%' and name not in ('claim_orchestrator_turn', 'server_started')`;
    expect(takers.map((t) => t.name).sort()).toEqual(['events_lock_seq', 'lock_for_session_write']);
    for (const t of takers) expect(t.d).toContain(`pg_advisory_xact_lock(${LOCKS.journalSeq})`);
  });
});
