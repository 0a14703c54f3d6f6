// POST /api/projects with a repo: checked at creation, with a clear 4xx for a folder that is not a
// git repository, an unknown base or a dirty base; stored with the repository's top level and base.
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { makeRepo } from '../../helpers/repo.ts';
import { tempDir } from '../../helpers/teardown.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});

const create = (name: string, config: Record<string, unknown>) => t.call('POST', '/api/projects', { name, config });

describe('a project pointed at a repository', () => {
  it('is stored with the top level and the current branch as base', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n', 'sub/b.txt': 'b\n' }, 'trunk');
    const res = await create('repo-ok', { repo: path.join(repo.dir, 'sub') });
    expect(res.status).toBe(201);
    expect((await res.json()).config).toMatchObject({ repo: repo.dir, base: 'trunk' });
  });

  it('is refused (400 not_a_repository) for a folder that is not a git repository', async () => {
    const dir = tempDir('pd-plain-');
    const res = await create('repo-plain', { repo: dir });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ code: 'not_a_repository' });
    expect(body.error.message).toContain(dir);
    expect((await create('repo-missing', { repo: path.join(dir, 'nope') })).status).toBe(400);
  });

  it('is refused (400 unknown_base) for a base branch the repository lacks', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const res = await create('repo-base', { repo: repo.dir, base: 'release' });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'unknown_base', message: expect.stringContaining('release') });
  });

  it('is refused (409 dirty_base) while base is checked out with uncommitted changes', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    repo.write('a.txt', 'changed\n');
    const res = await create('repo-dirty', { repo: repo.dir });
    expect(res.status).toBe(409);
    expect((await res.json()).error).toMatchObject({ code: 'dirty_base', message: expect.stringContaining('uncommitted') });
  });

  it('is refused (400 git_missing) when git cannot be run', async () => {
    const repo = makeRepo({ 'a.txt': 'a\n' });
    const noGit = await startTestApp({ GIT_BIN: '/nonexistent/git' });
    const res = await noGit.call('POST', '/api/projects', { name: 'repo-nogit', config: { repo: repo.dir } });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'git_missing' });
  });
});
