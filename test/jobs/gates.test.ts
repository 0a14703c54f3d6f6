// Hard gates with the real CLI and the scripted model: a risky call parks its worker `gated` with no
// process left; a decision over HTTP resumes it (the call runs, or is refused with the person's
// reason) and the task ends with its handoff; a deny rule refuses without parking; an unreachable
// dispatch defers the call (fail closed).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { listen } from '../helpers/app.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { processesWith } from '../helpers/marked-processes.ts';

const handoff = (marker: string, fields: Record<string, unknown>): Scenario['conversations'][number] => ({
  match: marker,
  steps: [{ text: '```json\n' + JSON.stringify(fields, null, 2) + '\n```', chunks: 1, delay_ms: 0 }],
});
const done = (marker: string, goal: string) =>
  handoff(marker, { goal, current_state: 'done', ruled_out: [], status: 'success', gate: 'git_beyond_branch' });
const bash = (command: string, then: string): Scenario['conversations'][number]['steps'] => [
  { text: 'Running it.', tool_use: { name: 'Bash', input: { command, description: 'run' } } },
  { text: then, chunks: 1, delay_ms: 0 },
];

const scenarios: Scenario[] = [
  {
    name: 'gates',
    description: '',
    conversations: [
      done('PUSHED-DONE', 'Push main'),
      done('FEATURE-DONE', 'Push a feature'),
      done('DISK-DONE', 'Clean the disk'),
      done('UNREACHED-DONE', 'Push while dispatch is away'),
      done('ECHO-DONE', 'Say hello'),
      { match: 'Publish the release', steps: bash('git push origin main', 'PUSHED-DONE: main is pushed.') },
      { match: 'Publish the feature', steps: bash('git push origin HEAD:refs/heads/feature', 'FEATURE-DONE: the push was refused.') },
      { match: 'Free some disk', steps: bash('rm -rf /', 'DISK-DONE: that was refused, so I stopped.') },
      { match: 'Publish unreachable', steps: bash('git push origin HEAD:refs/heads/unreached', 'UNREACHED-DONE: pushed.') },
      { match: 'Say hello', steps: bash('echo hello through the gate', 'ECHO-DONE: said hello.') },
    ],
  },
];

let loop: Loop;
let project: string;
let repo: string;
let remote: string;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-gates-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@x', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@x' } }).trim();
const remoteRefs = () => git(remote, 'for-each-ref', '--format=%(refname)');

beforeAll(async () => {
  remote = path.join(tmp, 'origin.git');
  repo = path.join(tmp, 'repo');
  fs.mkdirSync(repo);
  git(tmp, 'init', '-q', '--bare', remote);
  git(repo, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(repo, 'README'), 'hello\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-q', '-m', 'first');
  git(repo, 'remote', 'add', 'origin', remote);
  loop = await startLoop({ scenarios });
  project = await loop.project('gates', { allowed_tools: ['Bash'], cwd: repo });
});

async function api(method: string, p: string, body?: unknown) {
  const res = await fetch(`${loop.url}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function openGate(taskId: string) {
  const { body } = await api('GET', `/api/gates?status=open&project_id=${project}`);
  const gate = (body.gates as Record<string, any>[]).find((g) => g.task_id === taskId);
  expect(gate).toBeDefined();
  return gate!;
}

describe('a worker at a hard gate', () => {
  it('is parked gated with no process left; approved over HTTP, the push runs and the task ends success with a handoff', async () => {
    const taskId = await loop.submit(project, 'Publish the release to origin.');
    const parked = await loop.waitTask(taskId, 'gated');
    expect(parked.status_reason).toContain('git push origin main');
    expect(parked.status_reason).toContain('git_beyond_branch');
    expect(processesWith(loop.marker)).toEqual([]);
    expect(remoteRefs()).toBe('');

    const gate = await openGate(taskId);
    expect(gate).toMatchObject({ status: 'open', category: 'git_beyond_branch', rule: 'git.beyond-branch', tool: 'Bash', subject: 'git push origin main' });

    const decided = await api('POST', `/api/gates/${gate.id}/decision`, { decision: 'approve', reason: 'ship it' });
    expect(decided.status).toBe(200);
    expect(decided.body).toMatchObject({ id: gate.id, status: 'approved', decision_reason: 'ship it', decided_via: 'http' });
    const again = await api('POST', `/api/gates/${gate.id}/decision`, { decision: 'deny' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_decided');

    await loop.waitTask(taskId, 'success', 60_000);
    expect(remoteRefs()).toBe('refs/heads/main');
    const events = await eventsOf(loop.db, taskId);
    const types = events.map((e) => e.event_type);
    expect(types.filter((t) => t === 'gate.decided')).toHaveLength(1);
    expect(types.filter((t) => t === 'handoff')).toHaveLength(1);
    const sessions = new Set(events.filter((e) => e.event_type === 'session.spawned').map((e) => e.session_id));
    expect(sessions.size).toBe(3); // the worker, its resumed run, the extractor
    const results = events.filter((e) => e.event_type === 'claude.tool_result');
    expect(results).toHaveLength(1);
    const allowed = events.find((e) => e.event_type === 'gate.checked' && e.payload.decision === 'allow');
    expect(allowed?.payload).toMatchObject({ gate_id: gate.id, by: 'gate' });
  });

  it('denied, the model hears the reason and the push never runs', async () => {
    const taskId = await loop.submit(project, 'Publish the feature branch.');
    await loop.waitTask(taskId, 'gated');
    const gate = await openGate(taskId);
    expect((await api('POST', `/api/gates/${gate.id}/decision`, { decision: 'deny', reason: 'not before the review' })).status).toBe(200);
    await loop.waitTask(taskId, 'success', 60_000);
    expect(remoteRefs()).not.toContain('feature');
    expect(loop.model.requests.some((r) => JSON.stringify(r.body.messages).includes('not before the review'))).toBe(true);
    const results = (await eventsOf(loop.db, taskId)).filter((e) => e.event_type === 'claude.tool_result');
    expect(JSON.stringify(results.map((r) => r.payload))).toContain('not before the review');
  });

  it('a deny rule refuses the call without parking, and the model hears the rule', async () => {
    const taskId = await loop.submit(project, 'Free some disk space.');
    await loop.waitTask(taskId, 'success', 60_000);
    const events = await eventsOf(loop.db, taskId);
    expect(events.some((e) => e.event_type === 'task.status_changed' && e.payload.status === 'gated')).toBe(false);
    const checked = events.find((e) => e.event_type === 'gate.checked');
    expect(checked?.payload).toMatchObject({ decision: 'deny', rule: 'destructive.rm-root', category: 'destructive', subject: 'rm -rf /' });
    const [n] = await loop.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.gates where task_id = ${taskId}`;
    expect(n!.n).toBe(0);
    expect(JSON.stringify(events.filter((e) => e.event_type === 'claude.tool_result').map((e) => e.payload))).toContain('never allowed');
  });

  it('an allowed call runs without a gate row or a journalled check', async () => {
    const taskId = await loop.submit(project, 'Say hello.');
    await loop.waitTask(taskId, 'success', 60_000);
    const events = await eventsOf(loop.db, taskId);
    expect(events.filter((e) => e.event_type.startsWith('gate.'))).toEqual([]);
    expect(JSON.stringify(events.filter((e) => e.event_type === 'claude.tool_result').map((e) => e.payload))).toContain('hello through the gate');
  });

  it('with dispatch unreachable the hook defers the call (fail closed); the task waits gated and resumes once decided', async () => {
    const port = Number(new URL(loop.url!).port);
    await loop.http!.close();
    const taskId = await loop.submit(project, 'Publish unreachable work.');
    const parked = await loop.waitTask(taskId, 'gated', 60_000);
    expect(parked.status_reason).toContain('unverified');
    expect(remoteRefs()).not.toContain('unreached');
    expect(processesWith(loop.marker)).toEqual([]);

    loop.http = await listen(loop.app!, port);
    const [g] = await loop.db.sql<{ id: string }[]>`select id from dispatch.gates where task_id = ${taskId} and status = 'open'`;
    await loop.db.sql`select dispatch.decide_gate(${g!.id}, 'approve', 'checked by hand')`;
    await loop.waitTask(taskId, 'success', 60_000);
    expect(remoteRefs()).toContain('refs/heads/unreached');
    await waitFor(() => processesWith(loop.marker), (p) => p.length === 0, { what: 'no process left' });
  });
});
