// The Claude Code failure modes, each classified correctly and visible: no result then exit 0; a
// hang after a tool result; a truncated 64 KiB last line; an inherited CLAUDECODE variable.
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop } from '../helpers/loop.ts';

const say = (text: string) => ({ text, chunks: 1, delay_ms: 0 });
const scenarios: Scenario[] = [
  {
    name: 'failures',
    description: '',
    conversations: [
      { match: 'handoff extractor', steps: [say(JSON.stringify({ goal: 'g', current_state: 's', ruled_out: [] }))] },
      { match: 'Answer briefly', steps: [say('Brief answer.')] },
      {
        match: 'Run then hang',
        steps: [{ tool_use: { name: 'Bash', input: { command: 'echo tool ran', description: 'run' } } }, { hang: true }],
      },
    ],
  },
];

describe('Claude Code failure modes', () => {
  it('no result line and exit 0 ends failed, saying so', async () => {
    const loop = await startLoop({ scenarios, wrapper: 'claude-no-result' });
    const taskId = await loop.submit(await loop.project('no result'), 'Answer briefly.');
    const t = await loop.waitTask(taskId, 'failed');
    expect(t.status_reason).toBe('exit 0 without a result line');
  });

  it('a 64 KiB truncated last line is kept as stdout.truncated_json and the run ends failed', async () => {
    const loop = await startLoop({ scenarios, wrapper: 'claude-truncated-tail' });
    const taskId = await loop.submit(await loop.project('truncated'), 'Answer briefly.');
    await loop.waitTask(taskId, 'failed');
    const events = await eventsOf(loop.db, taskId);
    const last = events.filter((e) => e.event_type.startsWith('stdout.') || e.event_type.startsWith('claude.')).at(-1)!;
    expect(last.event_type).toBe('stdout.truncated_json');
    expect((last.payload.text as string).length).toBeGreaterThan(65536);
  });

  it('a line type the journal does not know (a newer CLI) is kept as its own row, in place, and the run ends as it would', async () => {
    const loop = await startLoop({ scenarios, wrapper: 'claude-novel-lines' });
    const taskId = await loop.submit(await loop.project('novel lines'), 'Answer briefly.');
    await loop.waitTask(taskId, 'success');
    const lines = await loop.db.sql<{ event_type: string; line_no: number; payload: Record<string, unknown> }[]>`
      select e.event_type, e.line_no, e.payload from dispatch.events e join dispatch.sessions s on s.id = e.session_id
       where e.task_id = ${taskId} and s.role = 'worker' and e.line_no is not null and e.event_type <> 'claude.stream_event' order by e.seq`;
    expect(lines.slice(0, 3).map((e) => e.event_type)).toEqual(['claude.unknown', 'claude.init', 'claude.unknown']);
    expect(lines[0]!.payload).toEqual({ type: 'session_forecast', forecast: { tokens: 42 }, note: 'printed before init' });
    expect(lines[2]!.payload).toMatchObject({ type: 'tool_progress', percent: 50 });
    expect(lines.map((e) => e.line_no)).toEqual([...lines.map((e) => e.line_no)].sort((a, b) => a - b));
    expect(lines.at(-1)!.event_type).toBe('claude.result');
  });

  it('a hang after a tool result becomes a visible stall, and cancel ends it', async () => {
    const loop = await startLoop({ scenarios, env: { STALL_SECONDS: '1' } });
    const taskId = await loop.submit(await loop.project('hang after tool', { allowed_tools: ['Bash'] }), 'Run then hang, please.');
    // (A slow start can stall too; what matters is the stall after the tool result.)
    const events = await waitFor(
      () => eventsOf(loop.db, taskId),
      (ev) => {
        const tool = ev.find((e) => e.event_type === 'claude.tool_result');
        return !!tool && ev.some((e) => e.event_type === 'session.stalled' && e.seq > tool.seq);
      },
      { timeout: 30_000, what: 'a stall after the tool result' },
    );
    expect(events.filter((e) => e.event_type.startsWith('claude.')).at(-1)!.event_type).toBe('claude.tool_result');
    await loop.waitTask(taskId, 'stalled');
    await loop.db.sql`select dispatch.cancel_task(${taskId})`;
    await loop.waitTask(taskId, 'cancelled');
  });

  it('an inherited CLAUDECODE variable never reaches the worker, which runs normally', async () => {
    process.env.CLAUDECODE = '1';
    try {
      const loop = await startLoop({ scenarios, wrapper: 'claude-report-env', env: {} });
      const taskId = await loop.submit(await loop.project('claudecode'), 'Answer briefly.');
      await loop.waitTask(taskId, 'success');
      const tails = await waitFor(
        async () => (await eventsOf(loop.db, taskId)).filter((e) => e.event_type === 'stderr.tail').map((e) => e.payload.text as string),
        (x) => x.length > 0,
        { what: 'the stderr tail' },
      );
      expect(tails[0]).toContain('no CLAUDECODE in the worker');
    } finally {
      delete process.env.CLAUDECODE;
    }
  });
});
