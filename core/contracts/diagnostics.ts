// Crash and restart counts (SC-2): what a client reports when it crashes (POST
// /api/diagnostics/client-errors) and the per-day counts (GET /api/health/daily).
import { z } from '@hono/zod-openapi';

export const CLIENT_ERROR_KINDS = ['error', 'unhandled_rejection', 'stream'] as const;

/** POST /api/diagnostics/client-errors */
export const ClientErrorReport = z
  .object({
    /** An uncaught error, an unhandled promise rejection, or the event stream failing to reconnect past its limit. */
    kind: z.enum(CLIENT_ERROR_KINDS),
    message: z.string().min(1).max(2000),
    stack: z.string().max(8000).optional(),
    /** Script URL, line and column of an uncaught error. */
    source: z.string().max(2000).optional(),
    line: z.number().int().nonnegative().optional(),
    column: z.number().int().nonnegative().optional(),
    /** The client build that crashed. */
    app_version: z.string().min(1).max(64),
    /** The view on screen (the URL hash, e.g. #tasks). */
    view: z.string().max(200),
    user_agent: z.string().max(500).optional(),
    /** For kind stream: failed reconnects in a row. */
    attempts: z.number().int().nonnegative().optional(),
  })
  .strict()
  .openapi('ClientErrorReport');
export type ClientErrorReport = z.output<typeof ClientErrorReport>;

export const HealthDaySchema = z
  .object({
    /** The UTC day, YYYY-MM-DD. */
    day: z.string(),
    /** client_crashes + unclean_stops: the SC-2 figure (at most 5 a day). */
    crashes: z.number().int(),
    client_crashes: z.number().int(),
    /** Server or runner processes that ended without a clean stop (found at the next start). */
    unclean_stops: z.number().int(),
    /** Starts that followed an earlier start of the same process slot. */
    restarts: z.number().int(),
    starts: z.number().int(),
  })
  .openapi('HealthDay');

/** GET /api/health/daily: newest day first. */
export const HealthDailySchema = z.object({ days: z.array(HealthDaySchema) }).openapi('HealthDaily');
export type HealthDaily = z.output<typeof HealthDailySchema>;
