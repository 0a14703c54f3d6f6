// GET /api/trellis: the live Trellis thread, the thread list and recent context, or why not.
import { z } from '@hono/zod-openapi';

/** A Trellis thread: its id, maybe a title, and whatever else Trellis says about it. */
export const TrellisThreadSchema = z
  .object({ id: z.union([z.string(), z.number()]), title: z.string().optional() })
  .passthrough()
  .openapi('TrellisThread');
export type TrellisThread = z.output<typeof TrellisThreadSchema>;

export const TrellisViewSchema = z
  .discriminatedUnion('available', [
    z.object({
      available: z.literal(true),
      live_thread: TrellisThreadSchema.nullable(),
      threads: z.array(TrellisThreadSchema),
      recent_context: z.array(z.unknown()),
    }),
    /** configured: false when TRELLIS_URL is unset (a client then shows no Trellis at all). */
    z.object({ available: z.literal(false), reason: z.string(), configured: z.boolean().optional() }),
  ])
  .openapi('TrellisView');
export type TrellisView = z.output<typeof TrellisViewSchema>;
