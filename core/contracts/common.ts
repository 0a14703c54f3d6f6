// Building blocks of the server's contracts (zod, with OpenAPI names).
import { z } from '@hono/zod-openapi';

export const Uuid = z.string().uuid();
/** A point in time as the API writes it: ISO 8601 in UTC with milliseconds (`…T10:00:00.123Z`). */
export const Timestamp = z.string();
export const Seq = z.number().int();

/** The one error shape of every 4xx/5xx answer. */
export const ErrorBody = z
  .object({
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }),
  })
  .openapi('Error');
export type ErrorBody = z.output<typeof ErrorBody>;
