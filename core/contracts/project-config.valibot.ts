// A project's config as the client reads it (the stored config: unknown keys are kept).
import * as v from 'valibot';
import { PROJECT_MODES } from './vocabulary.ts';

const name = v.pipe(v.string(), v.minLength(1));
const list = <T extends v.GenericSchema<string>>(item: T) => v.optional(v.pipe(v.array(item), v.maxLength(100)));

export const ProjectConfigSchema = v.looseObject({
  cwd: v.optional(name),
  allowed_tools: list(name),
  permission_mode: v.optional(name),
  model: v.optional(name),
  extra_args: list(v.string()),
  extractor_args: list(v.string()),
  mode: v.optional(v.picklist(PROJECT_MODES)),
  orchestrator_tools: list(name),
  budget: v.optional(
    v.strictObject({
      per_task_usd: v.optional(v.pipe(v.number(), v.gtValue(0))),
      per_day_usd: v.optional(v.pipe(v.number(), v.minValue(0))),
    }),
  ),
  repo: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(4096))),
  base: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(255))),
  verify: v.optional(
    v.strictObject({
      command: v.pipe(v.array(name), v.minLength(1), v.maxLength(100)),
      timeout_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(86_400))),
      max_fix_attempts: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10))),
    }),
  ),
});
export type ProjectConfig = v.InferOutput<typeof ProjectConfigSchema>;
