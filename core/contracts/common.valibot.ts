// Building blocks of the client's contracts (valibot; never imports zod, so the bundle stays small).
import * as v from 'valibot';

export const Uuid = v.pipe(v.string(), v.uuid());
export const Timestamp = v.string();
export const Seq = v.pipe(v.number(), v.integer());

export const ErrorBody = v.object({
  error: v.object({ code: v.string(), message: v.string(), details: v.optional(v.unknown()) }),
});
export type ErrorBody = v.InferOutput<typeof ErrorBody>;
