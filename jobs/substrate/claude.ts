// How to start Claude Code: the binary, its flags and its environment. Only the substrate adapter
// knows these; everything else sees journal events.
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** CLAUDE_BIN when set, else the binary of the @anthropic-ai/claude-code package. */
export function claudeBin(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLAUDE_BIN) return env.CLAUDE_BIN;
  const pkg = require.resolve('@anthropic-ai/claude-code/package.json');
  return path.join(path.dirname(pkg), 'bin', 'claude.exe');
}

export interface ClaudeRunOptions {
  prompt: string;
  resume?: string;
  allowedTools?: string[];
  permissionMode?: string;
  model?: string;
  mcpConfig?: string;
  extraArgs?: string[];
}

/** The argument array for a one-shot, streamed run. Never joined into a shell string. */
export function claudeArgs(o: ClaudeRunOptions): string[] {
  const args = ['-p', o.prompt, '--output-format', 'stream-json', '--verbose'];
  if (o.resume) args.push('--resume', o.resume);
  if (o.allowedTools?.length) args.push('--allowedTools', o.allowedTools.join(','));
  if (o.permissionMode) args.push('--permission-mode', o.permissionMode);
  if (o.model) args.push('--model', o.model);
  if (o.mcpConfig) args.push('--mcp-config', o.mcpConfig, '--strict-mcp-config');
  if (o.extraArgs?.length) args.push(...o.extraArgs);
  return args;
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

/** argv safe to journal: the prompt is replaced by its length, secrets never appear in flags. */
export function redactArgs(args: string[]): string[] {
  return args.map((a, i) => (args[i - 1] === '-p' ? `<prompt: ${a.length} chars>` : a));
}
