// A real git repository made for a test (git init, one commit), and small readers over it.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './teardown.ts';

export interface TestRepo {
  dir: string;
  git(...args: string[]): string;
  /** The commit a ref points at. */
  rev(ref: string): string;
  write(file: string, text: string): void;
  read(file: string): string;
}

/** A repository on branch `main` holding `files`, committed once. Removed after the file's tests. */
export function makeRepo(files: Record<string, string>, branch = 'main'): TestRepo {
  const dir = fs.realpathSync(tempDir('pd-repo-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' }, maxBuffer: 256 * 1024 * 1024 }).trim();
  git('init', '-q', '-b', branch);
  git('config', 'user.name', 'Test Person');
  git('config', 'user.email', 'person@example.invalid');
  git('config', 'commit.gpgsign', 'false');
  const repo: TestRepo = {
    dir,
    git,
    rev: (ref) => git('rev-parse', ref),
    write: (file, text) => {
      fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      fs.writeFileSync(path.join(dir, file), text);
    },
    read: (file) => fs.readFileSync(path.join(dir, file), 'utf8'),
  };
  for (const [f, text] of Object.entries(files)) repo.write(f, text);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return repo;
}

/** `line 1` … `line n`, one per line. */
export function numbered(n: number): string {
  return Array.from({ length: n }, (_, i) => `line ${i + 1}\n`).join('');
}
