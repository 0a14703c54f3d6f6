// The journal rows this client holds: in seq order, each once, indexed by task and by project, and
// bounded. A floor per index says from which seq on the held rows are complete, so a view knows
// whether older rows exist on the server and where to page from (GET /api/events?before=floor).
import type { EventRow } from '../schemas.ts';

/** Rows held at most (a phone left open for a day stays at a few MB). */
export const JOURNAL_CAP = 20_000;
/** Rows dropped at once past the cap, so trimming is rare and amortised. */
const TRIM_SLACK = 2_000;
/**
 * Rows of the open task held at most while the person follows its newest rows: 5 000 lines are
 * hundreds of phone screens (well past what anyone scrolls through by hand; older ones page back in,
 * 300 at a time), and small beside the scope's window, so a worker printing all day costs the phone
 * no more than a quiet one. A live task prints ~50 lines/s at most: the window is ~100 s of its output.
 */
export const TASK_CAP = 5_000;
/** Rows of the open task dropped at once past its cap. */
const TASK_SLACK = 1_000;

function insertSorted(list: EventRow[], row: EventRow): void {
  const last = list.at(-1);
  if (!last || last.seq < row.seq) {
    list.push(row);
    return;
  }
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]!.seq < row.seq) lo = mid + 1;
    else hi = mid;
  }
  list.splice(lo, 0, row);
}

export class Journal {
  /** Every held row in seq order. */
  private all: EventRow[] = [];
  private ids = new Set<string>();
  private byTask = new Map<string, EventRow[]>();
  private byProject = new Map<string, EventRow[]>();
  /** Every row of the scope with seq >= floor is held (0: back to the journal's start). */
  private floorAll = 0;
  private taskFloors = new Map<string, number>();
  /** A task whose rows survive the scope's trimming (the one open on screen). */
  private kept: string | null = null;
  /**
   * Whether the person follows the kept task's newest rows (its view pinned to the bottom): then its
   * rows are bounded to a window of the newest {@link TASK_CAP}; while they read older rows, none of
   * its rows are dropped.
   */
  private following = true;
  /** Other rows that survive trimming (the conversation on screen, however far back it was paged). */
  private spared: ((row: EventRow) => boolean) | null = null;
  /** Rows below this seq may have been dropped by trimming (but the kept and spared ones). */
  private cutAt = 0;
  /** Bumped on every change, so selectors can memoise on it. */
  version = 0;

  constructor(
    private readonly cap = JOURNAL_CAP,
    private readonly taskCap = TASK_CAP,
  ) {}

  get size(): number {
    return this.all.length;
  }

  has(eventId: string): boolean {
    return this.ids.has(eventId);
  }

  /** Adds rows (any order, duplicates ignored); returns the ones that were new, in seq order. */
  add(rows: readonly EventRow[]): EventRow[] {
    const fresh: EventRow[] = [];
    const sorted = rows.length > 1 ? [...rows].sort((a, b) => a.seq - b.seq) : rows;
    for (const row of sorted) {
      if (this.ids.has(row.event_id)) continue;
      this.ids.add(row.event_id);
      insertSorted(this.all, row);
      if (row.task_id) {
        let l = this.byTask.get(row.task_id);
        if (!l) this.byTask.set(row.task_id, (l = []));
        insertSorted(l, row);
      }
      if (row.project_id) {
        let l = this.byProject.get(row.project_id);
        if (!l) this.byProject.set(row.project_id, (l = []));
        insertSorted(l, row);
      }
      fresh.push(row);
    }
    if (fresh.length) {
      this.version++;
      this.bound();
    }
    return fresh;
  }

  /** All held rows of the scope from the floor on (older sparse rows, e.g. a chat page, left out). */
  rows(): readonly EventRow[] {
    return this.floorAll ? this.all.slice(this.lowerBound(this.all, this.floorAll)) : this.all;
  }

  /** Held rows of one project (sparse below the floor). */
  project(id: string): readonly EventRow[] {
    return this.byProject.get(id) ?? [];
  }

  /** Held rows of one task, complete from its floor on. */
  task(id: string): readonly EventRow[] {
    const l = this.byTask.get(id) ?? [];
    const f = this.taskFloor(id);
    return f ? l.slice(this.lowerBound(l, f)) : l;
  }

  /** From which seq on the scope's rows are complete (0: all of them). */
  get floor(): number {
    return this.floorAll;
  }

  set floor(seq: number) {
    this.floorAll = seq;
    this.version++;
  }

  taskFloor(id: string): number {
    return this.taskFloors.get(id) ?? this.floorAll;
  }

  setTaskFloor(id: string, seq: number): void {
    this.taskFloors.set(id, seq);
    this.version++;
  }

  /** Keeps one task's rows through the scope's trimming (null: none); it opens followed at its newest rows. */
  keep(taskId: string | null): void {
    if (taskId && !this.taskFloors.has(taskId)) this.taskFloors.set(taskId, this.floorAll);
    this.kept = taskId;
    this.following = true;
  }

  /**
   * The person follows the kept task's newest rows (true), or reads older ones (false). Back at the
   * newest rows, what was paged in meanwhile (and what streamed in) is trimmed to the window at once.
   */
  follow(on: boolean): void {
    if (this.following === on) return;
    this.following = on;
    this.bound();
  }

  /** Keeps the rows that match through trimming, whatever their seq (null: none). */
  spare(match: ((row: EventRow) => boolean) | null): void {
    this.spared = match;
  }

  /** Below which seq rows may have been trimmed: a sparse index held below it (a chat) is complete only from here on. */
  get trimmed(): number {
    return this.cutAt;
  }

  clear(): void {
    this.all = [];
    this.ids.clear();
    this.byTask.clear();
    this.byProject.clear();
    this.taskFloors.clear();
    this.floorAll = 0;
    this.cutAt = 0;
    this.version++;
  }

  private lowerBound(list: readonly EventRow[], seq: number): number {
    let lo = 0;
    let hi = list.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (list[mid]!.seq < seq) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Trims when past a cap: the scope's rows (but the kept task's), then the kept task's while it is followed. */
  private bound(): void {
    // The kept task's rows do not count here (they do not go): a long one read far back would trim at every row.
    const kept = this.kept ? (this.byTask.get(this.kept)?.length ?? 0) : 0;
    if (this.all.length - kept > this.cap + TRIM_SLACK) this.trim();
    const l = this.kept && this.following ? this.byTask.get(this.kept) : undefined;
    // Below its newest TASK_CAP rows everything goes (but the spared rows), so every floor stays true.
    if (l && l.length > this.taskCap + TASK_SLACK) this.cut(l[l.length - this.taskCap]!.seq, null);
  }

  /** Whether a row survives trimming: task `kept`'s, or a spared one. */
  private keeps(kept: string | null): (r: EventRow) => boolean {
    const spared = this.spared;
    return (r) => (!!kept && r.task_id === kept) || (!!spared && spared(r));
  }

  /** Drops the oldest rows (but the kept task's and the spared ones) down to the cap, and raises the floors to match. */
  private trim(): void {
    const kept = this.kept;
    const keeps = this.keeps(kept);
    const excess = this.all.length - this.cap;
    let dropped = 0;
    let cut = 0;
    for (const r of this.all) {
      if (dropped >= excess) break;
      if (!keeps(r)) {
        dropped++;
        cut = r.seq + 1;
      }
    }
    this.cut(cut, kept);
  }

  /** Drops the rows below seq `cut` (but those of task `kept` and the spared ones), and raises the floors to match. */
  private cut(cut: number, kept: string | null): void {
    const keeps = this.keeps(kept);
    const stays = (r: EventRow) => r.seq >= cut || keeps(r);
    this.all = this.all.filter((r) => {
      if (stays(r)) return true;
      this.ids.delete(r.event_id);
      return false;
    });
    for (const [k, l] of this.byTask) {
      if (k === kept) continue;
      const i = this.lowerBound(l, cut);
      if (i === l.length) this.byTask.delete(k);
      else if (i) this.byTask.set(k, l.slice(i));
    }
    for (const [k, l] of this.byProject) {
      const rest = l.filter(stays);
      if (rest.length) this.byProject.set(k, rest);
      else this.byProject.delete(k);
    }
    this.floorAll = Math.max(this.floorAll, cut);
    this.cutAt = Math.max(this.cutAt, cut);
    for (const [k, f] of this.taskFloors) if (k !== kept) this.taskFloors.set(k, Math.max(f, cut));
    this.version++;
  }
}
