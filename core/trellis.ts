// The Trellis read surface (FR-012, D-22): the live thread, the thread list and a thread's recent
// context, read over HTTP from TRELLIS_URL. Read-only. Down, slow (1 s budget) or misconfigured →
// {available: false, reason} quickly, and nothing else waits on it. Used by GET /api/trellis, the
// MCP server's Trellis tools and the orchestrator's turn prompt.
import { z } from 'zod';
import { TrellisThreadSchema as Thread, type TrellisThread, type TrellisView } from './contracts/trellis.ts';

export type { TrellisThread, TrellisView };

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

export type Unavailable = { available: false; reason: string; configured?: boolean };
type Answer<T> = ({ available: true } & T) | Unavailable;

const MAX_THREADS = 50;
const MAX_CONTEXT = 20;

/** The options for a configuration's TRELLIS_URL and TRELLIS_ROUTES. */
export function trellisOptions(config: { TRELLIS_URL?: string; TRELLIS_ROUTES?: Record<string, string> }): TrellisOptions {
  return { url: config.TRELLIS_URL, routes: config.TRELLIS_ROUTES };
}

/** Runs `read` with one budget for all its requests; any failure becomes {available: false, reason}. */
async function ask<T extends object>(opts: TrellisOptions, read: (get: (route: string) => Promise<unknown>, routes: TrellisRoutes) => Promise<T>): Promise<Answer<T>> {
  if (!opts.url) return { available: false, reason: 'not configured (set TRELLIS_URL)', configured: false };
  const url = opts.url;
  const routes = routesSchema.parse(opts.routes ?? {});
  const timeoutMs = opts.timeoutMs ?? 1000;
  const signal = AbortSignal.timeout(timeoutMs);
  const get = async (route: string) => {
    const res = await fetch(new URL(route, url), { signal, headers: { accept: 'application/json' } });
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${route}`);
    return (await res.json()) as unknown;
  };
  try {
    return { available: true, ...(await read(get, routes)) };
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    if (e.name === 'TimeoutError' || e.name === 'AbortError') return { available: false, reason: `timed out after ${timeoutMs} ms` };
    if (e instanceof z.ZodError) return { available: false, reason: 'unexpected answer from Trellis' };
    return { available: false, reason: e.cause?.code ? `unreachable (${e.cause.code})` : e.message };
  }
}

const detailRoute = (routes: TrellisRoutes, id: string | number) => routes.detail.replace('{id}', encodeURIComponent(String(id)));

async function contextOf(get: (route: string) => Promise<unknown>, routes: TrellisRoutes, id: string | number): Promise<unknown[]> {
  const detail = Detail.parse(await get(detailRoute(routes, id)));
  return (detail.recent_context ?? detail.context ?? []).slice(-MAX_CONTEXT);
}

/**
 * The whole view: the live thread, the thread list and the recent context of `contextOf` (a thread
 * the user focused) or, without it, of the live thread.
 */
export function readTrellis(opts: TrellisOptions, contextThread?: string | number): Promise<TrellisView> {
  return ask(opts, async (get, routes) => {
    const [live, list] = await Promise.all([get(routes.live), get(routes.list)]);
    const liveThread = live === null ? null : Thread.parse(live);
    const threads = ThreadList.parse(list).slice(0, MAX_THREADS);
    const id = contextThread ?? liveThread?.id;
    // A focused thread Trellis no longer knows (404) has no context; Trellis itself is still up.
    const recent = id === undefined ? [] : await contextOf(get, routes, id).catch((e: Error) => {
      if (contextThread !== undefined && /^HTTP 404 /.test(e.message)) return [];
      throw e;
    });
    return { live_thread: liveThread, threads, recent_context: recent };
  });
}

/** The live thread alone (null when Trellis has none). */
export function readLiveThread(opts: TrellisOptions): Promise<Answer<{ live_thread: TrellisThread | null }>> {
  return ask(opts, async (get, routes) => {
    const live = await get(routes.live);
    return { live_thread: live === null ? null : Thread.parse(live) };
  });
}

/** The thread list (at most 50). */
export function readThreads(opts: TrellisOptions): Promise<Answer<{ threads: TrellisThread[] }>> {
  return ask(opts, async (get, routes) => ({ threads: ThreadList.parse(await get(routes.list)).slice(0, MAX_THREADS) }));
}

/** The recent context of a thread, or of the live one; thread_id null when there is no live thread. */
export function readContext(opts: TrellisOptions, threadId?: string | number): Promise<Answer<{ thread_id: string | number | null; recent_context: unknown[] }>> {
  return ask(opts, async (get, routes) => {
    let id = threadId;
    if (id === undefined) {
      const live = await get(routes.live);
      id = live === null ? undefined : Thread.parse(live).id;
    }
    return { thread_id: id ?? null, recent_context: id === undefined ? [] : await contextOf(get, routes, id) };
  });
}
