// What every job gets: the runner context plus configuration and the MCP address; and the rows the
// jobs read (internal shapes, not wire shapes).
import { z } from 'zod';
import type { Config } from '../core/config.ts';
import type { RunnerContext } from './supervisor.ts';

export interface JobContext extends RunnerContext {
  config: Config;
  /** Where processes reach the dispatch MCP server. */
  mcpUrl: string;
  /** The environment the runner hands its children (the substrate's, and a project's check). */
  childEnv: NodeJS.ProcessEnv;
  /** The clock schedules fire by (tests move it on instead of waiting a minute); default: the real one. */
  now?: () => Date;
}

export const taskPayload = z.object({ task_id: z.string().uuid() });

export interface TaskRow {
  id: string;
  project_id: string;
  parent_id: string | null;
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
  stalled: boolean;
}
