// When a schedule runs next (core/cron.ts, graphile-worker's crontab parser read on a zone's wall
// clock): what the phone shows as "next" and when the runner fires it. Pure computation, no clock.
import { describe, expect, it } from 'vitest';
import { CronError, nextRun, parseCron } from '../../core/cron.ts';

const next = (cron: string, zone: string | null, after: string) => nextRun(cron, zone, new Date(after)).toISOString();

describe('the next run of a schedule', () => {
  it('is the next matching minute, strictly after now', () => {
    expect(next('* * * * *', 'UTC', '2026-01-10T12:00:30Z')).toBe('2026-01-10T12:01:00.000Z');
    expect(next('0 3 * * *', 'UTC', '2026-01-10T03:00:00Z')).toBe('2026-01-11T03:00:00.000Z');
    expect(next('*/15 9-17 * * 1-5', 'UTC', '2026-01-09T17:50:00Z')).toBe('2026-01-12T09:00:00.000Z'); // Friday evening → Monday
    expect(next('0 0 1 * *', 'UTC', '2026-01-31T10:00:00Z')).toBe('2026-02-01T00:00:00.000Z');
  });

  it("is read on the named zone's wall clock, summer and winter", () => {
    expect(next('0 2 * * *', 'Europe/Paris', '2026-01-10T12:00:00Z')).toBe('2026-01-11T01:00:00.000Z');
    expect(next('0 2 * * *', 'Europe/Paris', '2026-07-10T12:00:00Z')).toBe('2026-07-11T00:00:00.000Z');
    expect(next('30 9 * * *', 'Asia/Kolkata', '2026-07-10T12:00:00Z')).toBe('2026-07-11T04:00:00.000Z');
    expect(next('0 2 * * *', 'America/New_York', '2026-01-10T12:00:00Z')).toBe('2026-01-11T07:00:00.000Z');
  });

  it("is read on the server's wall clock when the schedule names no zone", () => {
    const zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    expect(next('0 2 * * *', null, '2026-01-10T12:00:00Z')).toBe(next('0 2 * * *', zone, '2026-01-10T12:00:00Z'));
  });

  it('fires a nightly run once on the night the clock goes back, and skips it the night the clock skips it', () => {
    // Paris, 25 October 2026: 03:00 summer time becomes 02:00 winter time; 02:30 is shown twice.
    const first = next('30 2 * * *', 'Europe/Paris', '2026-10-24T12:00:00Z');
    expect(first).toBe('2026-10-25T00:30:00.000Z');
    expect(next('30 2 * * *', 'Europe/Paris', first)).toBe('2026-10-26T01:30:00.000Z');
    // An every-minute schedule runs on through the repeated hour, as real time does.
    expect(next('* * * * *', 'Europe/Paris', '2026-10-25T00:59:00Z')).toBe('2026-10-25T01:00:00.000Z');
    // Paris, 29 March 2026: 02:00 becomes 03:00; 02:30 does not exist that night.
    expect(next('30 2 * * *', 'Europe/Paris', '2026-03-28T12:00:00Z')).toBe('2026-03-30T00:30:00.000Z');
  });

  it('names the field and column of a part that does not parse, and refuses what never matches or an unknown zone', () => {
    const err = (f: () => unknown) => { try { f(); } catch (e) { return e as CronError; } throw new Error('expected a refusal'); };
    expect(err(() => parseCron('0 3 * 13 *'))).toMatchObject({ field: 'month', position: 4, column: 7 });
    expect(err(() => parseCron('0  3 x * *'))).toMatchObject({ field: 'day-of-month', position: 3, column: 6 });
    expect(err(() => nextRun('0 0 31 2 *', 'UTC', new Date('2026-01-01T00:00:00Z'))).message).toMatch(/matches no minute in the next five years/);
    expect(err(() => nextRun('* * * * *', 'Mars/Olympus', new Date()))).toMatchObject({ field: 'time_zone' });
  });
});
