// The service install: the system and user units, rendered for this checkout, pass
// `systemd-analyze verify`, run `npm start` from the checkout with secrets.env, restart on failure,
// log to the journal and leave the workers of a stopped runner alive (KillMode=process).
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { renderUnit, repoRoot, type UnitKind } from '../../bin/install-service.ts';
import { createTestDb, waitFor } from '../helpers/db.ts';
import { cleanEnv } from '../helpers/process.ts';
import { tempDir } from '../helpers/teardown.ts';

const hasSystemd = spawnSync('systemd-analyze', ['--version']).status === 0;

function render(kind: UnitKind): { dir: string; unit: string; text: string } {
  const dir = tempDir('pd-unit-');
  const envFile = path.join(dir, 'secrets.env');
  fs.copyFileSync(path.join(repoRoot, 'deploy', 'secrets.env.example'), envFile);
  const text = renderUnit({ kind, root: repoRoot, envFile, node: process.execPath, user: os.userInfo().username });
  const unit = path.join(dir, 'petal-dispatch.service');
  fs.writeFileSync(unit, text);
  return { dir, unit, text };
}

function setting(text: string, key: string): string[] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${key}=`))
    .map((l) => l.slice(key.length + 1));
}

describe('the systemd units', () => {
  for (const kind of ['system', 'user'] as const) {
    it(`the ${kind} unit runs npm start in the checkout with secrets.env, restarts on failure and keeps the workers`, () => {
      const { text, dir } = render(kind);
      expect(text).not.toMatch(/@[A-Z_]+@/);
      expect(setting(text, 'WorkingDirectory')).toEqual([repoRoot]);
      expect(setting(text, 'ExecStartPre')).toEqual([`${process.execPath} client/build-if-stale.mjs`]);
      expect(setting(text, 'ExecStart')).toEqual([`${process.execPath} --import tsx bin/main.ts`]);
      expect(setting(text, 'EnvironmentFile')).toEqual([path.join(dir, 'secrets.env')]);
      expect(setting(text, 'Restart')).toEqual(['on-failure']);
      expect(setting(text, 'KillMode')).toEqual(['process']);
      expect(setting(text, 'StandardOutput')).toEqual(['journal']);
      expect(setting(text, 'User')).toEqual(kind === 'system' ? [os.userInfo().username] : []);
    });

    it(`the ${kind} unit passes systemd-analyze verify`, (ctx) => {
      if (!hasSystemd) return ctx.skip('systemd-analyze is not installed on this machine: the unit was not verified');
      const { unit } = render(kind);
      // A user unit is verified as a system unit too: `--user` needs a user manager, which a CI
      // container lacks, and the checks that matter (paths, keys, values) are the same.
      const res = spawnSync('systemd-analyze', ['verify', unit], { encoding: 'utf8' });
      const complaints = `${res.stdout}${res.stderr}`
        .split('\n')
        .filter((l) => l.trim() && !/(network-online|postgresql|default)\.target|postgresql\.service/.test(l));
      expect({ status: res.status, complaints }).toEqual({ status: 0, complaints: [] });
    });
  }

  it('secrets.env.example holds only keys documented in docs/operations.md and no values for secrets', () => {
    const example = fs.readFileSync(path.join(repoRoot, 'deploy', 'secrets.env.example'), 'utf8');
    const lines = example.split('\n').filter((l) => /^[A-Z_]+=/.test(l));
    for (const l of lines) expect(l, 'a live line in the template').toMatch(/^(PORT|HOST)=/);
    // The configuration table lives in the operations page of the manual.
    const documented = fs.readFileSync(path.join(repoRoot, 'docs', 'operations.md'), 'utf8');
    const keys = [...example.matchAll(/^#?([A-Z_]{3,})=/gm)].map((m) => m[1]!);
    expect(keys.filter((k) => !documented.includes(`\`${k}\``))).toEqual([]);
  });

  it('npm run install-service -- --dry-run prints the user unit for this checkout', () => {
    const out = execFileSync('npm', ['run', '-s', 'install-service', '--', '--dry-run'], { cwd: repoRoot, encoding: 'utf8' });
    expect(out).toContain(`WorkingDirectory=${repoRoot}`);
    expect(out).toContain('KillMode=process');
  });
});

describe('KillMode=process', () => {
  it('SIGTERM to the main process alone (what systemd sends) stops the server and leaves nothing of it behind', async () => {
    const db = await createTestDb();
    const { text } = render('user');
    const [bin, ...args] = setting(text, 'ExecStart')[0]!.split(' ');
    const child = spawn(bin!, args, { cwd: setting(text, 'WorkingDirectory')[0], env: cleanEnv({ DATABASE_URL: db.url, PORT: '0', LOG_LEVEL: 'info' }), stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    // On a port the system picks, read back from its log.
    const listening = await waitFor(() => /listening on (http:\/\/\S+)/.exec(out), Boolean, { timeout: 60_000, what: () => `listening (${out})` });
    const base = listening![1]!;
    const health = () => fetch(`${base}/healthz`).then((r) => r.ok, () => false);
    await waitFor(health, Boolean, { timeout: 60_000, what: () => `healthz (${out})` });
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).toContain('shutting down (SIGTERM)');
    expect(await health()).toBe(false);
  });
});
