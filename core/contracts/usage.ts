// What one run cost, as its substrate reported it in the final result (the CLI's own estimate).
import { z } from '@hono/zod-openapi';

const tokens = z.number().int().nonnegative();

export const UsageSchema = z
  .object({
    cost_usd: z.number().nonnegative().nullable(),
    input_tokens: tokens,
    output_tokens: tokens,
    cache_read_tokens: tokens,
    cache_creation_tokens: tokens,
    /** The models that answered. */
    models: z.array(z.string()),
  })
  .openapi('Usage');
export type Usage = z.output<typeof UsageSchema>;
