// postgres.js 3.4.9 patched at install (scripts/patch-postgres.mjs, porsager/postgres#1208): a
// transaction whose connection dies is rejected, its ROLLBACK on the dead socket neither kills the
// process nor poisons the connection, and the pool goes on serving.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSql } from '../../../core/db/client.ts';
import { isConnectionLoss } from '../../../core/db/errors.ts';
import { createTestDb } from '../../helpers/db.ts';
import { repoRoot } from '../../helpers/process.ts';

describe('the postgres.js patch', () => {
  it('is applied to every build of the driver', () => {
    for (const rel of ['src/connection.js', 'cjs/src/connection.js']) {
      expect(fs.readFileSync(path.join(repoRoot, 'node_modules/postgres', rel), 'utf8'), rel).toContain('porsager/postgres#1208');
    }
  });

  it('a transaction whose backend is terminated fails as a lost connection, and the same pool answers next', async () => {
    const db = await createTestDb();
    const sql = createSql(db.url, { max: 1 });
    try {
      for (let round = 0; round < 3; round++) {
        const err = await sql
          .begin(async (tx) => {
            await tx`select 1`;
            await tx`select pg_terminate_backend(pg_backend_pid())`;
            await tx`select 2`;
          })
          .then(
            () => null,
            (e: unknown) => e,
          );
        expect(isConnectionLoss(err), String(err)).toBe(true);
        // The one connection reconnects: its next startup message is not stuck behind a stale write.
        const [row] = await sql<{ n: number }[]>`select ${round}::int as n`;
        expect(row!.n).toBe(round);
      }
    } finally {
      await sql.end({ timeout: 2 });
    }
  });
});
