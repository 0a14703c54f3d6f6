// Statuses of tasks and sessions. The list and what each status means live in the table
// dispatch.statuses (sql/migrations); GET /api/state carries the table, so clients need no list.
// STATUS_NAMES is TypeScript's typed view of that table: test/core/contracts/status.test.ts fails
// when the two disagree.
import { z } from '@hono/zod-openapi';

export const STATUS_NAMES = [
  'queued',
  'running',
  'stalled',
  'success',
  'failed',
  'crashed',
  'cancelled',
  'rate_limited',
  'partial',
  'skipped',
  'gated',
  'extraction_failed',
  'held',
] as const;
export type Status = (typeof STATUS_NAMES)[number];

/** One row of dispatch.statuses: what a status means for the views, the loop and push. */
export const StatusRowSchema = z
  .object({
    name: z.string(),
    /** The work is over (ended_at is set). */
    terminal: z.boolean(),
    /** Over and done right (success). */
    clean: z.boolean(),
    /** Shown as trouble (coloured, pulsing). */
    alarming: z.boolean(),
    /** Counted as a failure in a project's rollup. */
    failure: z.boolean(),
    /** Counted as blocked in a project's rollup. */
    blocking: z.boolean(),
    /** A person has to look (escalated to the user). */
    needs_user: z.boolean(),
    /** Reaching it is a push moment. */
    notifies: z.boolean(),
    description: z.string(),
  })
  .openapi('StatusRow');
export type StatusRow = z.output<typeof StatusRowSchema>;
