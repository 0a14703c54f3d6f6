// The one error path: AppError carries a stable code and a 4xx status; onError renders
// {error: {code, message, details?}} and never leaks SQL or a stack.
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { isConnectionLoss } from '../core/db/errors.ts';

export class AppError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
  }
}

/** What a 503 database_unavailable asks the client to wait before trying again. */
export const RETRY_AFTER_SECONDS = 2;

/** SQLSTATEs that bad input can cause, mapped by name to an HTTP answer. */
const SQLSTATE: Record<string, [ContentfulStatusCode, string]> = {
  '23505': [409, 'conflict'],
  '23503': [404, 'not_found'],
  '23514': [400, 'invalid_input'],
  '22P02': [400, 'invalid_input'],
  '22001': [400, 'invalid_input'],
  '22021': [400, 'invalid_input'],
  '22P05': [400, 'invalid_input'],
  PD001: [409, 'append_only'],
  PD409: [409, 'already_decided'],
  PD400: [400, 'invalid_dependency'],
  '22023': [400, 'invalid_input'],
  P0002: [404, 'not_found'],
  '55000': [409, 'conflict'],
};

export function renderError(err: unknown, c: Context, onUnexpected: (e: unknown) => void): Response {
  if (err instanceof AppError) {
    return c.json({ error: { code: err.code, message: err.message, ...(err.details === undefined ? {} : { details: err.details }) } }, err.status);
  }
  if (err instanceof HTTPException) {
    const code = err.status === 413 ? 'payload_too_large' : err.status === 401 ? 'unauthorized' : 'bad_request';
    return c.json({ error: { code, message: err.message || 'bad request' } }, err.status);
  }
  const sqlstate = (err as { code?: unknown } | null)?.code;
  if (typeof sqlstate === 'string' && SQLSTATE[sqlstate]) {
    const [status, code] = SQLSTATE[sqlstate];
    const message = (err as { message?: string }).message ?? code;
    const details = sqlDetails(err);
    return c.json({ error: { code, message: message.split('\n')[0], ...(details === undefined ? {} : { details }) } }, status);
  }
  if (isConnectionLoss(err)) {
    // A write that met a lost connection may or may not have committed: the client decides, after a pause.
    return c.json(
      { error: { code: 'database_unavailable', message: 'the database connection was lost; retry shortly' } },
      503,
      { 'retry-after': String(RETRY_AFTER_SECONDS) },
    );
  }
  onUnexpected(err);
  return c.json({ error: { code: 'internal', message: 'internal error; see the server log' } }, 500);
}

/** A function of ours may put JSON in the error's DETAIL (the ids it refused): shown as details. */
function sqlDetails(err: unknown): unknown {
  const detail = (err as { detail?: unknown } | null)?.detail;
  if (typeof detail !== 'string' || !detail.startsWith('{')) return undefined;
  try {
    return JSON.parse(detail);
  } catch {
    return undefined;
  }
}
