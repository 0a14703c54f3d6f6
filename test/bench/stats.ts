// Figures shared by every bench section: nearest-rank percentiles, rounding, the machine's CPU.
import fs from 'node:fs';

export type Print = (name: string, figures: Record<string, unknown>) => void;

/**
 * The p-th percentile by nearest rank: the smallest sample with at least p % of the samples at or
 * below it. Of 100 samples the p99 is the second largest, not the largest.
 */
export function pct(xs: number[], p: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)]!;
}

export const r1 = (x: number): number => Math.round(x * 10) / 10;
export const r2 = (x: number): number => Math.round(x * 100) / 100;

/** p50, p99 and max of a set of timings in ms, with how many there were. */
export function spread(xs: number[]): { p50: number; p99: number; max: number; n: number } {
  return { p50: r1(pct(xs, 50)), p99: r1(pct(xs, 99)), max: r1(Math.max(...xs)), n: xs.length };
}

/** The machine's CPU time so far (Linux /proc/stat, in ticks): busy and total, over every core; null elsewhere. */
export function cpuTicks(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.reduce((a, b) => a + b, 0);
    return { busy: total - f[3]! - (f[4] ?? 0), total }; // idle and iowait are not busy
  } catch {
    return null;
  }
}

/** How busy the machine's cores were between two readings, in % of all of them. */
export function busyPct(a: ReturnType<typeof cpuTicks>, b: ReturnType<typeof cpuTicks>): number | null {
  return a && b && b.total > a.total ? Math.round(((b.busy - a.busy) / (b.total - a.total)) * 100) : null;
}
