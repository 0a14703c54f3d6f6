// seq order and commit visibility agree: a reader paging with seq > last never skips a row that
// commits later, with several writers racing (including slow transactions that hold their row).
import { beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter } from '../../jobs/journal-writer.ts';
import { createTestDb, type TestDb } from '../helpers/db.ts';
import { makeSession } from '../helpers/journal.ts';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});

describe('concurrent writers and a paging reader', () => {
  it('the reader sees every row exactly once, in seq order', async () => {
    const { sql } = db;
    const writers = await Promise.all([0, 1, 2, 3].map((i) => makeSession(sql, `ordering writer ${i}`)));
    const slow = await makeSession(sql, 'ordering slow transactions');
    const [{ start } = { start: 0 }] = await sql<{ start: number }[]>`select coalesce(max(seq), 0) as start from dispatch.events`;

    let done = false;
    const seen: number[] = [];
    const reader = (async () => {
      let last = start;
      for (;;) {
        const finished = done; // read once more after the writers are finished
        const rows = await sql<{ seq: number }[]>`
          select seq from dispatch.events where seq > ${last} order by seq limit 200`;
        for (const r of rows) seen.push(r.seq);
        if (rows.length) last = rows.at(-1)!.seq;
        if (finished && rows.length === 0) return;
      }
    })();

    const fast = writers.map(async (ref, w) => {
      const writer = new JournalWriter(sql, ref, { maxBatch: 37 });
      for (let i = 0; i < 1500; i++) {
        writer.push(Buffer.from(JSON.stringify({ type: 'stream_event', w, i })));
        if (i % 100 === 0) await new Promise((r) => setImmediate(r));
      }
      await writer.flush();
    });
    // Transactions that draw their row and then dawdle before committing: the classic way a
    // sequence-ordered reader skips a row.
    const dawdlers = [0, 1, 2].map(async (d) => {
      for (let i = 0; i < 15; i++) {
        await sql.begin(async (tx) => {
          await tx`insert into dispatch.events (project_id, session_id, event_type, payload)
                   values (${slow.projectId}, ${slow.sessionId}, 'claude.unknown', ${tx.json({ d, i })})`;
          await tx`select pg_sleep(${0.002 + Math.random() * 0.01})`;
        });
      }
    });
    await Promise.all([...fast, ...dawdlers]);
    done = true;
    await reader;

    const all = await sql<{ seq: number }[]>`select seq from dispatch.events where seq > ${start} order by seq`;
    expect(all).toHaveLength(4 * 1500 + 3 * 15);
    expect(seen).toEqual(all.map((r) => r.seq)); // no gap, no duplicate, same order
  });
});
