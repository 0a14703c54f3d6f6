// What one run cost, as the client reads it.
import * as v from 'valibot';

const tokens = v.pipe(v.number(), v.integer(), v.minValue(0));

export const UsageSchema = v.object({
  cost_usd: v.nullable(v.pipe(v.number(), v.minValue(0))),
  input_tokens: tokens,
  output_tokens: tokens,
  cache_read_tokens: tokens,
  cache_creation_tokens: tokens,
  models: v.array(v.string()),
});
export type Usage = v.InferOutput<typeof UsageSchema>;
