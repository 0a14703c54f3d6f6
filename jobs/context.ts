// What every job gets: the runner context plus configuration and the children's environment.
import { z } from 'zod';
import type { Config } from '../core/config.ts';
import type { RunnerContext } from './supervisor.ts';

export interface JobContext extends RunnerContext {
  config: Config;
  /** The environment handed to claude processes (ours, passed through). */
  childEnv: NodeJS.ProcessEnv;
  claudeBin: string;
  /** Where claude processes reach the dispatch MCP server. */
  mcpUrl: string;
}

/** Per-project settings for the processes it runs (projects.config). */
export const projectConfigSchema = z
  .object({
    cwd: z.string().min(1).optional(),
    allowed_tools: z.array(z.string().min(1)).optional(),
    permission_mode: z.string().min(1).optional(),
    model: z.string().min(1).optional(),
    extra_args: z.array(z.string()).optional(),
    extractor_args: z.array(z.string()).optional(),
    /** interactive: the user approves each advance; autonomous: handoffs wake the orchestrator. */
    mode: z.enum(['interactive', 'autonomous']).optional(),
    orchestrator_tools: z.array(z.string().min(1)).optional(),
  })
  .passthrough();
export type ProjectConfig = z.infer<typeof projectConfigSchema>;

export const taskPayload = z.object({ task_id: z.string().uuid() });

export interface TaskRow {
  id: string;
  project_id: string;
  brief: string;
  approach: string | null;
  attempt: number;
  status: string;
  status_reason: string | null;
  ended_at: Date | null;
  cancel_requested_at: Date | null;
  project_config: unknown;
}

export interface SessionRow {
  id: string;
  project_id: string;
  task_id: string | null;
  role: string;
  status: string;
  pid: number | null;
  host: string | null;
  spool_path: string | null;
  started_at: Date | null;
  ended_at: Date | null;
  attempt: number | null;
}
