// Talking to the server: JSON requests with the saved token, answers checked with valibot, and
// failures turned into one readable message.
import * as v from 'valibot';
import { ErrorSchema } from './schemas.ts';

const TOKEN_KEY = 'pd.token';

export function authHeaders(): Record<string, string> {
  const token = localStorage.getItem(TOKEN_KEY);
  return token ? { authorization: `Bearer ${token}` } : {};
}

export function setToken(token: string | null): void {
  if (token) localStorage.setItem(TOKEN_KEY, token);
  else localStorage.removeItem(TOKEN_KEY);
  // The service worker (gate decisions from a notification) holds its own copy.
  void navigator.serviceWorker?.ready.then((reg) => reg.active?.postMessage({ type: 'pd-token', token })).catch(() => {});
}

/** The message of a request that never reached the server (no network, or the server is down). */
export const UNREACHABLE = 'The server cannot be reached.';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export async function api<S extends v.GenericSchema>(schema: S, path: string, init: { method?: string; body?: unknown } = {}): Promise<v.InferOutput<S>> {
  let res: Response;
  try {
    res = await fetch(path, {
      method: init.method ?? 'GET',
      headers: { ...authHeaders(), ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
  } catch {
    throw new ApiError(0, 'offline', UNREACHABLE);
  }
  const body: unknown = await res.json().catch(() => null);
  if (!res.ok) {
    const e = v.safeParse(ErrorSchema, body);
    throw new ApiError(res.status, e.success ? e.output.error.code : 'http_error', e.success ? e.output.error.message : `HTTP ${res.status}`);
  }
  const parsed = v.safeParse(schema, body);
  if (!parsed.success) throw new ApiError(res.status, 'bad_answer', `Unexpected answer from ${path}`);
  return parsed.output;
}
