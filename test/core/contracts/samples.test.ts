// Runtime half of the contract checks: the server's zod schema and the client's valibot schema of
// each wire shape accept and refuse the same samples, and what they accept comes out the same.
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import * as S from './shapes.ts';

interface Case {
  name: string;
  zod: z.ZodType;
  valibot: v.GenericSchema;
  accepted: unknown[];
  rejected: unknown[];
}

const id = () => crypto.randomUUID();
const at = '2026-01-02T03:04:05.678Z';

const task = {
  id: id(), project_id: id(), parent_id: null, status: 'running', status_reason: 'attempt 1 started', brief: 'Do it',
  approach: null, plan_ref: null, attempt: 1, created_at: at, started_at: at, ended_at: null, last_activity_at: at,
  duration_ms: 1234, stalled: false,
};
const session = {
  id: id(), project_id: task.project_id, task_id: task.id, parent_session_id: null, role: 'worker', status: 'running',
  status_reason: null, attempt: 1, pid: 4242, host: 'box', stalled: false, created_at: at, started_at: at, ended_at: null,
  last_output_at: at, lines_written: 12, exit_code: null, signal: null, duration_ms: 500,
};
const event = {
  event_id: id(), seq: 7, project_id: task.project_id, session_id: session.id, task_id: task.id, parent_id: null,
  thread_id: null, message_id: null, event_type: 'claude.assistant', tier: 'raw',
  payload: { type: 'assistant', message: { content: [{ type: 'text', text: 'hi' }] } },
  summary: { kind: 'text', text: 'hi' }, line_no: 3, created_at: at,
};
const project = { id: task.project_id, name: 'demo', config: { allowed_tools: ['Bash'], mode: 'autonomous' }, created_at: at };
const message = { id: id(), message_id: id(), project_id: task.project_id, text: 'hello', seq: 9, status: 'pending', created_at: at };
const focus = { id: id(), seq: 10, thread_id: 4, task_id: task.id, project_id: task.project_id, created_at: at };
const status = { name: 'failed', terminal: true, clean: false, alarming: true, failure: true, blocking: false, needs_user: false, notifies: true, description: 'x' };
const workingSet = { session_id: id(), turn_status: 'success', in_flight: [{ task_id: task.id, status: 'running', brief: 'b', attempt: 1 }], stop: null, seq: 11, future_field: 1 };
const needsYou = {
  key: `gate:${id()}`, kind: 'gate', project_id: project.id, task_id: task.id, session_id: session.id, gate_id: id(), role: null,
  title: 'approve Bash?', detail: 'rm -rf build — deletes files', since: at,
};
const totals = { cost_usd: 0.42, input_tokens: 1200, output_tokens: 300, cache_read_tokens: 5000, cache_creation_tokens: 40, sessions: 3 };
const usage = { cost_usd: 0.0123, input_tokens: 25, output_tokens: 3, cache_read_tokens: 0, cache_creation_tokens: 0, models: ['claude-opus-4-8'] };

const change = {
  branch: 'dispatch/0a1b2c3d-1', base_commit: 'a'.repeat(40), head_commit: 'b'.repeat(40),
  files: [{ path: 'notes.txt', insertions: 2, deletions: 1 }, { path: 'logo.png', insertions: 0, deletions: 0, binary: true }],
  patch: 'diff --git a/notes.txt b/notes.txt\n', truncated: false, patch_bytes: 35,
};
const workspace = {
  id: id(), task_id: task.id, project_id: task.project_id, attempt: 1, branch: change.branch, base: 'main', from_ref: 'main',
  path: '/data/worktrees/p/0a1b2c3d-1', base_commit: change.base_commit, head_commit: change.head_commit, state: 'ready',
  conflicts: [], created_at: at, updated_at: at, removed_at: null, change,
};

const cases: Case[] = [
  {
    name: 'workspace change', zod: S.zod.ChangeSchema, valibot: S.valibot.ChangeSchema,
    accepted: [change, { ...change, files: [], patch: '', truncated: true, patch_bytes: 6_000_000 }],
    rejected: [{ ...change, truncated: 'no' }, { ...change, files: [{ path: 'x', insertions: -1, deletions: 0 }] }, { ...change, patch_bytes: 1.5 }],
  },
  {
    name: 'workspace', zod: S.zod.WorkspaceSchema, valibot: S.valibot.WorkspaceSchema,
    accepted: [workspace, { ...workspace, head_commit: null, change: null, state: 'active' }, { ...workspace, state: 'merged', removed_at: at }],
    rejected: [{ ...workspace, state: 'pending' }, { ...workspace, conflicts: [1] }, (({ change: _c, ...rest }) => rest)(workspace)],
  },
  {
    name: 'workspace list', zod: S.zod.WorkspaceListSchema, valibot: S.valibot.WorkspaceListSchema,
    accepted: [{ workspaces: [workspace], waiting: 1 }, { workspaces: [], waiting: 0 }],
    rejected: [{ workspaces: [workspace] }, { workspaces: [], waiting: -1 }],
  },
  {
    name: 'decision', zod: S.zod.DecisionSchema, valibot: S.valibot.DecisionSchema,
    accepted: [{ task_id: task.id, action: 'merge', job: { id: '42', task_identifier: 'merge_workspace', key: 'merge_workspace:x' } }],
    rejected: [{ task_id: task.id, action: 'keep', job: { id: '42', task_identifier: 'x', key: null } }, { task_id: task.id, action: 'merge', job: { id: 42, task_identifier: 'x', key: null } }],
  },
  {
    name: 'error body', zod: S.zod.ErrorBody, valibot: S.valibot.ErrorBody,
    accepted: [{ error: { code: 'not_found', message: 'no task' } }, { error: { code: 'invalid_input', message: 'x', details: [{ path: 'a' }] } }],
    rejected: [{ error: { code: 1, message: 'x' } }, { code: 'x', message: 'y' }, null],
  },
  {
    name: 'event summary', zod: S.zod.EventSummarySchema, valibot: S.valibot.EventSummarySchema,
    accepted: [{ kind: 'tool_use', tool: 'Bash', input_summary: 'ls' }, { kind: 'result', text: 'done', is_error: false }, { kind: 'stream' }],
    rejected: [{ kind: 'assistant' }, { text: 'no kind' }, { kind: 'text', text: 5 }, { kind: 'result', is_error: 'yes' }],
  },
  {
    name: 'event row', zod: S.zod.EventSchema, valibot: S.valibot.EventSchema,
    accepted: [event, { ...event, summary: null, payload: null, line_no: null, session_id: null, tier: 'derived' }],
    rejected: [
      { ...event, seq: 1.5 }, { ...event, seq: '7' }, { ...event, tier: 'cooked' }, { ...event, event_id: 'not-a-uuid' },
      { ...event, summary: { kind: 'nonsense' } }, (({ summary: _s, ...rest }) => rest)(event),
    ],
  },
  {
    name: 'task', zod: S.zod.TaskSchema, valibot: S.valibot.TaskSchema,
    accepted: [task, { ...task, ended_at: at, status: 'success', duration_ms: null, extra: 'dropped' }],
    rejected: [{ ...task, attempt: 1.5 }, { ...task, stalled: 'no' }, { ...task, plan_ref: undefined }, { ...task, id: 42 }],
  },
  {
    name: 'task with its sessions', zod: S.zod.TaskDetailSchema, valibot: S.valibot.TaskDetailSchema,
    accepted: [{ ...task, sessions: [session] }, { ...task, sessions: [] }],
    rejected: [task, { ...task, sessions: [{ ...session, lines_written: null }] }],
  },
  {
    name: 'session', zod: S.zod.SessionSchema, valibot: S.valibot.SessionSchema,
    accepted: [session, { ...session, task_id: null, attempt: null, pid: null, exit_code: 143, signal: 'SIGTERM', ended_at: at }],
    rejected: [{ ...session, role: null }, { ...session, pid: '4242' }, { ...session, project_id: null }],
  },
  {
    name: 'project config', zod: S.zod.ProjectConfigSchema, valibot: S.valibot.ProjectConfigSchema,
    accepted: [{}, { cwd: '/w', allowed_tools: ['Bash'], extra_args: [''], mode: 'interactive', repo: '/r' }],
    rejected: [{ mode: 'chaotic' }, { allowed_tools: [''] }, { allowed_tools: Array(101).fill('x') }, { cwd: '' }, { model: 3 }],
  },
  {
    name: 'project', zod: S.zod.ProjectSchema, valibot: S.valibot.ProjectSchema,
    accepted: [project, { ...project, config: {} }],
    rejected: [{ ...project, config: null }, { ...project, name: undefined }, { ...project, config: { mode: 'x' } }],
  },
  {
    name: 'message', zod: S.zod.MessageSchema, valibot: S.valibot.MessageSchema,
    accepted: [message, { ...message, status: 'delivered' }],
    rejected: [{ ...message, status: 'lost' }, { ...message, message_id: 'm1' }, { ...message, seq: null }],
  },
  {
    name: 'focus', zod: S.zod.FocusSchema, valibot: S.valibot.FocusSchema,
    accepted: [focus, { ...focus, thread_id: 'th_four' }, { ...focus, thread_id: null, task_id: null, project_id: null }],
    rejected: [{ ...focus, thread_id: true }, { ...focus, thread_id: { id: 4 } }, { ...focus, id: undefined }],
  },
  {
    name: 'health daily', zod: S.zod.HealthDailySchema, valibot: S.valibot.HealthDailySchema,
    accepted: [{ days: [] }, { days: [{ day: '2026-11-30', crashes: 2, client_crashes: 1, unclean_stops: 1, restarts: 3, starts: 4 }] }],
    rejected: [{ days: [{ day: '2026-11-30', crashes: 1.5, client_crashes: 1, unclean_stops: 0, restarts: 0, starts: 0 }] }, { days: null }, {}],
  },
  {
    name: 'status row', zod: S.zod.StatusRowSchema, valibot: S.valibot.StatusRowSchema,
    accepted: [status],
    rejected: [{ ...status, notifies: undefined }, { ...status, terminal: 'yes' }],
  },
  {
    name: 'working set', zod: S.zod.WorkingSetSchema, valibot: S.valibot.WorkingSetSchema,
    accepted: [workingSet, {}, { stop: { where: 'worker', why: 'failed' }, last_message: null }],
    rejected: [{ stop: { where: 'worker' } }, { in_flight: [{ task_id: 1 }] }, { seq: 'x' }],
  },
  {
    name: 'usage', zod: S.zod.UsageSchema, valibot: S.valibot.UsageSchema,
    accepted: [usage, { ...usage, cost_usd: null, models: [] }],
    rejected: [{ ...usage, input_tokens: -1 }, { ...usage, output_tokens: 1.5 }, { ...usage, models: undefined }],
  },
  {
    name: 'usage report', zod: S.zod.UsageReportSchema, valibot: S.valibot.UsageReportSchema,
    accepted: [
      { rows: [{ key: '2026-01-02', ...totals }], total: totals },
      { rows: [], total: { ...totals, cost_usd: 0, sessions: 0 } },
    ],
    rejected: [
      { rows: [{ ...totals }], total: totals }, { rows: [], total: { ...totals, cost_usd: null } },
      { rows: [], total: { ...totals, sessions: -1 } }, { rows: [] },
    ],
  },
  {
    name: 'budget state', zod: S.zod.BudgetStateSchema, valibot: S.valibot.BudgetStateSchema,
    accepted: [
      { per_task_usd: 0.5, per_day_usd: 5, day: '2026-01-02', spent_today_usd: 1.25, remaining_today_usd: 3.75, held_tasks: 0 },
      { per_task_usd: null, per_day_usd: null, day: '2026-01-02', spent_today_usd: 0, remaining_today_usd: null, held_tasks: 0 },
    ],
    rejected: [
      { per_task_usd: 0.5, per_day_usd: 5, day: '2026-01-02', spent_today_usd: 1, remaining_today_usd: 4, held_tasks: 1.5 },
      { per_day_usd: 5, day: '2026-01-02', spent_today_usd: 1, remaining_today_usd: 4, held_tasks: 0 },
    ],
  },
  {
    name: 'quota state', zod: S.zod.QuotaStateSchema, valibot: S.valibot.QuotaStateSchema,
    accepted: [
      { limited: true, until: at, reason: 'rate limited (429)', session_id: session.id, updated_at: at, waiting_tasks: 3 },
      { limited: false, until: null, reason: null, session_id: null, updated_at: at, waiting_tasks: 0 },
    ],
    rejected: [{ limited: 'yes', until: null, reason: null, session_id: null, updated_at: at, waiting_tasks: 0 }, { limited: false }],
  },
  {
    name: 'task usage', zod: S.zod.TaskUsageSchema, valibot: S.valibot.TaskUsageSchema,
    accepted: [
      { task_id: task.id, total: totals, by_role: [{ key: 'worker', ...totals }, { key: 'orchestrator', ...totals, sessions: 0 }], by_model: [{ key: 'claude-opus-4-8', ...totals }] },
    ],
    rejected: [{ task_id: 'x', total: totals, by_role: [], by_model: [] }, { task_id: task.id, total: totals, by_role: [totals], by_model: [] }],
  },
  {
    name: 'trellis view', zod: S.zod.TrellisViewSchema, valibot: S.valibot.TrellisViewSchema,
    accepted: [
      { available: false, reason: 'not configured (set TRELLIS_URL)' },
      { available: true, live_thread: { id: 4, title: 'Live', colour: 'red' }, threads: [{ id: 'a' }], recent_context: ['x'] },
      { available: true, live_thread: null, threads: [], recent_context: [] },
    ],
    rejected: [{ available: true }, { available: false }, { available: 'no', reason: 'x' }, { available: true, live_thread: { title: 'no id' }, threads: [], recent_context: [] }],
  },
  {
    name: 'needs you list', zod: S.zod.NeedsYouListSchema, valibot: S.valibot.NeedsYouListSchema,
    accepted: [
      { items: [needsYou, { ...needsYou, kind: 'login', project_id: null, gate_id: null }], finished: [{ project_id: project.id, event_id: id(), since: at }] },
      { items: [], finished: [] },
    ],
    rejected: [{ items: [{ ...needsYou, kind: 'loop_stopped' }], finished: [] }, { items: [] }, { items: [{ ...needsYou, key: 3 }], finished: [] }],
  },
  {
    name: 'state snapshot', zod: S.zod.StateSchema, valibot: S.valibot.StateSchema,
    accepted: [{
      seq: 12, generated_at: at, projects: [project], tasks: [task], sessions: [session], pending_messages: [message], focus,
      working_sets: { [project.id]: workingSet }, statuses: [status], needs_you: [needsYou], finished: [],
    }, {
      seq: 0, generated_at: at, projects: [], tasks: [], sessions: [], pending_messages: [], focus: null, working_sets: {}, statuses: [],
    }],
    rejected: [
      { seq: 0, generated_at: at, projects: [], tasks: [], sessions: [], pending_messages: [], focus: null, working_sets: {} },
      { seq: 0, generated_at: at, projects: [], tasks: [{ id: 1 }], sessions: [], pending_messages: [], focus: null, working_sets: {}, statuses: [] },
    ],
  },
];

describe('each wire shape has one contract: the server and the client accept the same samples', () => {
  for (const c of cases) {
    it(`${c.name}: both accept the good samples and read them alike`, () => {
      for (const sample of c.accepted) {
        const z = c.zod.safeParse(sample);
        const vb = v.safeParse(c.valibot, sample);
        expect(z.success, `zod refused ${JSON.stringify(sample)}: ${z.error?.message}`).toBe(true);
        expect(vb.success, `valibot refused ${JSON.stringify(sample)}`).toBe(true);
        expect(vb.output).toEqual(z.data);
      }
    });
    it(`${c.name}: both refuse the bad samples`, () => {
      for (const sample of c.rejected) {
        expect(c.zod.safeParse(sample).success, `zod accepted ${JSON.stringify(sample)}`).toBe(false);
        expect(v.safeParse(c.valibot, sample).success, `valibot accepted ${JSON.stringify(sample)}`).toBe(false);
      }
    });
  }
});
