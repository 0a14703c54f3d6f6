// The project's own check with the real CLI and the scripted model on a real repository: a worker
// that claims success without the work is sent back with the check's output and fixes it; a worker
// that "fixes" nothing ends stuck (in Needs you); a check that hangs is killed at its timeout (in
// Needs you); merge waits for green unless forced; a project without a check behaves as before.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { orchestratorPrompt, turnInputSchema } from '../../jobs/orchestrator-prompt.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo, type TestRepo } from '../helpers/repo.ts';

const text = (t: string) => ({ text: t, chunks: 1, delay_ms: 0 });
const handoff = (marker: string, extra: Record<string, unknown> = {}): Scenario['conversations'][number] => ({
  match: marker,
  steps: [text(JSON.stringify({ goal: 'make the check pass', current_state: 'done', ruled_out: [], ...extra }))],
});

const scenarios: Scenario[] = [
  {
    name: 'verify',
    description: '',
    conversations: [
      handoff('FIXED-DONE', { artifacts: [{ kind: 'file', ref: 'done.txt' }, { kind: 'file', ref: 'never-written.txt' }] }),
      handoff('PLAIN-DONE'),
      handoff('WROTE-DONE'),
      {
        match: 'Create the done file',
        steps: [
          text('All done, every test passes.'),
          { tool_use: { name: 'Write', input: { file_path: 'done.txt', content: 'done\n' } } },
          text('FIXED-DONE: created done.txt, the check passes now.'),
        ],
      },
      { match: 'Stubborn task', steps: [text('Done.'), text('Fixed it, honestly.'), text('Fixed again.')] },
      {
        match: 'Write the notes file',
        steps: [{ tool_use: { name: 'Write', input: { file_path: 'notes.md', content: 'notes\n' } } }, text('WROTE-DONE: notes written.')],
      },
      { match: 'Plain task', steps: [{ tool_use: { name: 'Write', input: { file_path: 'plain.txt', content: 'plain\n' } } }, text('PLAIN-DONE: written.')] },
    ],
  },
];

const checkDone = ['sh', '-c', "test -f done.txt || { echo 'CHECK-OUTPUT: done.txt is missing'; exit 3; }"];
let loop: Loop;
let repo: TestRepo;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
  repo = makeRepo({ 'README.md': '# verify\n' });
});

const tools = ['Write', 'Edit', 'Read', 'Bash'];
const project = (name: string, verify?: Record<string, unknown>) => loop.project(name, { repo: repo.dir, allowed_tools: tools, ...(verify ? { verify } : {}) });
const ofType = async (taskId: string, type: string) => (await eventsOf(loop.db, taskId)).filter((e) => e.event_type === type).map((e) => e.payload);

/** The task's item in GET /api/needs-you (undefined: it is not there). */
async function needsYou(taskId: string) {
  const { items } = (await (await fetch(`${loop.url}/api/needs-you`)).json()) as { items: { task_id: string | null; kind: string; detail: string }[] };
  return items.find((i) => i.task_id === taskId);
}

async function merge(taskId: string, body?: unknown) {
  return fetch(`${loop.url}/api/tasks/${taskId}/merge`, {
    method: 'POST',
    ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
  });
}

describe('a worker that claims success without the work', () => {
  it('is sent back with the check output, fixes it, and ends success with the passed check as evidence', async () => {
    const p = await project('claims', { command: checkDone });
    const taskId = await loop.submit(p, 'Create the done file.');
    const done = await loop.waitTask(taskId, ['success', 'failed', 'extraction_failed']);
    expect(done).toMatchObject({ status: 'success', attempt: 2 });

    const finished = await ofType(taskId, 'verify.finished');
    expect(finished.map((f) => [f.attempt, f.passed, f.exit_code])).toEqual([[1, false, 3], [2, true, 0]]);
    expect(finished[0]!.output_tail).toContain('CHECK-OUTPUT: done.txt is missing');
    expect(finished[0]!.command).toEqual(checkDone);

    // The check's command, exit code and output reached the resumed worker, in the same conversation.
    const [resumed] = await ofType(taskId, 'worker.resume_requested');
    expect(resumed).toMatchObject({ reason: 'check_failed', from_attempt: 1, attempt: 2, fix: 1, fixes_allowed: 2 });
    const fixTurn = loop.model.requests.find((r) => r.userText.includes('CHECK-OUTPUT: done.txt is missing'))!;
    expect(fixTurn.userText).toContain('exit code 3');
    expect(fixTurn.userText).toContain('Create the done file.'); // the earlier turns are in the request
    const spawned = (await ofType(taskId, 'session.spawned')).filter((s) => s.role === 'worker');
    expect(spawned).toHaveLength(2);
    expect(spawned[1]!.argv).toContain('--resume');
    expect(spawned[1]!.cwd).toBe(spawned[0]!.cwd); // the same worktree

    const [h] = await ofType(taskId, 'handoff');
    const evidence = h!.evidence as Record<string, any>;
    expect(evidence.verify).toMatchObject({ passed: true, exit_code: 0, command: checkDone });
    expect(evidence.diff).toMatchObject({ files: 1, insertions: 1, deletions: 0, paths: ['done.txt'] });
    expect(evidence.unbacked_claims).toEqual([{ kind: 'file', ref: 'never-written.txt' }]);

    // get_handoffs (what the orchestrator and the client read) carries it.
    const res = await fetch(`${loop.url}/api/handoffs?scope=${p}&limit=5`);
    const { handoffs } = (await res.json()) as { handoffs: { payload: Record<string, any> }[] };
    expect(handoffs[0]!.payload.evidence.verify.passed).toBe(true);
    // The orchestrator's next turn reads it too: its prompt carries the handoff's fields verbatim.
    const [turn] = await loop.db.sql<{ t: unknown }[]>`select dispatch.claim_orchestrator_turn(${p}) as t`;
    const prompt = orchestratorPrompt('claims', 'interactive', turnInputSchema.parse(turn!.t), undefined, null);
    expect(prompt).toContain('"unbacked_claims": [');
    expect(prompt).toContain('"ref": "never-written.txt"');
  });
});

describe('a worker whose fix changes nothing', () => {
  it('ends failed as stuck at the second attempt, without spending the fixes left', async () => {
    const p = await project('stubborn', { command: checkDone, max_fix_attempts: 5 });
    const taskId = await loop.submit(p, 'Stubborn task: create the done file.');
    const done = await loop.waitTask(taskId, ['success', 'failed', 'extraction_failed']);
    expect(done).toMatchObject({ status: 'failed', status_reason: 'stuck: the fix changed nothing', attempt: 2 });
    expect(await ofType(taskId, 'worker.resume_requested')).toHaveLength(1);
    const decisions = await ofType(taskId, 'policy.decision');
    expect(decisions.at(-1)).toMatchObject({ cause: 'check', action: 'escalate_user', reason: 'stuck: the fix changed nothing' });
    expect(await ofType(taskId, 'handoff')).toHaveLength(0);
    // A person's to look at: in Needs you, saying why.
    expect(await needsYou(taskId)).toMatchObject({ kind: 'task', detail: 'stuck: the fix changed nothing' });
  });
});

describe('a check that hangs', () => {
  it('is killed at its timeout, the task ends failed with the reason, and merge waits for green unless forced', async () => {
    const p = await project('hanging', { command: ['sleep', '60'], timeout_s: 1, max_fix_attempts: 0 });
    const taskId = await loop.submit(p, 'Write the notes file.');
    const done = await loop.waitTask(taskId, ['success', 'failed', 'extraction_failed']);
    expect(done).toMatchObject({ status: 'failed', status_reason: 'verification failed after 0 fixes', attempt: 1 });
    const [v] = await ofType(taskId, 'verify.finished');
    expect(v).toMatchObject({ passed: false, timed_out: true, reason: 'timed out after 1 s', exit_code: null });

    expect(await needsYou(taskId)).toMatchObject({ kind: 'task', detail: 'verification failed after 0 fixes' });

    const refused = await merge(taskId);
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: { code: string; details: { verify: Record<string, unknown> } } };
    expect(body.error.code).toBe('not_verified');
    expect(body.error.details.verify).toMatchObject({ passed: false, timed_out: true });

    const forced = await merge(taskId, { force: true });
    expect(forced.status).toBe(202);
    const [req] = await ofType(taskId, 'workspace.merge_requested');
    expect(req).toMatchObject({ forced: true, verify: { passed: false, timed_out: true } });
    expect((await merge(taskId, { force: 'yes' })).status).toBe(400);
  });
});

describe('a check whose program vanished after the config was accepted', () => {
  it('ends the check failed with "command not found", never a crashed job', async () => {
    const p = await loop.project('vanished', { repo: repo.dir, allowed_tools: tools, verify: { command: ['no-such-check-program-31'], max_fix_attempts: 0 } });
    const taskId = await loop.submit(p, 'Write the notes file.');
    const done = await loop.waitTask(taskId, ['success', 'failed', 'crashed', 'extraction_failed']);
    expect(done.status).toBe('failed');
    const [v] = await ofType(taskId, 'verify.finished');
    expect(v).toMatchObject({ passed: false, exit_code: null, reason: 'command not found: no-such-check-program-31' });
  });
});

describe('a project without verify', () => {
  it('runs no check, merges as before, and its handoff says there was none', async () => {
    const p = await project('plain');
    const taskId = await loop.submit(p, 'Plain task: write plain.txt.');
    await loop.waitTask(taskId, 'success');
    expect(await ofType(taskId, 'verify.started')).toHaveLength(0);
    const [h] = await ofType(taskId, 'handoff');
    expect((h!.evidence as Record<string, unknown>).verify).toBeNull();
    expect((await merge(taskId)).status).toBe(202);
    const dir = String((await ofType(taskId, 'workspace.created'))[0]!.path);
    expect(fs.existsSync(path.join(dir, 'plain.txt'))).toBe(true);
  });
});
