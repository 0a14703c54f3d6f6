// From intent to command: what each role's process is started with. Jobs say what a run is for;
// only the substrate says which flags that takes.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { extractorIntent, orchestratorIntent, workerIntent } from '../../../jobs/intents.ts';
import { claudeCode } from '../../../jobs/substrate/index.ts';

const substrate = claudeCode({ PATH: '/usr/bin', CLAUDE_BIN: '/opt/claude', CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', ANTHROPIC_BASE_URL: 'http://model' });
const stream = ['--output-format', 'stream-json', '--verbose'];

describe('a worker', () => {
  it('runs the brief (and approach) with the project\'s tools, mode, model and pass-through arguments', () => {
    const pc = { allowed_tools: ['Bash', 'Read'], permission_mode: 'acceptEdits', model: 'sonnet', extra_args: ['--add-dir', '/x'] };
    const config = loadConfig({ CLAUDE_ARGS: '--fallback-model haiku' });
    const cmd = substrate.command(workerIntent({ brief: 'Fix the bug', approach: 'bisect' }, pc, '/work/p', config));
    expect(cmd.bin).toBe('/opt/claude');
    expect(cmd.cwd).toBe('/work/p');
    expect(cmd.args).toEqual([
      '-p', 'Fix the bug\n\nApproach: bisect', ...stream,
      '--allowedTools', 'Bash,Read', '--permission-mode', 'acceptEdits', '--model', 'sonnet',
      '--fallback-model', 'haiku', '--add-dir', '/x',
    ]);
  });

  it('with an empty config is the bare one-shot run', () => {
    const cmd = substrate.command(workerIntent({ brief: 'Go', approach: null }, {}, '/w', loadConfig({})));
    expect(cmd.args).toEqual(['-p', 'Go', ...stream]);
  });

  it('gets our environment minus what would make it think it runs inside another Claude Code', () => {
    const cmd = substrate.command(workerIntent({ brief: 'Go', approach: null }, {}, '/w', loadConfig({})));
    expect(cmd.env).toMatchObject({ PATH: '/usr/bin', ANTHROPIC_BASE_URL: 'http://model' });
    expect(cmd.env.CLAUDECODE).toBeUndefined();
    expect(cmd.env.CLAUDE_CODE_ENTRYPOINT).toBeUndefined();
  });
});

describe('the extractor', () => {
  it('runs its prompt with the project\'s model and extractor_args only', () => {
    const cmd = substrate.command(extractorIntent('Extract.', { model: 'haiku', extractor_args: ['--max-turns', '1'], allowed_tools: ['Bash'] }, '/w'));
    expect(cmd.args).toEqual(['-p', 'Extract.', ...stream, '--model', 'haiku', '--max-turns', '1']);
  });
});

describe('an orchestrator turn', () => {
  const turn = { prompt: 'Turn.', resume: 'sess-1', mcpUrl: 'http://127.0.0.1:7777/mcp', mcpToken: 'pdm_secret' };

  it('resumes its conversation with the dispatch MCP server only, its tools allowed by their MCP names', () => {
    const cmd = substrate.command(orchestratorIntent(turn, { orchestrator_tools: ['Read'], model: 'opus' }, '/w'));
    const config = JSON.parse(cmd.args[cmd.args.indexOf('--mcp-config') + 1]!) as unknown;
    expect(cmd.args).toEqual([
      '-p', 'Turn.', ...stream, '--resume', 'sess-1', '--fork-session',
      '--allowedTools',
      'mcp__dispatch__get_project_state,mcp__dispatch__get_handoffs,mcp__dispatch__check_ruled_out,mcp__dispatch__spawn_worker,Read',
      '--model', 'opus', '--mcp-config', expect.any(String), '--strict-mcp-config',
    ]);
    expect(config).toEqual({ mcpServers: { dispatch: { type: 'http', url: turn.mcpUrl, headers: { Authorization: 'Bearer pdm_secret' } } } });
  });

  it('is journalled without its prompt or its MCP token', () => {
    const cmd = substrate.command(orchestratorIntent(turn, {}, '/w'));
    expect(cmd.display[0]).toBe('claude');
    expect(cmd.display).toContain('<prompt: 5 chars>');
    expect(cmd.display).toContain('<mcp config: dispatch>');
    expect(JSON.stringify(cmd.display)).not.toContain('pdm_secret');
    expect(cmd.display).toContain('--resume'); // a resumed turn is recognisable in session.spawned
  });

  it('forks the conversation it resumes, so a failed turn leaves it as it was', () => {
    const args = substrate.command(orchestratorIntent(turn, {}, '/w')).args;
    expect(args.slice(args.indexOf('--resume'), args.indexOf('--resume') + 3)).toEqual(['--resume', 'sess-1', '--fork-session']);
  });

  it('starts a new conversation when there is none to resume', () => {
    expect(substrate.command(orchestratorIntent({ ...turn, resume: null }, {}, '/w')).args).not.toContain('--resume');
  });
});

describe('what later features plug into the intent', () => {
  it('a budget, a turn limit and hook settings become the substrate\'s own options', () => {
    const hooks = { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: '/bin/gate' }] }] };
    const cmd = substrate.command({ role: 'worker', prompt: 'Go', cwd: '/w', limits: { maxBudgetUsd: 0.5, maxTurns: 3 }, hooks });
    expect(cmd.args).toEqual(['-p', 'Go', ...stream, '--max-budget-usd', '0.5', '--max-turns', '3', '--settings', JSON.stringify({ hooks })]);
  });

  it('extra environment reaches the process', () => {
    expect(substrate.command({ role: 'worker', prompt: 'Go', cwd: '/w', env: { GATE_ID: 'g1' } }).env.GATE_ID).toBe('g1');
  });
});
