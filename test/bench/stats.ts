// Figures shared by every bench section: nearest-rank percentiles and rounding.

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
