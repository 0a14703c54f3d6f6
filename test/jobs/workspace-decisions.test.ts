// Four tasks at once on one repository, each editing the same file differently in its own worktree
// (real CLI, scripted model using Write, Edit and Bash). All four changes are journalled, none
// clobbered another; then the person decides over HTTP: the first merge fast-forwards, the second
// makes a merge commit, a conflicting one is refused naming the file and Resolve starts a task on
// its branch, which merges base in and lands; discard removes worktree and branch, the patch stays.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo, numbered, type TestRepo } from '../helpers/repo.ts';

const done = (marker: string) => ({ text: `${marker}: edited notes.txt.`, chunks: 1, delay_ms: 0 });
const bash = (command: string) => ({ tool_use: { name: 'Bash', input: { command, description: 'edit' } } });

const scenarios: Scenario[] = [
  {
    name: 'decisions',
    description: '',
    conversations: [
      { match: 'handoff extractor', steps: [{ text: JSON.stringify({ goal: 'edit', current_state: 'edited', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
      // A edits line 1 with Bash and commits it itself.
      { match: 'EDIT-A', steps: [bash("sleep 1; sed -i 's/^line 1$/line 1 by A/' notes.txt && git commit -qam 'A: line 1'"), done('A')] },
      // B edits line 10 with Read + Edit and commits nothing.
      {
        match: 'EDIT-B',
        steps: [
          { tool_use: { name: 'Read', input: { file_path: 'notes.txt' } } },
          { tool_use: { name: 'Edit', input: { file_path: 'notes.txt', old_string: 'line 10', new_string: 'line 10 by B' } } },
          bash('sleep 1'),
          done('B'),
        ],
      },
      // C reads the file and rewrites it with Write, changing line 1 differently from A.
      { match: 'EDIT-C', steps: [bash('sleep 1'), { tool_use: { name: 'Read', input: { file_path: 'notes.txt' } } }, { tool_use: { name: 'Write', input: { file_path: 'notes.txt', content: numbered(10).replace('line 1\n', 'line 1 by C\n') } } }, done('C')] },
      // D edits line 5 with Bash.
      { match: 'EDIT-D', steps: [bash("sleep 1; sed -i 's/^line 5$/line 5 by D/' notes.txt"), done('D')] },
      // The Resolve task: merges base into its branch and keeps both sides; dispatch commits the merge.
      {
        match: 'Resolve the merge conflict',
        steps: [bash("git merge -q main >/dev/null 2>&1; sed -i '/^<<<<<<< /d; /^=======$/d; /^>>>>>>> /d' notes.txt"), done('R')],
      },
    ],
  },
];

let loop: Loop;
let repo: TestRepo;
let project: string;
beforeAll(async () => {
  loop = await startLoop({ scenarios, serve: true });
  repo = makeRepo({ 'notes.txt': numbered(10) });
  const res = await fetch(`${loop.url}/api/projects`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'decisions', config: { repo: repo.dir, allowed_tools: ['Write', 'Edit', 'Read', 'Bash'] } }),
  });
  expect(res.status).toBe(201);
  project = (await res.json()).id;
});

const api = async (method: string, p: string, body?: unknown) => {
  const res = await fetch(`${loop.url}${p}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
};

const outcome = (taskId: string, types: string[]) =>
  waitFor(
    async () => (await eventsOf(loop.db, taskId)).filter((e) => types.includes(e.event_type)),
    (rows) => rows.length > 0,
    { timeout: 30_000, what: `${types.join('|')} of ${taskId}` },
  ).then((rows) => rows.at(-1)!);

describe('four tasks editing the same file at the same time', () => {
  const ids: Record<string, string> = {};

  it('each works in its own worktree; all four changes are journalled and none clobbered another', async () => {
    for (const k of ['A', 'B', 'C', 'D']) ids[k] = await loop.submit(project, `EDIT-${k}: edit notes.txt.`);
    await Promise.all(Object.values(ids).map((id) => loop.waitTask(id, 'success', 90_000)));

    const sessions = await loop.db.sql<{ task_id: string; cwd: string; started_at: Date; ended_at: Date }[]>`
      select s.task_id, e.payload ->> 'cwd' as cwd, s.started_at, s.ended_at from dispatch.sessions s
        join dispatch.events e on e.session_id = s.id and e.event_type = 'session.spawned'
       where s.role = 'worker' and s.task_id = any(${Object.values(ids)}::uuid[])`;
    expect(new Set(sessions.map((s) => s.cwd)).size).toBe(4);
    // They ran at the same time: every worker started before any ended.
    expect(Math.max(...sessions.map((s) => s.started_at.getTime()))).toBeLessThan(Math.min(...sessions.map((s) => s.ended_at.getTime())));

    const expected: Record<string, string> = { A: '+line 1 by A', B: '+line 10 by B', C: '+line 1 by C', D: '+line 5 by D' };
    for (const [k, id] of Object.entries(ids)) {
      const w = await api('GET', `/api/tasks/${id}/workspace`);
      expect(w.status).toBe(200);
      expect(w.body).toMatchObject({ state: 'ready', branch: `dispatch/${id.slice(0, 8)}-1`, base: 'main' });
      expect(w.body.change.files).toEqual([{ path: 'notes.txt', insertions: 1, deletions: 1 }]);
      const added = String(w.body.change.patch).split('\n').filter((l: string) => l.startsWith('+') && !l.startsWith('+++'));
      expect(added).toEqual([expected[k]]);
      expect(fs.readFileSync(path.join(w.body.path, 'notes.txt'), 'utf8')).toContain(expected[k]!.slice(1));
    }
    // A's own commit is kept; B, C and D were committed by dispatch.
    expect(repo.git('log', '-1', '--format=%s', `dispatch/${ids.A!.slice(0, 8)}-1`)).toBe('A: line 1');
    expect(repo.git('log', '-1', '--format=%an', `dispatch/${ids.B!.slice(0, 8)}-1`)).toBe('petal-dispatch');
    expect(repo.read('notes.txt')).toBe(numbered(10));
    const waiting = await api('GET', `/api/workspaces?project_id=${project}&state=waiting`);
    expect(waiting.body.waiting).toBe(4);
  });

  it('merging the first fast-forwards main, in the repository checkout too', async () => {
    const r = await api('POST', `/api/tasks/${ids.A}/merge`);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ task_id: ids.A, action: 'merge', job: { task_identifier: 'merge_workspace' } });
    const merged = await outcome(ids.A!, ['workspace.merged', 'workspace.merge_refused']);
    expect(merged.event_type).toBe('workspace.merged');
    expect(merged.payload).toMatchObject({ fast_forward: true, merge_commit: null });
    expect(repo.rev('main')).toBe(merged.payload.head_commit);
    expect(repo.read('notes.txt')).toContain('line 1 by A');
    // Its worktree and branch are gone once merged.
    await outcome(ids.A!, ['workspace.removed']);
    const w = await api('GET', `/api/tasks/${ids.A}/workspace`);
    expect(w.body.state).toBe('merged');
    expect(fs.existsSync(w.body.path)).toBe(false);
  });

  it('merging the second makes a merge commit', async () => {
    const r = await api('POST', `/api/tasks/${ids.B}/merge`);
    expect(r.status).toBe(202);
    const merged = await outcome(ids.B!, ['workspace.merged', 'workspace.merge_refused']);
    expect(merged.event_type).toBe('workspace.merged');
    expect(merged.payload.fast_forward).toBe(false);
    expect(repo.rev('main')).toBe(merged.payload.merge_commit);
    expect(repo.git('rev-list', '--parents', '-n', '1', 'main').split(' ')).toHaveLength(3);
    expect(repo.read('notes.txt')).toBe(numbered(10).replace('line 1\n', 'line 1 by A\n').replace('line 10\n', 'line 10 by B\n'));
  });

  it('a conflicting one is refused with the file named, and Resolve starts a task on its branch that lands it', async () => {
    const r = await api('POST', `/api/tasks/${ids.C}/merge`);
    expect(r.status).toBe(409);
    expect(r.body.error).toMatchObject({ code: 'merge_conflict', details: { files: ['notes.txt'] } });
    expect(r.body.error.message).toContain('notes.txt');
    const cHead = (await api('GET', `/api/tasks/${ids.C}/workspace`)).body.head_commit;

    const resolve = await api('POST', `/api/tasks/${ids.C}/resolve`);
    expect(resolve.status).toBe(201);
    const rid = resolve.body.id as string;
    expect(resolve.body.parent_id).toBe(ids.C);
    expect(resolve.body.brief).toContain('notes.txt');
    expect(resolve.body.brief).toContain('<<<<<<< ');
    await loop.waitTask(rid, 'success', 60_000);
    const created = await outcome(rid, ['workspace.created']);
    expect(created.payload).toMatchObject({ from: `dispatch/${ids.C!.slice(0, 8)}-1`, base_commit: cHead });
    expect((await api('GET', `/api/tasks/${ids.C}/workspace`)).body.state).toBe('continued');

    expect((await api('POST', `/api/tasks/${rid}/merge`)).status).toBe(202);
    const merged = await outcome(rid, ['workspace.merged', 'workspace.merge_refused']);
    expect(merged.event_type).toBe('workspace.merged');
    expect(repo.read('notes.txt')).toContain('line 1 by C');
    expect(repo.read('notes.txt')).toContain('line 1 by A');
    expect(repo.read('notes.txt')).toContain('line 10 by B');
    expect(repo.read('notes.txt')).not.toContain('<<<<<<<');
  });

  it('discard removes the worktree and the branch; the patch stays readable in the task history', async () => {
    const before = (await api('GET', `/api/tasks/${ids.D}/workspace`)).body;
    const r = await api('POST', `/api/tasks/${ids.D}/discard`);
    expect(r.status).toBe(202);
    const discarded = await outcome(ids.D!, ['workspace.discarded']);
    expect(discarded.payload).toMatchObject({ branch_deleted: true, worktree_removed: true });
    expect(fs.existsSync(before.path)).toBe(false);
    expect(() => repo.git('rev-parse', '--verify', '--quiet', `refs/heads/${before.branch}`)).toThrow();
    const after = (await api('GET', `/api/tasks/${ids.D}/workspace`)).body;
    expect(after.state).toBe('discarded');
    expect(after.change.patch).toContain('+line 5 by D');
    // Decided changes cannot be decided again, and nothing waits any more.
    expect((await api('POST', `/api/tasks/${ids.D}/merge`)).body.error.code).toBe('already_decided');
    expect((await api('GET', `/api/workspaces?project_id=${project}&state=waiting`)).body.waiting).toBe(0);
  });
});
