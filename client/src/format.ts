// Small formatting helpers shared by the views.
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '—';
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  const h = Math.floor(m / 60);
  return `${h}h ${String(m % 60).padStart(2, '0')}m`;
}

export function ago(iso: string | null | undefined, now: number): string {
  if (!iso) return '—';
  return `${duration(now - Date.parse(iso))} ago`;
}

export function elapsed(start: string | null, end: string | null, now: number): number | null {
  if (!start) return null;
  return (end ? Date.parse(end) : now) - Date.parse(start);
}

export function clip(text: string, n = 160): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
}
