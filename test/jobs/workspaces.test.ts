// Workspaces with the real CLI and the scripted model on a real repository made here: each task
// attempt works in its own git worktree, what it leaves uncommitted is committed by dispatch, and
// its change is journalled (workspace.created, workspace.changed) with the handoff naming its branch.
import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo, numbered, type TestRepo } from '../helpers/repo.ts';

const handoff = (marker: string): Scenario['conversations'][number] => ({
  match: marker,
  steps: [{ text: JSON.stringify({ goal: 'edit', current_state: 'edited', ruled_out: [] }), chunks: 1, delay_ms: 0 }],
});

const scenarios: Scenario[] = [
  {
    name: 'workspaces',
    description: '',
    conversations: [
      handoff('GREET-DONE'),
      handoff('LOOK-DONE'),
      { match: 'PEEK-ONLY', steps: [{ text: 'LOOK-DONE: read the notes, changed nothing.', chunks: 1, delay_ms: 0 }] },
      {
        match: 'Write the greeting',
        steps: [
          { tool_use: { name: 'Write', input: { file_path: 'greeting.txt', content: 'hello from the worktree\n' } } },
          { tool_use: { name: 'Bash', input: { command: "printf 'line 11 by bash\\n' >> notes.txt", description: 'append' } } },
          { text: 'GREET-DONE: wrote greeting.txt and appended to notes.txt, committed nothing.', chunks: 1, delay_ms: 0 },
        ],
      },
    ],
  },
];

let loop: Loop;
let repo: TestRepo;
let project: string;
beforeAll(async () => {
  loop = await startLoop({ scenarios });
  repo = makeRepo({ 'notes.txt': numbered(10), 'README.md': '# test repo\n' });
  project = await loop.project('workspaces', { repo: repo.dir, allowed_tools: ['Write', 'Edit', 'Read', 'Bash'] });
});

describe('a task of a project pointed at a repository', () => {
  it('works in its own worktree; what it left uncommitted is committed by dispatch and journalled as its change', async () => {
    const base = repo.rev('main');
    const taskId = await loop.submit(project, 'Write the greeting file.');
    await loop.waitTask(taskId, 'success');

    const events = await eventsOf(loop.db, taskId);
    const created = events.find((e) => e.event_type === 'workspace.created')!.payload;
    const branch = `dispatch/${taskId.slice(0, 8)}-1`;
    expect(created).toMatchObject({ branch, base: 'main', base_commit: base, attempt: 1 });
    expect(String(created.path).startsWith(path.join(loop.dataDir, 'worktrees'))).toBe(true);

    // The worker ran there, not in the repository's own checkout.
    const spawned = events.find((e) => e.event_type === 'session.spawned')!.payload;
    expect(spawned.cwd).toBe(created.path);
    expect(fs.readFileSync(path.join(String(created.path), 'greeting.txt'), 'utf8')).toBe('hello from the worktree\n');
    expect(fs.existsSync(path.join(repo.dir, 'greeting.txt'))).toBe(false);
    expect(repo.rev('main')).toBe(base);

    // Committed by dispatch, with a message naming the task; the worktree is clean.
    const head = repo.rev(branch);
    expect(repo.git('log', '-1', '--format=%an%n%s%n%b', branch)).toContain(`task ${taskId.slice(0, 8)} (attempt 1)`);
    expect(repo.git('-C', String(created.path), 'status', '--porcelain')).toBe('');

    const changed = events.filter((e) => e.event_type === 'workspace.changed');
    expect(changed).toHaveLength(1);
    const change = changed[0]!.payload;
    expect(change).toMatchObject({ branch, base_commit: base, head_commit: head, truncated: false });
    expect(change.files).toEqual([
      { path: 'greeting.txt', insertions: 1, deletions: 0 },
      { path: 'notes.txt', insertions: 1, deletions: 0 },
    ]);
    expect(change.patch).toContain('+hello from the worktree');
    expect(change.patch).toContain('+line 11 by bash');
    expect(change.patch_bytes).toBe(Buffer.byteLength(String(change.patch)));
    // The change is journalled before the handoff, whose artifacts carry the branch and head commit.
    const h = events.find((e) => e.event_type === 'handoff')!;
    expect(h.seq).toBeGreaterThan(changed[0]!.seq);
    expect(h.payload.artifacts).toEqual(expect.arrayContaining([{ kind: 'ref', ref: branch }, { kind: 'commit', ref: head }]));
  });

  it('housekeeping (prune_workspaces, queued at each runner start) forgets a worktree whose folder was removed by hand', async () => {
    const taskId = await loop.submit(project, 'Write the greeting file.');
    await loop.waitTask(taskId, 'success');
    const [w] = await loop.db.sql<{ path: string; branch: string; head_commit: string }[]>`
      select path, branch, head_commit from dispatch.workspaces where task_id = ${taskId}`;
    fs.rmSync(w!.path, { recursive: true, force: true });
    expect(repo.git('worktree', 'list', '--porcelain')).toContain(w!.path);
    await loop.db.sql`select graphile_worker.add_job('prune_workspaces', '{}'::json)`;
    await waitFor(() => repo.git('worktree', 'list', '--porcelain'), (out) => !out.includes(w!.path), { what: 'git worktree prune' });
    // The work itself is on the branch, untouched.
    expect(repo.rev(w!.branch)).toBe(w!.head_commit);
  });

  it('a task that ended with no change has its worktree and branch removed by itself, journalled', async () => {
    const taskId = await loop.submit(project, 'PEEK-ONLY: read the notes, change nothing.');
    await loop.waitTask(taskId, 'success');
    const w = await waitFor(
      () => loop.db.sql<{ path: string; branch: string; state: string }[]>`select path, branch, state from dispatch.workspaces where task_id = ${taskId}`,
      (r) => r[0]?.state === 'discarded',
      { timeout: 30_000, what: 'the empty change to be discarded' },
    );
    expect(fs.existsSync(w[0]!.path)).toBe(false);
    expect(() => repo.git('rev-parse', '--verify', '--quiet', `refs/heads/${w[0]!.branch}`)).toThrow();
    const rows = await eventsOf(loop.db, taskId);
    const asked = rows.find((r) => r.event_type === 'workspace.discard_requested');
    expect(asked?.payload).toMatchObject({ by: 'dispatch', reason: 'the task ended with no change' });
    expect(rows.some((r) => r.event_type === 'workspace.discarded')).toBe(true);
  });

  it('fails with the reason, never a crash, when the repository is not a git repository', async () => {
    const notRepo = fs.mkdtempSync(path.join(loop.dataDir, 'plain-'));
    const p = await loop.project('not-a-repo', { repo: notRepo });
    const taskId = await loop.submit(p, 'Write the greeting file.');
    const t = await loop.waitTask(taskId, 'failed');
    expect(t.status_reason).toContain('is not a git repository');
    const events = await eventsOf(loop.db, taskId);
    expect(events.find((e) => e.event_type === 'workspace.failed')!.payload).toMatchObject({ code: 'not_a_repository' });
    expect(events.some((e) => e.event_type === 'session.spawned')).toBe(false);
  });
});
