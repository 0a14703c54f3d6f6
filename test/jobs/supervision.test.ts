// Supervision edge cases with the real CLI: a silent worker becomes stalled (and visibly so), a
// process that lingers after its result is ended and classified from the result, and an error
// result with exit 0 is still failed.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';

const scenarios: Scenario[] = [
  {
    name: 'supervision',
    description: '',
    conversations: [
      {
        match: 'handoff extractor',
        steps: [{ text: JSON.stringify({ goal: 'g', current_state: 's', ruled_out: [] }), chunks: 1, delay_ms: 0 }],
      },
      { match: 'Never answer', steps: [{ hang: true }] },
      { match: 'Answer quickly', steps: [{ text: 'Quick answer.', chunks: 1, delay_ms: 0 }] },
      { match: 'Break the server', steps: [{ error: { status: 500, type: 'api_error', message: 'Internal server error' } }] },
    ],
  },
];

describe('a worker whose model never answers', () => {
  let loop: Loop;
  beforeAll(async () => {
    loop = await startLoop({ scenarios, env: { STALL_SECONDS: '1' } });
  });

  it('is journalled as stalled once, and the task shows stalled until it is cancelled', async () => {
    const project = await loop.project('stalls');
    const taskId = await loop.submit(project, 'Never answer this.');
    await loop.waitTask(taskId, 'stalled');
    // One stall per silence: a slow start may stall and resume before the model hangs, so the session
    // and its journal are read in one snapshot (read apart, a resume could fall between the two reads),
    // once the session is stalled in it.
    const { s, ev } = await waitFor(
      () =>
        loop.db.sql.begin('isolation level repeatable read read only', async (tx) => {
          const [s] = await tx<{ stalled: boolean; status: string; ended_at: Date | null }[]>`
            select stalled, status, ended_at from dispatch.sessions where task_id = ${taskId} and role = 'worker'`;
          const ev = await tx<{ event_type: string; payload: Record<string, unknown> }[]>`
            select event_type, payload from dispatch.events where task_id = ${taskId} order by seq`;
          return { s, ev: [...ev] };
        }),
      (r) => r.s?.stalled === true,
      { what: 'the worker to be stalled' },
    );
    expect(s).toEqual({ stalled: true, status: 'stalled', ended_at: null });
    const stalled = ev.filter((e) => e.event_type === 'session.stalled');
    const resumed = ev.filter((e) => e.event_type === 'session.resumed');
    expect(stalled.length).toBe(resumed.length + 1);
    expect(stalled.at(-1)!.payload).toMatchObject({ threshold_ms: 1000 });

    await loop.db.sql`select dispatch.cancel_task(${taskId})`;
    await loop.waitTask(taskId, 'cancelled');
    const [after] = await loop.db.sql<{ stalled: boolean; status: string }[]>`
      select stalled, status from dispatch.sessions where task_id = ${taskId} and role = 'worker'`;
    expect(after).toEqual({ stalled: false, status: 'cancelled' });
  });
});

describe('a process that does not exit after its result', () => {
  let loop: Loop;
  beforeAll(async () => {
    loop = await startLoop({ scenarios, wrapper: 'claude-then-hang', env: { RESULT_GRACE_SECONDS: '1' } });
  });

  it('is stopped after the grace period and classified from its result', async () => {
    const project = await loop.project('lingering');
    const taskId = await loop.submit(project, 'Answer quickly please.');
    const events = await waitFor(
      () => eventsOf(loop.db, taskId),
      (ev) => ev.some((e) => e.event_type === 'session.exited'),
      { what: 'the worker to be ended' },
    );
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({
      status: 'success',
      ended_after_result: true,
      reason: 'result arrived; the process did not exit and was stopped',
    });
  });
});

describe('an error result with exit code 0', () => {
  let loop: Loop;
  beforeAll(async () => {
    loop = await startLoop({ scenarios, wrapper: 'claude-exit-zero' });
  });

  it('ends failed, not success', async () => {
    const project = await loop.project('exit zero');
    const taskId = await loop.submit(project, 'Break the server for me.');
    const t = await loop.waitTask(taskId, 'failed');
    expect(t.status_reason).toMatch(/API Error: 500/);
    const exited = (await eventsOf(loop.db, taskId)).find((e) => e.event_type === 'session.exited')!;
    expect(exited.payload).toMatchObject({ exit_code: 0, status: 'failed' });
  });
});
