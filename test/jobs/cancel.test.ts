// Cancelling a running task as a person does it (POST /api/tasks/:id/cancel), and the escalation
// when the process ignores SIGTERM: SIGKILL after KILL_GRACE_SECONDS.
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop } from '../helpers/loop.ts';

const thinking: Scenario = {
  name: 'cancel',
  description: '',
  conversations: [{ match: 'Think until cancelled', steps: [{ hang: true, partial_text: 'Thinking' }] }],
};

async function running(loop: Awaited<ReturnType<typeof startLoop>>, taskId: string): Promise<number> {
  const [s] = await waitFor(
    () => loop.db.sql<{ pid: number }[]>`select s.pid from dispatch.sessions s
      where s.task_id = ${taskId} and s.role = 'worker' and s.pid is not null
        and exists (select 1 from dispatch.events e where e.session_id = s.id and e.event_type = 'claude.init')`,
    (rows) => rows.length === 1,
    { what: 'the worker to run' },
  );
  return s!.pid;
}

describe('cancel', () => {
  it('over HTTP: 200 cancelling, the worker gets SIGTERM, exits 143, the task ends cancelled', async () => {
    const loop = await startLoop({ scenarios: [thinking] });
    const project = await loop.project('cancel over http');
    const taskId = await loop.submit(project, 'Think until cancelled, over HTTP.');
    await running(loop, taskId);
    const res = await fetch(`${loop.url}/api/tasks/${taskId}/cancel`, { method: 'POST' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: taskId, status: 'cancelling' });
    await loop.waitTask(taskId, 'cancelled');
    const events = await eventsOf(loop.db, taskId);
    expect(events.find((e) => e.event_type === 'task.cancel_requested')!.payload).toMatchObject({ status_before: 'running' });
    expect(events.find((e) => e.event_type === 'session.exited')!.payload).toMatchObject({ status: 'cancelled', exit_code: 143 });
    // Cancelling again changes nothing.
    expect(await (await fetch(`${loop.url}/api/tasks/${taskId}/cancel`, { method: 'POST' })).json()).toEqual({ id: taskId, status: 'cancelled' });
  });

  it('a process that ignores SIGTERM is killed with SIGKILL after KILL_GRACE_SECONDS', async () => {
    const loop = await startLoop({ scenarios: [thinking], wrapper: 'claude-ignores-sigterm', env: { KILL_GRACE_SECONDS: '3' } });
    const project = await loop.project('cancel escalation');
    const taskId = await loop.submit(project, 'Think until cancelled, ignoring SIGTERM.');
    const pid = await running(loop, taskId);
    await loop.db.sql`select dispatch.cancel_task(${taskId})`;
    await loop.waitTask(taskId, 'cancelled', 30_000);
    const events = await eventsOf(loop.db, taskId);
    const exited = events.find((e) => e.event_type === 'session.exited')!;
    expect(exited.payload).toMatchObject({ signal: 'SIGKILL' });
    // The SIGKILL came only after the grace: the database's own clock between request and exit.
    const [{ waited } = { waited: 0 }] = await loop.db.sql<{ waited: number }[]>`
      select extract(epoch from x.created_at - r.created_at)::float as waited
        from dispatch.events r, dispatch.events x
       where r.task_id = ${taskId} and r.event_type = 'task.cancel_requested' and x.event_id = ${exited.event_id}`;
    expect(waited).toBeGreaterThanOrEqual(3);
    expect(() => process.kill(pid, 0)).toThrow(); // and it is gone
  });
});
