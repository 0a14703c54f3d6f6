// Gates in `npm run bench`: how long a tool call waits for its gate decision, and what a gated task
// holds. Three figures, 1000 calls each by default (BENCH_GATE_CALLS):
//   decision  — POST /hooks/gate answered by a server in its own process (the SQL decision + HTTP);
//   hook      — the whole hook as the CLI runs it: `node gate-hook.mjs`, stdin in, answer out;
//   gated     — a real worker (the real CLI, the scripted model) parked at a gate: its processes.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../../core/config.ts';
import type { Sql } from '../../core/db/client.ts';
import { freePort } from '../../core/db/embedded.ts';
import type { Logger } from '../../core/log.ts';
import { startRunner } from '../../jobs/runner.ts';
import { GATE_HOOK } from '../../jobs/substrate/claude.ts';
import { startScriptedModel } from '../../fixtures/scripted-model/server.ts';
import { pct, r1, spread, type Print } from './stats.ts';
import { processesWith } from '../helpers/marked-processes.ts';
import { readCall } from '../../core/gates/reading.ts';
import { risky } from '../functions/routes/gate-corpus/risky.ts';
import { routine } from '../functions/routes/gate-corpus/routine.ts';
import { CWD, toolCall } from '../functions/routes/gate-corpus/types.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

const stats = spread;

async function serve(url: string, dataDir: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin/main.ts'), 'serve'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), DISPATCH_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (await fetch(`${base}/healthz`).then((r) => r.ok, () => false)) break;
    if (i > 600) throw new Error('the bench server did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url: base, child };
}

/** The calls the hook is asked about: mostly harmless, some gated, some refused (as a worker's mix). */
function call(i: number): { tool: string; input: Record<string, unknown>; tool_use_id: string } {
  const id = `toolu_bench_${i}`;
  if (i % 10 === 3) return { tool: 'Bash', input: { command: `git push origin feature-${i}` }, tool_use_id: id };
  if (i % 10 === 7) return { tool: 'Bash', input: { command: 'rm -rf /' }, tool_use_id: id };
  if (i % 10 === 5) return { tool: 'Write', input: { file_path: `src/file-${i}.ts`, content: 'export {};\n' }, tool_use_id: id };
  return { tool: 'Bash', input: { command: `echo step ${i}` }, tool_use_id: id };
}

function runHook(env: NodeJS.ProcessEnv, input: string, args: string[] = [GATE_HOOK]): Promise<{ ms: number; out: string }> {
  const t = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve({ ms: performance.now() - t, out }));
    child.stdin.end(input);
  });
}

export async function benchGates(sql: Sql, url: string, dataDir: string, print: Print): Promise<void> {
  const n = Number(process.env.BENCH_GATE_CALLS ?? 1000);
  const server = await serve(url, dataDir);
  try {
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('bench gates') as id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'bench the gate') as id`;
    await sql`select graphile_worker.remove_job(${`spawn_worker:${t!.id}`})`;
    const [s] = await sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, task_id, role, attempt, status) values (${p!.id}, ${t!.id}, 'worker', 1, 'running') returning id`;
    const [tok] = await sql<{ t: string }[]>`select dispatch.issue_gate_token(${s!.id}, ${path.join(dataDir, 'work')}) as t`;
    const hookUrl = `${server.url}/hooks/gate`;

    // The decision alone, over HTTP from another process (warm: a few calls first).
    const ask = (c: ReturnType<typeof call>) =>
      fetch(hookUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${tok!.t}` }, body: JSON.stringify(c) });
    for (let i = 0; i < 20; i++) await (await ask(call(100_000 + i))).text();
    const decision: number[] = [];
    const byKind = new Map<string, number[]>();
    for (let i = 0; i < n; i++) {
      const c = call(i);
      const t0 = performance.now();
      const a = (await (await ask(c)).json()) as { decision: string };
      const ms = performance.now() - t0;
      decision.push(ms);
      byKind.set(a.decision, [...(byKind.get(a.decision) ?? []), ms]);
    }
    print('gates.decision', {
      ...stats(decision),
      by_decision: Object.fromEntries([...byKind].map(([k, v]) => [k, { p50: r1(pct(v, 50)), p99: r1(pct(v, 99)), n: v.length }])),
      measured_from: 'another process (npm run serve on its own), sequential calls',
    });

    // The dry run over HTTP: the reading (the shell parsed, paths resolved) and the SQL decision, over the
    // corpus's calls in turn; and the reading alone, in this process.
    const dryUrl = `${server.url}/api/gates/dry-run`;
    const corpus = [...risky.map((r) => toolCall(r.call)), ...routine.map((r) => toolCall(r.call))];
    const dryRun: number[] = [];
    for (let i = 0; i < n; i++) {
      const c = corpus[i % corpus.length]!;
      const t0 = performance.now();
      await (await fetch(dryUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ project_id: p!.id, ...c, cwd: CWD }) })).text();
      dryRun.push(performance.now() - t0);
    }
    const reading: number[] = [];
    await readCall('Bash', { command: 'true' }, { cwd: CWD });
    for (let i = 0; i < n; i++) {
      const c = corpus[i % corpus.length]!;
      const t0 = performance.now();
      await readCall(c.tool, c.input, { cwd: CWD });
      reading.push(performance.now() - t0);
    }
    print('gates.dry_run', { ...stats(dryRun), reading_alone: stats(reading), calls: `the ${corpus.length} corpus calls in turn`, measured_from: 'another process, sequential calls' });

    // The whole hook, as the CLI starts it for each tool call (a node process per call), interleaved
    // with a bare `node -e 0` so both see the same machine load: the difference is the hook's own.
    const env = { ...process.env, DISPATCH_GATE_URL: hookUrl, DISPATCH_GATE_TOKEN: tok!.t };
    const hook: number[] = [];
    const bare: number[] = [];
    for (let i = 0; i < n; i++) {
      const c = call(n + i);
      const input = JSON.stringify({ hook_event_name: 'PreToolUse', tool_name: c.tool, tool_input: c.input, tool_use_id: c.tool_use_id, cwd: dataDir });
      hook.push((await runHook(env, input)).ms);
      bare.push((await runHook(env, '', ['-e', '0'])).ms);
    }
    print('gates.hook_process', {
      ...stats(hook),
      bare_node_start: stats(bare),
      hook_minus_bare_p50_ms: r1(pct(hook, 50) - pct(bare, 50)),
      note: 'node startup included; target p99 ≤ 50 ms',
    });

    await gatedHoldsNothing(sql, url, server.url, dataDir, print);
  } finally {
    server.child.kill('SIGTERM');
  }
}

/** A real worker parked at a gate: how many processes it holds (the target is none). */
async function gatedHoldsNothing(sql: Sql, url: string, serverUrl: string, dataDir: string, print: Print): Promise<void> {
  const model = await startScriptedModel([
    {
      name: 'bench-gate',
      description: '',
      conversations: [{ match: 'Publish', steps: [{ text: 'Pushing.', tool_use: { name: 'Bash', input: { command: 'git push origin main' } } }, { text: 'Pushed.', chunks: 1, delay_ms: 0 }] }],
    },
  ]);
  const marker = randomUUID();
  const configDir = path.join(dataDir, 'claude-config-gates');
  fs.mkdirSync(configDir, { recursive: true });
  const config = loadConfig({ DISPATCH_DATA_DIR: dataDir, PUBLIC_URL: serverUrl, DATABASE_URL: url });
  const runner = await startRunner({
    url,
    sql,
    config,
    log: quiet,
    childEnv: { ...process.env, ANTHROPIC_BASE_URL: model.url, ANTHROPIC_API_KEY: 'sk-ant-scripted-not-a-secret', CLAUDE_CONFIG_DIR: configDir, PD_TEST_MARKER: marker },
  });
  try {
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('bench gated', '{"allowed_tools":["Bash"]}') as id`;
    const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Publish the release.') as id`;
    const t0 = performance.now();
    for (;;) {
      const [r] = await sql<{ status: string }[]>`select status from dispatch.tasks where id = ${t!.id}`;
      if (r!.status === 'gated') break;
      if (performance.now() - t0 > 120_000) throw new Error(`the bench task did not park (status ${r!.status})`);
      await new Promise((r) => setTimeout(r, 50));
    }
    const parkedMs = performance.now() - t0;
    const held = processesWith(marker);
    print('gates.gated_task', { processes_held: held.length, submit_to_gated_ms: Math.round(parkedMs) });
  } finally {
    await runner.stop();
    await model.close();
  }
}

