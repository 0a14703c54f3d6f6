// Stacked worktrees with the real CLI, the scripted model and a real repository: a task that
// depends on another starts from its branch and sees its file before anyone merged it; merging the
// dependent is refused until what it builds on is merged, then both land in order; discarding a
// change tells the task built on it, and that one cannot be merged while it holds the discarded work;
// a dependency that changed nothing holds nothing up.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo, type TestRepo } from '../helpers/repo.ts';

const handoff = (marker: string): Scenario['conversations'][number] => ({
  match: marker,
  steps: [{ text: JSON.stringify({ goal: marker, current_state: 'done', ruled_out: [] }), chunks: 1, delay_ms: 0 }],
});
const write = (file: string, content: string) => ({ tool_use: { name: 'Write', input: { file_path: file, content } } });
const bash = (command: string) => ({ tool_use: { name: 'Bash', input: { command, description: 'run' } } });

const scenarios: Scenario[] = [
  {
    name: 'stacked',
    description: '',
    conversations: [
      handoff('PARSER-DONE'),
      handoff('TESTS-DONE'),
      handoff('DRAFT-DONE'),
      handoff('ONDRAFT-DONE'),
      handoff('LOOK-DONE'),
      handoff('AFTER-DONE'),
      { match: 'Look over the readme', steps: [bash('cat README.md'), { text: 'LOOK-DONE: nothing to change.', chunks: 1, delay_ms: 0 }] },
      { match: 'Write after the look', steps: [write('after.txt', 'after\n'), { text: 'AFTER-DONE: wrote it.', chunks: 1, delay_ms: 0 }] },
      { match: 'Write the parser', steps: [write('parser.txt', 'the parser\n'), { text: 'PARSER-DONE: wrote it.', chunks: 1, delay_ms: 0 }] },
      {
        match: 'Test the parser',
        steps: [bash('cat parser.txt'), write('tests.txt', 'tests of the parser\n'), { text: 'TESTS-DONE: tested it.', chunks: 1, delay_ms: 0 }],
      },
      { match: 'Write a draft', steps: [write('draft.txt', 'a draft\n'), { text: 'DRAFT-DONE: drafted.', chunks: 1, delay_ms: 0 }] },
      { match: 'Build on the draft', steps: [write('more.txt', 'more\n'), { text: 'ONDRAFT-DONE: built on it.', chunks: 1, delay_ms: 0 }] },
    ],
  },
];

let loop: Loop;
let repo: TestRepo;
let project: string;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
  repo = makeRepo({ 'README.md': '# stacked\n' });
  project = await loop.project('stacked', { repo: repo.dir, allowed_tools: ['Write', 'Read', 'Bash'] });
});

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${loop.url}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}
async function submit(brief: string, depends_on?: string[]): Promise<string> {
  const r = await api('POST', '/api/tasks', { project_id: project, brief, ...(depends_on ? { depends_on } : {}) });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.id as string;
}
async function outcome(taskId: string, types: string[]) {
  const found = await waitFor(
    async () => (await eventsOf(loop.db, taskId)).filter((e) => types.includes(e.event_type)).at(-1),
    (e) => e !== undefined,
    { what: `one of ${types.join(', ')} for ${taskId}` },
  );
  return found!;
}

const ids: Record<string, string> = {};

describe('a task that depends on a task with a change', () => {
  it("starts from its dependency's branch and sees its file before anyone merged it", async () => {
    ids.A = await submit('Write the parser file.');
    ids.B = await submit('Test the parser file.', [ids.A]);
    await loop.waitTask(ids.B, 'success', 180_000);
    const a = (await eventsOf(loop.db, ids.A)).find((e) => e.event_type === 'workspace.changed')!.payload;
    const created = (await eventsOf(loop.db, ids.B)).find((e) => e.event_type === 'workspace.created')!.payload;
    expect(created).toMatchObject({ from: a.branch, base_commit: a.head_commit, base: 'main' });
    const [seen] = await loop.db.sql<{ text: string }[]>`
      select summary::text as text from dispatch.events where task_id = ${ids.B} and event_type = 'claude.tool_result' order by seq limit 1`;
    expect(seen!.text).toContain('the parser');
    // B's own change is only its file: A's is A's to merge.
    const changed = (await eventsOf(loop.db, ids.B)).find((e) => e.event_type === 'workspace.changed')!.payload as { files: { path: string }[] };
    expect(changed.files.map((f) => f.path)).toEqual(['tests.txt']);
  });

  it('cannot be merged before its dependency: 409 dependency_not_merged naming it', async () => {
    const r = await api('POST', `/api/tasks/${ids.B}/merge`);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'dependency_not_merged', details: { blocking_task_id: ids.A, state: 'ready' } });
    expect(r.body.error.message).toContain('Write the parser file.');
    expect(repo.git('ls-tree', '--name-only', 'main')).not.toContain('parser.txt');
  });

  it('is merged after its dependency, the two changes landing in order', async () => {
    expect((await api('POST', `/api/tasks/${ids.A}/merge`)).status).toBe(202);
    expect((await outcome(ids.A!, ['workspace.merged', 'workspace.merge_refused'])).event_type).toBe('workspace.merged');
    expect((await api('POST', `/api/tasks/${ids.B}/merge`)).status).toBe(202);
    const merged = await outcome(ids.B!, ['workspace.merged', 'workspace.merge_refused']);
    expect(merged.event_type).toBe('workspace.merged');
    expect(repo.git('ls-tree', '--name-only', 'main').split('\n').sort()).toEqual(['README.md', 'parser.txt', 'tests.txt']);
  });
});

describe('discarding a change that another task built on', () => {
  it('tells that task, whose merge is then refused while it holds the discarded work', async () => {
    ids.D = await submit('Write a draft file.');
    ids.E = await submit('Build on the draft file.', [ids.D]);
    await loop.waitTask(ids.E, 'success', 180_000);
    expect((await api('POST', `/api/tasks/${ids.D}/discard`)).status).toBe(202);
    await outcome(ids.D!, ['workspace.discarded']);
    const told = await outcome(ids.E!, ['task.dependency_discarded']);
    expect(told.payload).toMatchObject({ dependency: ids.D });
    const r = await api('POST', `/api/tasks/${ids.E}/merge`);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'dependency_not_merged', details: { blocking_task_id: ids.D, state: 'discarded' } });
    expect(r.body.error.message).toMatch(/was discarded/);
  });
});

describe('a dependency that changed nothing', () => {
  it('holds nothing up: its empty worktree is tidied without skipping the task after it, which merges alone', async () => {
    ids.L = await submit('Look over the readme, change nothing.');
    ids.M = await submit('Write after the look.', [ids.L]);
    await loop.waitTask(ids.M, 'success', 180_000);
    await outcome(ids.L!, ['workspace.discarded']); // tidied by dispatch: the change was empty
    expect((await eventsOf(loop.db, ids.M!)).map((e) => e.event_type)).not.toContain('task.dependency_discarded');
    expect((await api('POST', `/api/tasks/${ids.M}/merge`)).status).toBe(202);
    expect((await outcome(ids.M!, ['workspace.merged', 'workspace.merge_failed'])).event_type).toBe('workspace.merged');
    expect(repo.git('ls-tree', '--name-only', 'main').split('\n')).toContain('after.txt');
  });
});

describe('dependencies that are not one line of work', () => {
  it('are refused in a project with workspaces: 400 invalid_dependency naming them', async () => {
    const [x, y] = await loop.db.sql<{ id: string }[]>`
      insert into dispatch.tasks (project_id, brief, status) values (${project}, 'x', 'success'), (${project}, 'y', 'success') returning id`;
    const r = await api('POST', '/api/tasks', { project_id: project, brief: 'on both', depends_on: [x!.id, y!.id] });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_dependency');
    expect(r.body.error.details.not_stacked.sort()).toEqual([x!.id, y!.id].sort());
  });
});
