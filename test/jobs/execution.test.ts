// The execution loop with the real CLI against the scripted model: a task submitted with one SQL
// statement runs, is journalled while it runs, ends with a derived status, and (on success) gets a
// validated handoff — or ends extraction_failed with no handoff at all.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';

const handoff = (marker: string, fields: Record<string, unknown>): Scenario['conversations'][number] => ({
  match: marker,
  steps: [{ text: '```json\n' + JSON.stringify(fields, null, 2) + '\n```', chunks: 1, delay_ms: 0 }],
});

const scenarios: Scenario[] = [
  {
    name: 'execution',
    description: '',
    conversations: [
      // Extractor conversations first: their prompts also carry the brief, so they must match first.
      handoff('GREETING-DONE', {
        goal: 'Print a greeting',
        current_state: 'The greeting was printed',
        next_step: 'Nothing',
        ruled_out: [{ approach: 'printf with locale tricks', reason: 'echo is enough' }],
        status: 'success',
        artifacts: [{ kind: 'log', ref: 'stdout' }],
      }),
      { match: 'MALFORMED-DONE', steps: [{ text: 'Here is the handoff: {"goal": "x", "current_state"', chunks: 1, delay_ms: 0 }] },
      handoff('MISSING-DONE', { goal: 'Something', current_state: 'Done' }),
      {
        match: 'Greet the team',
        steps: [
          { text: 'Running it.', tool_use: { name: 'Bash', input: { command: 'echo hello team', description: 'greet' } } },
          // Held until the test has seen the tool result journalled: the model paces the run.
          { text: 'GREETING-DONE: the command printed hello team.', chunks: 6, delay_ms: 0, gate: 'greet-answer' },
        ],
      },
      { match: 'Write a malformed handoff', steps: [{ text: 'MALFORMED-DONE: all good.', chunks: 1, delay_ms: 0 }] },
      { match: 'Leave out a field', steps: [{ text: 'MISSING-DONE: finished.', chunks: 1, delay_ms: 0 }] },
      { match: 'Fail with a server error', steps: [{ error: { status: 500, type: 'api_error', message: 'Internal server error' } }] },
      { match: 'Hit the rate limit', steps: [{ error: { status: 429, type: 'rate_limit_error', message: 'Number of request tokens has exceeded your per-minute rate limit', retry_after: 0 } }] },
      { match: 'Use a revoked key', steps: [{ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } }] },
      { match: 'Think forever', steps: [{ hang: true, partial_text: 'Thinking' }] },
    ],
  },
];

let loop: Loop;
let project: string;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
  project = await loop.project('execution', { allowed_tools: ['Bash'] });
});

describe('a task submitted from SQL', () => {
  it('runs to success, journalled while it runs, with a validated handoff', async () => {
    const taskId = await loop.submit(project, 'Greet the team with echo.', 'use echo');

    // The tool result is in the journal while the worker is still streaming its answer.
    const during = await waitFor(
      async () => (await loop.db.sql<{ n: number; ended: boolean }[]>`
        select (select count(*)::int from dispatch.events where task_id = ${taskId} and event_type = 'claude.tool_result') as n,
               (select ended_at is not null from dispatch.sessions where task_id = ${taskId} and role = 'worker') as ended`)[0]!,
      (r) => r.n > 0,
      { what: 'a tool_result row' },
    );
    expect(during.ended).toBe(false);
    await loop.model.atGate('greet-answer'); // the worker is waiting on its final answer, still running
    expect(await loop.db.sql`select 1 from dispatch.sessions where task_id = ${taskId} and role = 'worker' and ended_at is null`).toHaveLength(1);
    loop.model.release('greet-answer');

    const t = await loop.waitTask(taskId, 'success');
    expect(t.status_reason).toBe('handoff validated');

    const events = await eventsOf(loop.db, taskId);
    const workerSession = events.find((e) => e.event_type === 'session.spawned')!.session_id;
    const workerTypes = events.filter((e) => e.session_id === workerSession).map((e) => e.event_type);
    expect(workerTypes).toEqual([
      'session.spawned',
      'claude.init',
      'claude.assistant',
      'claude.assistant',
      'claude.tool_result',
      'claude.assistant',
      'claude.result',
      'session.exited',
      'usage.recorded',
      'handoff',
    ]);
    const exited = events.find((e) => e.event_type === 'session.exited' && e.session_id === workerSession)!;
    expect(exited.payload).toMatchObject({ status: 'success', exit_code: 0, signal: null, role: 'worker' });

    // The extractor ran as its own journalled session under the worker's, its prompt carrying the
    // worker's final result verbatim.
    const [extractor] = await loop.db.sql<{ id: string; parent_session_id: string; status: string }[]>`
      select id, parent_session_id, status from dispatch.sessions where task_id = ${taskId} and role = 'extractor'`;
    expect(extractor).toMatchObject({ parent_session_id: workerSession, status: 'success' });
    expect(events.some((e) => e.session_id === extractor!.id && e.event_type === 'claude.result')).toBe(true);
    const extractorRequest = loop.model.requests.find((r) => r.userText.includes('handoff extractor') && r.userText.includes('GREETING-DONE'))!;
    expect(extractorRequest.userText).toContain('GREETING-DONE: the command printed hello team.');
    const workerRequest = loop.model.requests.find((r) => r.userText.includes('Greet the team with echo.') && !r.userText.includes('handoff extractor'))!;
    expect(workerRequest.userText).toContain('Greet the team with echo.\n\nApproach: use echo');

    const h = events.find((e) => e.event_type === 'handoff')!;
    const workerResult = events.find((e) => e.session_id === workerSession && e.event_type === 'claude.result')!;
    expect(h.tier).toBe('derived');
    expect(h.parent_id).toBe(workerResult.event_id);
    expect(h.payload).toMatchObject({ goal: 'Print a greeting', ruled_out: [{ approach: 'printf with locale tricks', reason: 'echo is enough' }] });
    expect(events.at(-1)).toMatchObject({ event_type: 'task.status_changed', payload: { status: 'success', handoff_id: h.event_id } });
  });
});

describe('each status, reached for real', () => {
  it('a 500 from the model ends failed, and the policy escalates to the orchestrator', async () => {
    const taskId = await loop.submit(project, 'Fail with a server error please.');
    const t = await loop.waitTask(taskId, 'failed');
    expect(t.status_reason).toMatch(/API Error: 500/);
    const events = await eventsOf(loop.db, taskId);
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({ status: 'failed', exit_code: 1 });
    expect(events.find((e) => e.event_type === 'policy.decision')!.payload).toMatchObject({ action: 'escalate_orchestrator' });
    expect(events.some((e) => e.event_type === 'handoff')).toBe(false);
  });

  // A rate limit holds the whole account (dispatch.quota) for the rest of its database: each
  // rate-limit test runs in a loop of its own, so the other tests are not held behind it.
  it('429s end rate_limited and the policy backs off before another attempt', async () => {
    const loop = await startLoop({ scenarios });
    const project = await loop.project('execution 429', { allowed_tools: ['Bash'] });
    const taskId = await loop.submit(project, 'Hit the rate limit now.');
    const events = await waitFor(() => eventsOf(loop.db, taskId), (ev) => ev.some((e) => e.event_type === 'policy.decision'), {
      what: 'the policy decision',
    });
    const [t] = await loop.db.sql<{ attempt: number; status: string }[]>`select attempt, status from dispatch.tasks where id = ${taskId}`;
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({ status: 'rate_limited' });
    expect(events.some((e) => e.event_type === 'claude.api_retry')).toBe(true);
    const decision = events.find((e) => e.event_type === 'policy.decision')!.payload;
    expect(decision).toMatchObject({ status: 'rate_limited', action: 'back_off', next_attempt: 2 });
    expect(new Date(decision.run_at as string).getTime()).toBeGreaterThan(Date.now() + 200_000);
    expect(t).toEqual({ attempt: 2, status: 'queued' });
    expect(events.some((e) => e.event_type === 'task.status_changed' && e.payload.status === 'rate_limited')).toBe(true);
    // The 429 made the whole account wait (dispatch.quota): the limit lifts here, for the next tests.
    const [q] = await loop.db.sql<{ limited_until: Date | null; reason: string | null }[]>`select limited_until, reason from dispatch.quota`;
    expect(q!.limited_until).not.toBeNull();
    expect(q!.reason).toMatch(/rate limited|429/i);
    await loop.db.sql`update dispatch.quota set limited_until = null`;
  });

  it('a refused credential (401) ends rate_limited with the auth failure as the reason', async () => {
    const loop = await startLoop({ scenarios });
    const project = await loop.project('execution 401', { allowed_tools: ['Bash'] });
    const taskId = await loop.submit(project, 'Use a revoked key for this.');
    await waitFor(() => eventsOf(loop.db, taskId), (ev) => ev.some((e) => e.event_type === 'policy.decision'), {
      what: 'the policy decision',
    });
    const [s] = await loop.db.sql<{ status: string; status_reason: string }[]>`
      select status, status_reason from dispatch.sessions where task_id = ${taskId} and role = 'worker'`;
    expect(s).toMatchObject({ status: 'rate_limited', status_reason: expect.stringMatching(/authentication failed/) });
  });

  it('cancel mid-run sends SIGTERM; the worker exits 143 and the task ends cancelled', async () => {
    const taskId = await loop.submit(project, 'Think forever about cancelling.');
    await waitFor(
      async () => (await loop.db.sql`select 1 from dispatch.events where task_id = ${taskId} and event_type = 'claude.init'`).length,
      (n) => n > 0,
      { what: 'the worker to start' },
    );
    const [r] = await loop.db.sql<{ s: string }[]>`select dispatch.cancel_task(${taskId}) as s`;
    expect(r!.s).toBe('cancelling');
    const t = await loop.waitTask(taskId, 'cancelled');
    const events = await eventsOf(loop.db, taskId);
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({ status: 'cancelled', exit_code: 143 });
    expect(events.find((e) => e.event_type === 'policy.decision')!.payload).toMatchObject({ action: 'none' });
    expect(t.attempt).toBe(1);
  });

  it('a queued task cancelled before it starts never spawns', async () => {
    const [r] = await loop.db.sql.begin(async (tx) => {
      const [t] = await tx<{ id: string }[]>`select dispatch.submit_task(${project}, 'Never run this.') as id`;
      return tx<{ id: string; s: string }[]>`select ${t!.id}::uuid as id, dispatch.cancel_task(${t!.id}) as s`;
    });
    expect(r!.s).toBe('cancelled');
    await loop.waitTask(r!.id, 'cancelled');
    // Its spawn job has run (or been dropped) by now, so no session can still appear.
    await waitFor(
      async () => (await loop.db.sql<{ n: number }[]>`select count(*)::int as n from graphile_worker.jobs where key = ${`spawn_worker:${r!.id}`}`)[0]!.n,
      (n) => n === 0,
      { what: 'the spawn job to be done' },
    );
    const [{ n } = { n: -1 }] = await loop.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.sessions where task_id = ${r!.id}`;
    expect(n).toBe(0);
  });

  it('SIGKILL of the worker ends crashed, and the policy retries it once', async () => {
    const taskId = await loop.submit(project, 'Think forever until killed.');
    const [s] = await waitFor(
      () => loop.db.sql<{ pid: number }[]>`select pid from dispatch.sessions where task_id = ${taskId} and role = 'worker' and pid is not null and attempt = 1`,
      (rows) => rows.length > 0,
      { what: 'the worker pid' },
    );
    process.kill(s!.pid, 'SIGKILL');
    await waitFor(
      async () => (await loop.db.sql<{ status: string }[]>`select status from dispatch.sessions where task_id = ${taskId} and attempt = 1`)[0]!.status,
      (st) => st === 'crashed',
      { what: 'the first session to end crashed' },
    );
    // The policy decides after the session is closed (its own step): wait for its row.
    const events = await waitFor(() => eventsOf(loop.db, taskId), (evs) => evs.some((e) => e.event_type === 'policy.decision'), {
      what: 'the policy decision',
    });
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({ status: 'crashed', signal: 'SIGKILL' });
    expect(events.find((e) => e.event_type === 'policy.decision')!.payload).toMatchObject({ action: 'retry_same', next_attempt: 2 });

    // The second attempt runs (and hangs the same way); cancel it to finish.
    await waitFor(
      () => loop.db.sql`select 1 from dispatch.sessions where task_id = ${taskId} and attempt = 2 and pid is not null`,
      (rows) => rows.length > 0,
      { what: 'attempt 2 to start' },
    );
    await loop.db.sql`select dispatch.cancel_task(${taskId})`;
    const t = await loop.waitTask(taskId, 'cancelled');
    expect(t.attempt).toBe(2);
  });
});

describe('the validation gate', () => {
  it('a malformed extractor answer ends extraction_failed with the errors journalled and no handoff', async () => {
    const taskId = await loop.submit(project, 'Write a malformed handoff for me.');
    const t = await loop.waitTask(taskId, 'extraction_failed');
    expect(t.status_reason).toMatch(/failed the gate/);
    const events = await eventsOf(loop.db, taskId);
    const rejected = events.find((e) => e.event_type === 'handoff.rejected')!;
    expect(rejected.tier).toBe('raw');
    expect(rejected.payload.errors).toEqual([{ field: '(answer)', message: expect.stringMatching(/no JSON object/) }]);
    expect(events.some((e) => e.tier === 'derived')).toBe(false);
    expect(events.find((e) => e.event_type === 'policy.decision')!.payload).toMatchObject({ action: 'escalate_user' });
    // No retry: one worker and one extractor session only.
    const [{ n } = { n: -1 }] = await loop.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.sessions where task_id = ${taskId}`;
    expect(n).toBe(2);
  });

  it('an answer missing a required field names the field', async () => {
    const taskId = await loop.submit(project, 'Leave out a field in the handoff.');
    await loop.waitTask(taskId, 'extraction_failed');
    const events = await eventsOf(loop.db, taskId);
    expect(events.find((e) => e.event_type === 'handoff.rejected')!.payload.errors).toEqual([
      { field: 'ruled_out', message: "must have required property 'ruled_out'" },
    ]);
    expect(events.some((e) => e.event_type === 'handoff')).toBe(false);
  });
});
