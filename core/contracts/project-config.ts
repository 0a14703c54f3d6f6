// How a project's processes run (projects.config, jsonb). One definition serves both readers: the
// HTTP API validates POST /api/projects with it (unknown keys refused), and the jobs read the stored
// config with it (keys added from psql are kept, a config that does not fit counts as empty).
// Flat keys as documented in the README; the substrate turns them into its own options.
import { z } from '@hono/zod-openapi';
import { PROJECT_MODES } from './vocabulary.ts';

const fields = {
  /**
   * Working directory of the project's processes (default DISPATCH_DATA_DIR/work/<project id>): an
   * existing, writable directory, never created for it (core/workdir.ts checks it).
   */
  cwd: z.string().min(1).optional(),
  /** Tools a worker may use without asking. */
  allowed_tools: z.array(z.string().min(1)).max(100).optional(),
  permission_mode: z.string().min(1).optional(),
  model: z.string().min(1).optional(),
  /** Extra substrate arguments for workers, passed through as given. */
  extra_args: z.array(z.string()).max(100).optional(),
  /** Extra substrate arguments for the extractor. */
  extractor_args: z.array(z.string()).max(100).optional(),
  /** interactive: the user approves each advance; autonomous: handoffs wake the orchestrator. */
  mode: z.enum(PROJECT_MODES).optional(),
  /** Tools the orchestrator may use besides the dispatch tools. */
  orchestrator_tools: z.array(z.string().min(1)).max(100).optional(),
  /** Spend limits in US dollars (the substrate's own estimate): per worker run, and per UTC day for the project. */
  budget: z
    .object({ per_task_usd: z.number().positive().optional(), per_day_usd: z.number().nonnegative().optional() })
    .strict()
    .optional(),
  /** A local git repository: each task attempt then works in its own worktree of it. */
  repo: z.string().min(1).max(4096).optional(),
  /** The branch worktrees start from and merges go into (default: the repository's current branch). */
  base: z.string().min(1).max(255).optional(),
  /** The project's own check, run by the system after every worker that exits clean (docs/execution-loop.md). */
  verify: z
    .object({
      /** An argument array, never through a shell of ours (`["sh", "-c", "…"]` when a shell is wanted). */
      command: z.array(z.string().min(1, 'an argument is never empty')).min(1, 'name at least the program').max(100),
      /** Killed (its whole process group) after this many seconds (default 600). */
      timeout_s: z.number().int().min(1).max(86_400).optional(),
      /** How many times a failing check goes back to the worker before the task ends failed (default 2). */
      max_fix_attempts: z.number().int().min(0).max(10).optional(),
    })
    .strict()
    .optional(),
};

/** The check's defaults. */
export const VERIFY_DEFAULTS = { timeout_s: 600, max_fix_attempts: 2 } as const;

/** The config as a client may send it: unknown keys are refused. */
export const ProjectConfigInput = z.object(fields).strict().openapi('ProjectConfigInput');

/** The config as stored and served: keys added from psql are kept. */
export const ProjectConfigSchema = z.object(fields).passthrough().openapi('ProjectConfig');
export type ProjectConfig = z.output<typeof ProjectConfigSchema>;

/** Reads a stored config; throws on one that does not fit. */
export function parseProjectConfig(raw: unknown): ProjectConfig {
  return ProjectConfigSchema.parse(raw ?? {});
}

/** Reads a stored config; one that does not fit counts as empty (every default applies). */
export function projectConfigOrDefault(raw: unknown): ProjectConfig {
  const parsed = ProjectConfigSchema.safeParse(raw ?? {});
  return parsed.success ? parsed.data : {};
}
