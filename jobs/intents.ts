// What each role's process is for, as intents (jobs/substrate/port.ts): a project's config and the
// runner's configuration become prompts, tools, limits and pass-through arguments — never flags.
import type { ProjectConfig } from '../core/contracts/project-config.ts';
import type { Config } from '../core/config.ts';
import type { Intent } from './substrate/port.ts';
import { defaultWorkdir } from '../core/workdir.ts';

/** The dispatch MCP server's tools an orchestrator may call. */
export const ORCHESTRATOR_TOOLS = ['get_project_state', 'get_handoffs', 'check_ruled_out', 'spawn_worker'];

/** The read-only Trellis tools, offered too when TRELLIS_URL is set (functions/mcp-trellis.ts). */
export const ORCHESTRATOR_TRELLIS_TOOLS = ['trellis_live_thread', 'trellis_threads', 'trellis_context'];

/** The project's working directory: its config's cwd, else DISPATCH_DATA_DIR/work/<project id>. */
export function projectCwd(dataDir: string, projectId: string, pc: ProjectConfig): string {
  return pc.cwd ?? defaultWorkdir(dataDir, projectId);
}

/** The worker's prompt: the brief verbatim, then the approach it was given. */
export function workerPrompt(task: { brief: string; approach: string | null }): string {
  return task.approach ? `${task.brief}\n\nApproach: ${task.approach}` : task.brief;
}

/** A one-shot worker on a task's brief (CLAUDE_ARGS, then the project's extra_args, pass through). */
export function workerIntent(task: { brief: string; approach: string | null }, pc: ProjectConfig, cwd: string, config: Pick<Config, 'CLAUDE_ARGS'>): Intent {
  return {
    role: 'worker',
    prompt: workerPrompt(task),
    cwd,
    tools: pc.allowed_tools,
    permissionMode: pc.permission_mode,
    model: pc.model,
    ...(pc.budget?.per_task_usd !== undefined ? { limits: { maxBudgetUsd: pc.budget.per_task_usd } } : {}),
    extraArgs: [...(config.CLAUDE_ARGS ?? []), ...(pc.extra_args ?? [])],
  };
}

/** The handoff extractor over a worker's final output (its prompt is built from the contract). */
export function extractorIntent(prompt: string, pc: ProjectConfig, cwd: string): Intent {
  return { role: 'extractor', prompt, cwd, model: pc.model, extraArgs: pc.extractor_args ?? [] };
}

/** One orchestrator turn: resumes the project's conversation, with the dispatch MCP server only. */
export function orchestratorIntent(
  turn: { prompt: string; resume: string | null; mcpUrl: string; mcpToken: string; trellis?: boolean },
  pc: ProjectConfig,
  cwd: string,
): Intent {
  return {
    role: 'orchestrator',
    prompt: turn.prompt,
    cwd,
    resume: turn.resume,
    fork: true, // each turn continues the last good one; a failed turn leaves it untouched
    tools: pc.orchestrator_tools ?? [],
    permissionMode: pc.permission_mode,
    model: pc.model,
    mcpServers: {
      dispatch: { url: turn.mcpUrl, headers: { Authorization: `Bearer ${turn.mcpToken}` }, tools: turn.trellis ? [...ORCHESTRATOR_TOOLS, ...ORCHESTRATOR_TRELLIS_TOOLS] : ORCHESTRATOR_TOOLS },
    },
  };
}
