// dispatch.usage answers from the daily and hourly rollups and the partial hours at the edges of the range:
// for any range and grouping it says exactly what summing the sessions themselves says.
import { beforeAll, describe, expect, it } from 'vitest';
import type { UsageReport } from '../../core/contracts/usage.ts';
import { createTestDb, type TestDb } from '../helpers/db.ts';
import { loadSessions } from '../helpers/usage-data.ts';

let db: TestDb;
let p1: string;
let p2: string;
const end = new Date('2026-03-10T12:34:56.789Z');

beforeAll(async () => {
  db = await createTestDb();
  p1 = (await db.sql<{ id: string }[]>`select dispatch.create_project('usage one') as id`)[0]!.id;
  p2 = (await db.sql<{ id: string }[]>`select dispatch.create_project('usage two') as id`)[0]!.id;
  await loadSessions(db.sql, p1, 3000, 5, end);
  await loadSessions(db.sql, p2, 1000, 2, end);
});

/** The same report, summed from the sessions themselves. */
async function bruteForce(project: string | null, since: Date | null, until: Date | null, group: string): Promise<UsageReport> {
  const rows = await db.sql<{ key: string; cost_usd: string; i: number; o: number; cr: number; cc: number; s: number }[]>`
    select case ${group} when 'day' then to_char(ended_at at time zone 'UTC', 'YYYY-MM-DD') when 'model' then model when 'role' then role
                when 'project' then project_id::text else coalesce(task_id::text, '') end as key, round(sum(cost_usd), 6)::text as cost_usd,
           sum(input_tokens)::bigint as i, sum(output_tokens)::bigint as o, sum(cache_read_tokens)::bigint as cr,
           sum(cache_creation_tokens)::bigint as cc, sum(sessions)::bigint as s
      from dispatch.session_usage
     where (${project}::uuid is null or project_id = ${project}) and ended_at >= coalesce(${since}::timestamptz, '-infinity')
       and ended_at < coalesce(${until}::timestamptz, 'infinity')
     group by 1 order by 1`;
  const row = (r: (typeof rows)[number]) => ({
    cost_usd: Number(r.cost_usd), input_tokens: r.i, output_tokens: r.o, cache_read_tokens: r.cr, cache_creation_tokens: r.cc, sessions: r.s,
  });
  const total = rows.reduce(
    (a, r) => ({
      cost_usd: Math.round((a.cost_usd + Number(r.cost_usd)) * 1e6) / 1e6, input_tokens: a.input_tokens + r.i, output_tokens: a.output_tokens + r.o,
      cache_read_tokens: a.cache_read_tokens + r.cr, cache_creation_tokens: a.cache_creation_tokens + r.cc, sessions: a.sessions + r.s,
    }),
    { cost_usd: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, sessions: 0 },
  );
  return { rows: rows.map((r) => ({ key: r.key, ...row(r) })), total };
}

const usage = async (project: string | null, since: Date | null, until: Date | null, group: string) =>
  (await db.sql<{ r: UsageReport }[]>`select dispatch.usage(${project}, ${since}, ${until}, ${group}) as r`)[0]!.r;

describe('dispatch.usage', () => {
  it('is exact for open ranges, ranges on the hour, ranges inside one hour and ranges across days, in every grouping', async () => {
    const h = 3_600_000;
    const ranges: [Date | null, Date | null][] = [
      [null, null],
      [new Date(end.getTime() - 2 * 86_400_000), null],
      [null, new Date('2026-03-08T00:00:00Z')],
      [new Date('2026-03-07T05:00:00Z'), new Date('2026-03-09T17:00:00Z')],
      [new Date('2026-03-07T00:00:00Z'), new Date('2026-03-09T00:00:00Z')],
      [new Date('2026-03-06T23:30:00Z'), new Date('2026-03-09T00:30:00Z')],
      [new Date('2026-03-07T05:17:03.5Z'), new Date('2026-03-09T17:42:00Z')],
      [new Date('2026-03-08T10:05:00Z'), new Date('2026-03-08T10:55:00Z')],
      [new Date('2026-03-08T10:05:00Z'), new Date('2026-03-08T11:55:00Z')],
      [new Date(end.getTime() - 7.3 * h), new Date(end.getTime() - 1.1 * h)],
    ];
    for (const [since, until] of ranges) {
      for (const group of ['day', 'model', 'project', 'role', 'task']) {
        for (const project of [p1, null]) {
          expect(await usage(project, since, until, group), `${group} ${since?.toISOString()}..${until?.toISOString()}`).toEqual(
            await bruteForce(project, since, until, group),
          );
        }
      }
    }
  });

  it('counts every session once, under its main model', async () => {
    const all = await usage(null, null, null, 'model');
    expect(all.total.sessions).toBe(4000);
    expect(all.rows.map((r) => r.key)).toEqual(['claude-haiku-4-5', 'claude-opus-4-8']);
  });

  it('refuses a grouping it does not know', async () => {
    await expect(usage(p1, null, null, 'week')).rejects.toMatchObject({ code: '22023' });
  });
});
