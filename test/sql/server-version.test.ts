// The README's "tested against Postgres 15 and the embedded 17": the suite runs on the embedded
// Postgres (17) and, in CI, again on the machine's (15); this names the server each run used and
// refuses one older than 15.
import { describe, expect, inject, it } from 'vitest';
import { createTestDb } from '../helpers/db.ts';

describe('the Postgres the suite runs on', () => {
  it('is 15 or newer; the embedded one is 17', async () => {
    const { sql } = await createTestDb();
    const [{ v } = { v: 0 }] = await sql<{ v: number }[]>`select current_setting('server_version_num')::int as v`;
    process.stdout.write(`Postgres ${Math.floor(v / 10000)} (${v}) at ${new URL(inject('pgAdminUrl')).host}\n`);
    expect(v).toBeGreaterThanOrEqual(150000);
    if (!process.env.DATABASE_URL) expect(Math.floor(v / 10000)).toBe(17);
  });
});
