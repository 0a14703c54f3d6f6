// Claude Code, part 1 of 3: how to start it. The binary, the flags an intent becomes, and the
// environment. Parts 2 and 3: stream-json.ts (its stdout lines) and status.ts (its statuses).
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Command, Intent, McpServerIntent } from './port.ts';

const require = createRequire(import.meta.url);

/** The PreToolUse hook that puts every tool call to dispatch's gate (a plain .mjs, no dependencies). */
export const GATE_HOOK = fileURLToPath(new URL('./gate-hook.mjs', import.meta.url));
/** Seconds the CLI gives the hook; the hook gives up (and defers) well before. */
const GATE_HOOK_TIMEOUT_S = 60;

/** CLAUDE_BIN when set, else the binary of the @anthropic-ai/claude-code package. */
export function claudeBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLAUDE_BIN) return env.CLAUDE_BIN;
  const pkg = require.resolve('@anthropic-ai/claude-code/package.json');
  return path.join(path.dirname(pkg), 'bin', 'claude.exe');
}

/** How Claude Code names a tool of an MCP server. */
export function mcpToolName(server: string, tool: string): string {
  return `mcp__${server}__${tool}`;
}

/** The argument array for a one-shot, streamed run. Never joined into a shell string. */
export function claudeArgs(intent: Omit<Intent, 'role' | 'cwd'>): string[] {
  // A resumed run may have no new prompt: it continues where it stopped (a deferred tool call).
  const args = intent.prompt ? ['-p', intent.prompt] : ['--print'];
  args.push('--output-format', 'stream-json', '--verbose');
  if (intent.resume) args.push('--resume', intent.resume, ...(intent.fork ? ['--fork-session'] : []));
  const servers = Object.entries(intent.mcpServers ?? {});
  const tools = [...servers.flatMap(([name, s]) => s.tools.map((t) => mcpToolName(name, t))), ...(intent.tools ?? [])];
  if (tools.length) args.push('--allowedTools', tools.join(','));
  if (intent.permissionMode) args.push('--permission-mode', intent.permissionMode);
  if (intent.model) args.push('--model', intent.model);
  if (servers.length) args.push('--mcp-config', mcpConfig(servers), '--strict-mcp-config');
  if (intent.limits?.maxBudgetUsd !== undefined) args.push('--max-budget-usd', String(intent.limits.maxBudgetUsd));
  if (intent.limits?.maxTurns !== undefined) args.push('--max-turns', String(intent.limits.maxTurns));
  const hooks = hookSettings(intent);
  if (Object.keys(hooks).length) args.push('--settings', JSON.stringify({ hooks }));
  if (intent.extraArgs?.length) args.push(...intent.extraArgs);
  return args;
}

/** The run's hook settings: the gate's PreToolUse hook (exec form, no shell) before any given ones. */
function hookSettings(intent: Pick<Intent, 'hooks' | 'gate'>): Record<string, unknown> {
  const hooks: Record<string, unknown> = { ...(intent.hooks ?? {}) };
  if (intent.gate) {
    const gate = { matcher: '*', hooks: [{ type: 'command', command: process.execPath, args: [GATE_HOOK], timeout: GATE_HOOK_TIMEOUT_S }] };
    const given = Array.isArray(hooks.PreToolUse) ? (hooks.PreToolUse as unknown[]) : [];
    hooks.PreToolUse = [gate, ...given];
  }
  return hooks;
}

/** Where the hook asks and with which credential (in the environment, never on the command line). */
function gateEnv(intent: Pick<Intent, 'gate'>): Record<string, string> {
  return intent.gate ? { DISPATCH_GATE_URL: intent.gate.url, DISPATCH_GATE_TOKEN: intent.gate.token } : {};
}

function mcpConfig(servers: [string, McpServerIntent][]): string {
  return JSON.stringify({
    mcpServers: Object.fromEntries(
      servers.map(([name, s]) => [name, { type: 'http', url: s.url, ...(s.headers ? { headers: s.headers } : {}) }]),
    ),
  });
}

/**
 * The child's environment: ours passed through (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY, the user's
 * login), minus the variables that would make the child think it runs inside another Claude Code.
 */
export function claudeEnv(base: NodeJS.ProcessEnv = process.env, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base, ...extra };
  delete env.CLAUDECODE;
  delete env.CLAUDE_CODE_ENTRYPOINT;
  return env;
}

/** argv safe to journal: the prompt is replaced by its length, the MCP config (it holds a token) by its server names. */
export function redactArgs(args: string[]): string[] {
  return args.map((a, i) => {
    if (args[i - 1] === '-p') return `<prompt: ${a.length} chars>`;
    if (args[i - 1] === '--mcp-config') return `<mcp config: ${mcpServerNames(a)}>`;
    return a;
  });
}

function mcpServerNames(json: string): string {
  try {
    return Object.keys((JSON.parse(json) as { mcpServers?: object }).mcpServers ?? {}).join(', ');
  } catch {
    return 'unreadable';
  }
}

/** The process that carries out an intent, with `base` as the environment passed through. */
export function claudeCommand(intent: Intent, base: NodeJS.ProcessEnv): Command {
  const bin = claudeBin(base);
  const args = claudeArgs(intent);
  const env = claudeEnv(base, { ...intent.env, ...gateEnv(intent) });
  return { bin, args, cwd: intent.cwd, env, display: [path.basename(bin), ...redactArgs(args)] };
}
