// Requests that carry a body must say it is JSON: otherwise 415, never a guess (Hono would
// silently validate an empty object).
import type { MiddlewareHandler } from 'hono';
import { AppError } from '../errors.ts';

export function jsonOnly(): MiddlewareHandler {
  return async function requireJson(c, next) {
    if (c.req.method === 'POST' || c.req.method === 'PUT' || c.req.method === 'PATCH') {
      const type = c.req.header('content-type');
      const hasBody = c.req.raw.body !== null && c.req.header('content-length') !== '0';
      if ((type !== undefined || hasBody) && !/^application\/json\b/i.test(type ?? '')) {
        throw new AppError(415, 'unsupported_media_type', 'send the body as Content-Type: application/json');
      }
    }
    await next();
  };
}
