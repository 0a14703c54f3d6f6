// What runs cost, for the views: today's spend and tokens per project, each task's cost, 14 days of
// spend per day, and the account's quota state. Loaded from GET /api/usage and /api/quota, and
// reloaded when a usage, quota or budget row (or a session's end) arrives on the journal stream, so
// it updates live when a run ends. Kept apart from the store so the components embed anywhere.
import { api } from './api.ts';
import { QuotaStateSchema, UsageReportSchema, type QuotaState, type UsageReport, type UsageTotals } from './schemas.ts';
import type { Store } from './store.ts';

const DAY = 86_400_000;
const RELOAD_ON = ['usage.recorded', 'quota.limited', 'budget.reached', 'budget.released', 'session.exited'];
const EMPTY: UsageTotals = { cost_usd: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, sessions: 0 };

/** The UTC day of a time, as the API keys days (YYYY-MM-DD). */
export const utcDay = (t: number) => new Date(t).toISOString().slice(0, 10);

/** All the tokens of a usage row (input, output and both kinds of cache). */
export const tokensOf = (u: UsageTotals) => u.input_tokens + u.output_tokens + u.cache_read_tokens + u.cache_creation_tokens;

/** Dollars for people: $0.42, $12.30, $1.2 k; below a cent "<$0.01"; nothing spent "$0.00". */
export function money(usd: number): string {
  if (usd === 0) return '$0.00';
  if (usd < 0.01) return '<$0.01';
  if (usd >= 1000) return `$${(usd / 1000).toFixed(1)} k`;
  return `$${usd.toFixed(2)}`;
}

/** Token counts for people: 950 tokens, 12 k tokens, 1.2 M tokens. */
export function tokens(n: number): string {
  if (n < 1000) return `${n} tokens`;
  if (n < 1_000_000) return `${n < 10_000 ? (n / 1000).toFixed(1) : Math.round(n / 1000)} k tokens`;
  return `${n < 10_000_000 ? (n / 1_000_000).toFixed(1) : Math.round(n / 1_000_000)} M tokens`;
}

export class UsageState extends EventTarget {
  /** Today's (UTC) usage per project id, and for all projects. */
  today = new Map<string, UsageTotals>();
  todayAll: UsageTotals = EMPTY;
  /** Cost of each task that ran in the last 14 days. */
  tasks = new Map<string, UsageTotals>();
  /** Spend per UTC day for the last 14 days, per project id ('' = all). */
  days = new Map<string, { day: string; cost_usd: number }[]>();
  quota: QuotaState | null = null;
  error: string | null = null;
  private seenSeq = 0;
  private loading: Promise<void> | null = null;
  private again = false;
  /** The reload a new row asked for, a moment later (rows come in bursts). */
  private timer: ReturnType<typeof setTimeout> | undefined;
  /**
   * The reload at the moment the quota lifts. Its own timer: sharing the one above, a load that
   * found the account limited cancelled a reload asked for meanwhile (a task starting to wait),
   * and "N tasks waiting" stayed short until the minute's poll.
   */
  private liftTimer: ReturnType<typeof setTimeout> | undefined;
  private users = 0;
  private detach: (() => void) | null = null;
  private store: Store | null = null;
  private deferred: Promise<void> | null = null;

  /** Follows the store while at least one component uses it. */
  use(store: Store): () => void {
    if (this.users++ === 0) this.detach = this.attach(store);
    return () => {
      if (--this.users === 0) {
        this.detach?.();
        this.detach = null;
      }
    };
  }

  private attach(store: Store): () => void {
    this.store = store;
    const onChange = () => {
      let fresh = false;
      const rows = store.events;
      for (let i = rows.length - 1; i >= 0; i--) {
        const row = rows[i]!;
        if (row.seq <= this.seenSeq) break;
        if (RELOAD_ON.includes(row.event_type) || this.changesWaiting(row)) fresh = true;
      }
      this.seenSeq = Math.max(this.seenSeq, rows.at(-1)?.seq ?? 0);
      if (fresh) this.soon();
    };
    store.addEventListener('change', onChange);
    this.seenSeq = store.events.at(-1)?.seq ?? 0;
    void this.load();
    // A new day, and a quota that lifts, change what is shown with no row arriving.
    const poll = setInterval(() => void this.load(), 60_000);
    return () => {
      store.removeEventListener('change', onChange);
      clearInterval(poll);
      clearTimeout(this.timer);
      clearTimeout(this.liftTimer);
    };
  }

  /**
   * A task starting or ending its wait for the quota changes the quota's "N tasks waiting": its
   * status row says so (reason "waiting: rate limited …"), and while the account is limited any
   * status change may take a task out of the wait.
   */
  private changesWaiting(row: { event_type: string; payload: unknown }): boolean {
    if (row.event_type !== 'task.status_changed') return false;
    const reason = (row.payload as { reason?: unknown } | null)?.reason;
    return !!this.quota?.limited || (typeof reason === 'string' && reason.startsWith('waiting: rate limited'));
  }

  private soon(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.load(), 250);
  }

  /** Reloads everything (one request set at a time; a reload asked meanwhile runs after it). */
  load(): Promise<void> {
    // Before the store has opened, every ask (the header, each task's cost, the chart picking its
    // project) becomes one load after it: a task later (setTimeout), once the views it opened have
    // rendered and said which project the chart wants.
    if (this.store && !this.store.loaded) {
      this.deferred ??= this.store.opened
        .then(() => new Promise((r) => setTimeout(r)))
        .then(() => {
          this.deferred = null;
          // One already started after the open (the chart's) is the load asked for.
          return this.loading ?? this.load();
        });
      return this.deferred;
    }
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    // What this load reads reflects every row up to the store's seq: only rows above it (live ones,
    // not the history the open pages in) call for another.
    if (this.store) this.seenSeq = Math.max(this.seenSeq, this.store.seq);
    this.loading = (async () => {
      try {
        const now = Date.now();
        const today = `${utcDay(now)}T00:00:00.000Z`;
        const from = `${utcDay(now - 13 * DAY)}T00:00:00.000Z`;
        const [byProject, byTask, byDay, perProjectDay, quota] = await Promise.all([
          api(UsageReportSchema, `/api/usage?group=project&since=${today}`),
          api(UsageReportSchema, `/api/usage?group=task&since=${from}`),
          api(UsageReportSchema, `/api/usage?group=day&since=${from}`),
          this.projectDays(from),
          api(QuotaStateSchema, '/api/quota'),
        ]);
        this.today = new Map(byProject.rows.map((r) => [r.key, r]));
        this.todayAll = byProject.total;
        this.tasks = new Map(byTask.rows.filter((r) => r.key).map((r) => [r.key, r]));
        this.days = new Map([['', fill(byDay, now)], ...perProjectDay]);
        this.quota = quota;
        this.error = null;
        if (quota.limited && quota.until) {
          // Show the lift at the moment it happens.
          clearTimeout(this.liftTimer);
          this.liftTimer = setTimeout(() => void this.load(), Math.max(0, Date.parse(quota.until) - Date.now()) + 500);
        }
      } catch (err) {
        this.error = (err as Error).message;
      } finally {
        this.loading = null;
        this.dispatchEvent(new Event('change'));
        if (this.again) {
          this.again = false;
          void this.load();
        }
      }
    })();
    return this.loading;
  }

  /** The chart's project, when one is picked (the chart asks for it). */
  chartProject = '';

  private async projectDays(from: string): Promise<[string, { day: string; cost_usd: number }[]][]> {
    if (!this.chartProject) return [];
    const r = await api(UsageReportSchema, `/api/usage?group=day&since=${from}&project_id=${this.chartProject}`);
    return [[this.chartProject, fill(r, Date.now())]];
  }

  /** Today's usage of a project ('' = all projects). */
  todayOf(project: string): UsageTotals {
    return project ? (this.today.get(project) ?? EMPTY) : this.todayAll;
  }
}

/** 14 days, oldest first, with the days nothing ran at $0. */
function fill(r: UsageReport, now: number): { day: string; cost_usd: number }[] {
  const by = new Map(r.rows.map((x) => [x.key, x.cost_usd]));
  return Array.from({ length: 14 }, (_, i) => {
    const day = utcDay(now - (13 - i) * DAY);
    return { day, cost_usd: by.get(day) ?? 0 };
  });
}

export const usageState = new UsageState();
