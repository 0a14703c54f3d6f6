// Five-field cron expressions for schedules, parsed by graphile-worker's own crontab parser (the job
// queue we already run; no second cron library): what a bad one gets wrong (field and position),
// and the next minute one matches in a time zone (the server's unless the schedule names one).
import { parseCronItem } from 'graphile-worker';

export const CRON_FIELDS = ['minute', 'hour', 'day-of-month', 'month', 'day-of-week'] as const;

/** A cron expression or time zone that cannot be used, saying where. */
export class CronError extends Error {
  constructor(
    message: string,
    /** `minute` … `day-of-week`, `cron` for the expression as a whole, or `time_zone`. */
    readonly field: string,
    /** The field's place, 1–5 (0: the whole expression or the zone). */
    readonly position: number,
    /** The field's first character in the expression, from 1 (0 when not one field). */
    readonly column: number,
  ) {
    super(message);
  }
}

type Matcher = ReturnType<typeof parseCronItem>['match'];

function matcher(expression: string): Matcher {
  return parseCronItem({ task: 'schedule', match: expression }).match;
}

/** Parses a five-field expression; throws CronError naming the field that is wrong. */
export function parseCron(expression: string): Matcher {
  const text = expression.trim();
  const fields = text.split(/\s+/).filter(Boolean);
  if (fields.length !== 5) {
    throw new CronError(
      `cron needs five fields (${CRON_FIELDS.join(' ')}), got ${fields.length}: "${text}"`, 'cron', 0, 0);
  }
  let from = 0;
  fields.forEach((value, i) => {
    const column = text.indexOf(value, from) + 1;
    from = column - 1 + value.length;
    // Each field alone, the others wildcards: the parser's complaint then belongs to this field.
    const probe = fields.map((f, j) => (j === i ? f : '*')).join(' ');
    try {
      matcher(probe);
    } catch (err) {
      const why = (err as Error).message.replace(/ in parseCronItem call/, '').replace(/^Invalid cron pattern '.*'$/, 'not a number, range, list or */step');
      throw new CronError(`cron field ${i + 1} (${CRON_FIELDS[i]}) "${value}" at column ${column}: ${why}`, CRON_FIELDS[i]!, i + 1, column);
    }
  });
  return matcher(fields.join(' '));
}

/** The server's own zone (TZ, else the system's). */
export function serverTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

const offsets = new Map<string, Intl.DateTimeFormat>();
function formatter(zone: string): Intl.DateTimeFormat {
  let f = offsets.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric',
    });
    offsets.set(zone, f);
  }
  return f;
}

/** Throws CronError unless `zone` is an IANA time zone this runtime knows. */
export function checkTimeZone(zone: string): void {
  try {
    formatter(zone);
  } catch {
    throw new CronError(`time_zone "${zone}" is not a time zone this server knows (e.g. Europe/Paris, UTC)`, 'time_zone', 0, 0);
  }
}

/** The zone's offset from UTC at `t`, in minutes (what a wall clock there reads minus UTC). */
function offsetMinutes(zone: string, t: number): number {
  const parts = Object.fromEntries(formatter(zone).formatToParts(new Date(t)).map((p) => [p.type, p.value]));
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute));
  return Math.round((wall - Math.floor(t / 60_000) * 60_000) / 60_000);
}

const MINUTE = 60_000;

/** Whether the wall minute `t` shows in `zone` was shown once already (the clock went back). */
function repeated(zone: string, t: number, offset: number): boolean {
  const back = offsetMinutes(zone, t - 3 * 60 * MINUTE) - offset;
  return back > 0 && t - back * MINUTE + offsetMinutes(zone, t - back * MINUTE) * MINUTE === t + offset * MINUTE;
}
/** How far ahead a match is looked for: an expression that matches nowhere in it never fires. */
const HORIZON_MINUTES = 5 * 366 * 24 * 60;


/**
 * The first minute strictly after `after` that the expression matches, read on the wall clock of
 * `zone`. Throws CronError when it matches no minute in five years (e.g. 30 February).
 */
export function nextRun(expression: string, zone: string | null, after: Date): Date {
  const match = parseCron(expression);
  // The same expression with any minute and hour: a day it refuses is skipped whole.
  const fields = expression.trim().split(/\s+/);
  const dayMatch = matcher(['*', '*', ...fields.slice(2)].join(' '));
  // An expression naming its hours fires once on the day the clock goes back (the repeated wall
  // minutes are not matched again); one for every hour fires on, as real time goes on.
  const fixedHour = fields[1] !== '*';
  const tz = zone ?? serverTimeZone();
  checkTimeZone(tz);
  const start = Math.floor(after.getTime() / MINUTE) * MINUTE + MINUTE;
  const end = start + HORIZON_MINUTES * MINUTE;
  // The offset is asked once per UTC quarter hour (zones move on quarter hours at the finest).
  let offsetAt = -1;
  let offset = 0;
  for (let t = start; t < end; ) {
    const quarter = Math.floor(t / (15 * MINUTE));
    if (quarter !== offsetAt) {
      offsetAt = quarter;
      offset = offsetMinutes(tz, t);
    }
    const wall = new Date(t + offset * MINUTE);
    const digest = { min: wall.getUTCMinutes(), hour: wall.getUTCHours(), date: wall.getUTCDate(), month: wall.getUTCMonth() + 1, dow: wall.getUTCDay() };
    if (match(digest) && !(fixedHour && repeated(tz, t, offset))) return new Date(t);
    // Not this day at all: on towards the next local midnight, an hour short of it (a day of a
    // clock change is 23 or 25 hours long), at least one minute on.
    t += dayMatch(digest) ? MINUTE : Math.max(1, 1380 - (digest.hour * 60 + digest.min)) * MINUTE;
  }
  throw new CronError(`cron "${expression.trim()}" matches no minute in the next five years`, 'cron', 0, 0);
}
