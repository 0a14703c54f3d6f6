// The Trellis read surface (FR-012, D-22): the live thread, its identity and recent context, read
// over HTTP from TRELLIS_URL. Read-only. Down, slow (1 s budget) or misconfigured → {available:
// false, reason} quickly, and nothing else waits on it.
import { z } from 'zod';
import { TrellisThreadSchema as Thread, type TrellisView } from '../core/contracts/trellis.ts';

export type { TrellisView };

const ThreadList = z.union([z.array(Thread), z.object({ threads: z.array(Thread) }).transform((o) => o.threads)]);
const Detail = Thread.extend({ recent_context: z.array(z.unknown()).optional(), context: z.array(z.unknown()).optional() });

export const routesSchema = z.object({
  live: z.string().default('/threads/live'),
  list: z.string().default('/threads'),
  detail: z.string().default('/threads/{id}'),
});
export type TrellisRoutes = z.infer<typeof routesSchema>;

export interface TrellisOptions {
  url?: string;
  routes?: Partial<TrellisRoutes>;
  timeoutMs?: number;
}

export async function readTrellis(opts: TrellisOptions): Promise<TrellisView> {
  if (!opts.url) return { available: false, reason: 'not configured (set TRELLIS_URL)' };
  const routes = routesSchema.parse(opts.routes ?? {});
  const signal = AbortSignal.timeout(opts.timeoutMs ?? 1000);
  const get = async (route: string) => {
    const res = await fetch(new URL(route, opts.url), { signal, headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${route}`);
    return (await res.json()) as unknown;
  };
  try {
    const [live, list] = await Promise.all([get(routes.live), get(routes.list)]);
    const liveThread = live === null ? null : Thread.parse(live);
    const threads = ThreadList.parse(list).slice(0, 50);
    let recent: unknown[] = [];
    if (liveThread) {
      const detail = Detail.parse(await get(routes.detail.replace('{id}', encodeURIComponent(String(liveThread.id)))));
      recent = (detail.recent_context ?? detail.context ?? []).slice(-20);
    }
    return { available: true, live_thread: liveThread, threads, recent_context: recent };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return { available: false, reason: `timed out after ${opts.timeoutMs ?? 1000} ms` };
    if (e instanceof z.ZodError) return { available: false, reason: 'unexpected answer from Trellis' };
    return { available: false, reason: e.cause?.code ? `unreachable (${e.cause.code})` : e.message };
  }
}
