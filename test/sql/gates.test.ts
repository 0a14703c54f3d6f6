// Gate rules as data and the decision functions, straight against Postgres: what each default rule
// decides, project overrides, one decision per gate, a parked task resuming.
import { beforeAll, describe, expect, it } from 'vitest';
import { readCall } from '../../core/gates/reading.ts';
import { createTestDb, type TestDb } from '../helpers/db.ts';

let db: TestDb;
let project: string;
let session: string;
let task: string;
const CWD = '/work/projects/demo';

// As the hook route asks: with the call's reading (core/gates), which the fact rules match.
async function check(tool: string, input: Record<string, unknown>, tool_use_id: string | null = null, s = session) {
  const reading = await readCall(tool, input, { cwd: CWD });
  const [r] = await db.sql<{ a: { decision: string; reason?: string; gate_id?: string; category?: string; rule?: string } }[]>`
    select dispatch.gate_check(${s}, ${tool}, ${JSON.stringify(input)}::text::jsonb, ${tool_use_id}, ${CWD},
                               ${JSON.stringify(reading)}::text::jsonb) as a`;
  return r!.a;
}

async function newTask(p = project) {
  const [t] = await db.sql<{ id: string }[]>`select dispatch.submit_task(${p}, 'brief') as id`;
  const [s] = await db.sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, task_id, role, attempt) values (${p}, ${t!.id}, 'worker', 1) returning id`;
  return { task: t!.id, session: s!.id };
}

beforeAll(async () => {
  db = await createTestDb();
  const [p] = await db.sql<{ id: string }[]>`select dispatch.create_project('gates') as id`;
  project = p!.id;
  ({ task, session } = await newTask());
});

describe('the default rules', () => {
  it('cover all eight categories of the plan', async () => {
    const rows = await db.sql<{ category: string }[]>`select distinct category from dispatch.gate_rules order by 1`;
    expect(rows.map((r) => r.category)).toEqual(
      expect.arrayContaining(['outside_project', 'privilege', 'network_config', 'secrets', 'destructive', 'git_beyond_branch', 'dependencies', 'cross_service']),
    );
  });

  it.each([
    ['Bash', { command: 'git push origin main' }, 'ask', 'git_beyond_branch'],
    ['Bash', { command: 'git -C repo push --force' }, 'ask', 'git_beyond_branch'],
    ['Bash', { command: 'sudo apt update' }, 'ask', 'privilege'],
    ['Bash', { command: 'npm install left-pad' }, 'ask', 'dependencies'],
    ['Bash', { command: 'pip install requests' }, 'ask', 'dependencies'],
    ['Bash', { command: 'rm -rf src' }, 'ask', 'destructive'],
    ['Bash', { command: 'psql -c "DROP TABLE users"' }, 'ask', 'destructive'],
    ['Bash', { command: 'rm -rf /' }, 'deny', 'destructive'],
    ['Bash', { command: 'rm -fr ~' }, 'deny', 'destructive'],
    ['Bash', { command: 'cat .env' }, 'ask', 'secrets'],
    ['Bash', { command: 'sudo iptables -F' }, 'ask', 'privilege'],
    ['Bash', { command: 'iptables -F' }, 'ask', 'network_config'],
    ['Bash', { command: 'kubectl apply -f deploy.yaml' }, 'ask', 'cross_service'],
    ['Bash', { command: 'curl -X POST https://api.example.com/things' }, 'ask', 'cross_service'],
    ['Write', { file_path: `${CWD}/.env`, content: 'A=1' }, 'ask', 'secrets'],
    ['Edit', { file_path: '/home/me/.ssh/id_ed25519', old_string: 'a', new_string: 'b' }, 'ask', 'secrets'],
    ['Write', { file_path: '/etc/motd', content: 'hi' }, 'ask', 'outside_project'],
    ['Write', { file_path: `${CWD}/../other/x.txt`, content: 'hi' }, 'ask', 'outside_project'],
    ['Write', { file_path: `${CWD}/nginx.conf`, content: 'server {}' }, 'ask', 'network_config'],
  ])('%s %j → %s (%s)', async (tool, input, decision, category) => {
    const a = await check(tool, input);
    expect(a).toMatchObject({ decision, category });
  });

  it.each([
    ['Bash', { command: 'echo hello from the worker' }],
    ['Bash', { command: 'git status && git commit -m "x"' }],
    ['Bash', { command: 'npm ci' }],
    ['Bash', { command: 'rm -rf build dist node_modules' }],
    ['Bash', { command: 'ls -la ./envelope' }],
    ['Write', { file_path: `${CWD}/src/a.ts`, content: '' }],
    ['Write', { file_path: 'src/relative.ts', content: '' }],
    ['Read', { file_path: '/etc/hostname' }],
  ])('%s %j passes', async (tool, input) => {
    expect((await check(tool, input)).decision).toBe('pass');
  });
});

describe('gates', () => {
  it('an ask opens one gate per call, journals gate.checked and gate.requested, and answers ask again while open', async () => {
    ({ task, session } = await newTask());
    const a = await check('Bash', { command: 'git push origin main' }, 'toolu_1');
    const again = await check('Bash', { command: 'git push origin main' }, 'toolu_1');
    expect(again).toMatchObject({ decision: 'ask', gate_id: a.gate_id });
    const [n] = await db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.gates where task_id = ${task}`;
    expect(n!.n).toBe(1);
    const evs = await db.sql<{ event_type: string; payload: Record<string, unknown> }[]>`
      select event_type, payload from dispatch.events where task_id = ${task} and event_type like 'gate.%' order by seq`;
    expect(evs.map((e) => e.event_type)).toEqual(['gate.requested', 'gate.checked', 'gate.checked']);
    expect(evs[0]!.payload).toMatchObject({ gate_id: a.gate_id, category: 'git_beyond_branch', rule: 'git.beyond-branch', subject: 'git push origin main' });
  });

  it('a gate is decided once: the second decision is refused with PD409, the call is then allowed', async () => {
    const a = await check('Bash', { command: 'git tag v1' }, 'toolu_2');
    const [d] = await db.sql<{ g: { status: string; decided_by: string; decided_via: string } }[]>`
      select dispatch.decide_gate(${a.gate_id!}, 'approve') as g`;
    expect(d!.g).toMatchObject({ status: 'approved', decided_via: 'sql' });
    await expect(db.sql`select dispatch.decide_gate(${a.gate_id!}, 'deny', 'changed my mind')`).rejects.toMatchObject({ code: 'PD409' });
    expect(await check('Bash', { command: 'git tag v1' }, 'toolu_2')).toMatchObject({ decision: 'allow', gate_id: a.gate_id });
    const decided = await db.sql`select 1 from dispatch.events where event_type = 'gate.decided' and payload->>'gate_id' = ${a.gate_id!}`;
    expect(decided).toHaveLength(1);
  });

  it('a denied call is denied with the person\'s reason', async () => {
    const a = await check('Bash', { command: 'npm install leftpad' }, 'toolu_3');
    await db.sql`select dispatch.decide_gate(${a.gate_id!}, 'deny', 'use the standard library')`;
    const b = await check('Bash', { command: 'npm install leftpad' }, 'toolu_3');
    expect(b.decision).toBe('deny');
    expect(b.reason).toContain('use the standard library');
  });

  it('a project overrides the defaults from its config, and a rule is an INSERT', async () => {
    const [p] = await db.sql<{ id: string }[]>`
      select dispatch.create_project('override', ${JSON.stringify({ gates: [{ tool: 'Bash', pattern: '^npm install', decision: 'allow', category: 'dependencies' }] })}::text::jsonb) as id`;
    const other = await newTask(p!.id);
    expect((await check('Bash', { command: 'npm install zod' }, null, other.session)).decision).toBe('pass');
    expect((await check('Bash', { command: 'git push' }, null, other.session)).decision).toBe('ask');
    await db.sql`insert into dispatch.gate_rules (id, category, tool, pattern, decision, reason, priority)
                 values ('custom.make-deploy', 'cross_service', 'Bash', '\\mmake\\s+deploy\\M', 'deny', 'deploys go through CI', 5)`;
    expect(await check('Bash', { command: 'make deploy' }, null, other.session)).toMatchObject({ decision: 'deny', reason: 'deploys go through CI' });
  });

  it('a rule with a broken pattern is refused when written', async () => {
    await expect(db.sql`insert into dispatch.gate_rules (category, pattern, decision, reason) values ('secrets', '(', 'ask', 'x')`).rejects.toThrow();
  });

  it('a deferred worker parks its task gated; deciding resumes it; a call the hook never got checked opens an unverified gate', async () => {
    const t = await newTask();
    const a = await check('Bash', { command: 'git push origin main' }, 'toolu_p', t.session);
    await db.sql`select dispatch.park_task(${t.task}, ${t.session}, 'Bash', '{"command":"git push origin main"}'::jsonb, 'toolu_p')`;
    const [row] = await db.sql<{ status: string; status_reason: string }[]>`select status, status_reason from dispatch.tasks where id = ${t.task}`;
    expect(row!.status).toBe('gated');
    expect(row!.status_reason).toContain('git push origin main');
    expect(row!.status_reason).toContain('git_beyond_branch');
    await db.sql`select dispatch.decide_gate(${a.gate_id!}, 'approve', null, 'me', 'http')`;
    const [after] = await db.sql<{ status: string }[]>`select status from dispatch.tasks where id = ${t.task}`;
    expect(after!.status).toBe('running');
    const jobs = await db.sql`select 1 from graphile_worker.jobs where key = ${`resume_worker:${t.task}`}`;
    expect(jobs).toHaveLength(1);

    const u = await newTask();
    const [g] = await db.sql<{ id: string }[]>`
      select dispatch.park_task(${u.task}, ${u.session}, 'Bash', '{"command":"echo hi"}'::jsonb, 'toolu_u') as id`;
    const [gate] = await db.sql<{ category: string; status: string }[]>`select category, status from dispatch.gates where id = ${g!.id}`;
    expect(gate).toEqual({ category: 'unverified', status: 'open' });
  });

  it('an open gate whose rule set a timeout is expired, journalled as such', async () => {
    await db.sql`insert into dispatch.gate_rules (id, category, tool, pattern, decision, reason, priority, timeout_minutes)
                 values ('custom.timeout', 'cross_service', 'Bash', '^deploy-now', 'ask', 'deploys wait for a person', 1, 1)`;
    const a = await check('Bash', { command: 'deploy-now' }, 'toolu_t');
    await db.sql`update dispatch.gates set expires_at = now() - interval '1 second' where id = ${a.gate_id!}`;
    const [n] = await db.sql<{ n: number }[]>`select dispatch.expire_gates() as n`;
    expect(n!.n).toBe(1);
    const [ev] = await db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where event_type = 'gate.decided' and payload->>'gate_id' = ${a.gate_id!}`;
    expect(ev!.payload).toMatchObject({ decision: 'expired', via: 'timeout' });
  });
});

describe('the decision-doc contract (autonomous mode)', () => {
  it('asks the extractor for the decision point, the chosen option and what would have triggered a gate, and validates them', async () => {
    const { extractorPrompt, loadContract, validateHandoff } = await import('../../jobs/handoff-contract.ts');
    const contract = await loadContract(db.sql);
    const prompt = extractorPrompt(contract, 'Pick a queue', 'I chose graphile-worker over pg-boss.');
    for (const key of ['decision_point', 'chosen_option', 'gate_triggers', 'ruled_out', 'gate', 'gate_decision']) expect(prompt).toContain(key);
    const ok = validateHandoff(contract, JSON.stringify({
      goal: 'Pick a queue', current_state: 'picked', ruled_out: [{ approach: 'pg-boss', reason: 'a second scheduler' }],
      decision_point: 'which job queue to use', chosen_option: 'graphile-worker: already in the stack',
      gate_triggers: ['installing a new dependency would have asked'],
    }));
    expect(ok.ok).toBe(true);
    expect(validateHandoff(contract, JSON.stringify({ goal: 'g', current_state: 's', ruled_out: [], gate_triggers: 'not a list' })).ok).toBe(false);
  });
});
