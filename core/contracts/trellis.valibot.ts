// GET /api/trellis as the client reads it.
import * as v from 'valibot';

export const TrellisThreadSchema = v.looseObject({ id: v.union([v.string(), v.number()]), title: v.optional(v.string()) });
export type TrellisThread = v.InferOutput<typeof TrellisThreadSchema>;

export const TrellisViewSchema = v.variant('available', [
  v.object({
    available: v.literal(true),
    live_thread: v.nullable(TrellisThreadSchema),
    threads: v.array(TrellisThreadSchema),
    recent_context: v.array(v.unknown()),
  }),
  v.object({ available: v.literal(false), reason: v.string(), configured: v.optional(v.boolean()) }),
]);
export type TrellisView = v.InferOutput<typeof TrellisViewSchema>;
