// `npm run install-service [-- --system] [-- --dry-run]`: renders deploy/petal-dispatch*.service.in for
// this checkout (its path, this node, the user) and installs it with a secrets.env beside it.
// A user unit by default (a laptop); --system writes a system unit (as root) for the invoking user.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export type UnitKind = 'system' | 'user';

export interface UnitOptions {
  kind: UnitKind;
  /** The checkout that `npm start` runs in. */
  root: string;
  /** The secrets file named by EnvironmentFile=. */
  envFile: string;
  /** Absolute path of node. */
  node: string;
  /** The account a system unit runs as. */
  user: string;
}

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');


/** The unit file's text for these options. */
export function renderUnit(o: UnitOptions): string {
  const template = fs.readFileSync(path.join(repoRoot, 'deploy', o.kind === 'system' ? 'petal-dispatch.service.in' : 'petal-dispatch.user.service.in'), 'utf8');
  // Workers and tools the server starts look their programs up on PATH: this node's folder first.
  const PATH = [...new Set([path.dirname(o.node), '/usr/local/bin', '/usr/bin', '/bin'])].join(':');
  const values: Record<string, string> = { ROOT: o.root, ENV_FILE: o.envFile, NODE: o.node, USER: o.user, PATH };
  return template.replace(/@([A-Z_]+)@/g, (m, k: string) => {
    const v = values[k];
    if (v === undefined) throw new Error(`unknown placeholder ${m}`);
    if (/\s/.test(v)) throw new Error(`${k} must not contain spaces for a unit file: ${v}`);
    return v;
  });
}

/** Where each kind of install puts its unit and secrets. */
export function installPaths(kind: UnitKind, home = os.homedir()): { unit: string; envFile: string } {
  return kind === 'system'
    ? { unit: '/etc/systemd/system/petal-dispatch.service', envFile: '/etc/petal-dispatch/secrets.env' }
    : { unit: path.join(home, '.config/systemd/user/petal-dispatch.service'), envFile: path.join(home, '.config/petal-dispatch/secrets.env') };
}

function main(argv: string[]): void {
  const kind: UnitKind = argv.includes('--system') ? 'system' : 'user';
  const dryRun = argv.includes('--dry-run');
  const user = process.env.SUDO_USER || os.userInfo().username;
  const { unit, envFile } = installPaths(kind);
  const text = renderUnit({ kind, root: repoRoot, envFile, node: process.execPath, user });
  if (dryRun) {
    process.stdout.write(`# ${unit}\n${text}`);
    return;
  }
  fs.mkdirSync(path.dirname(unit), { recursive: true });
  fs.writeFileSync(unit, text);
  fs.mkdirSync(path.dirname(envFile), { recursive: true });
  if (!fs.existsSync(envFile)) {
    fs.copyFileSync(path.join(repoRoot, 'deploy', 'secrets.env.example'), envFile);
    fs.chmodSync(envFile, 0o600);
    if (kind === 'system' && process.env.SUDO_UID) fs.chownSync(envFile, Number(process.env.SUDO_UID), Number(process.env.SUDO_GID ?? process.env.SUDO_UID));
  }
  const ctl = kind === 'system' ? ['systemctl'] : ['systemctl', '--user'];
  try {
    execFileSync(ctl[0]!, [...ctl.slice(1), 'daemon-reload'], { stdio: 'inherit' });
  } catch {
    process.stderr.write(`(could not run ${ctl.join(' ')} daemon-reload; run it yourself)\n`);
  }
  const journal = kind === 'system' ? 'journalctl -u petal-dispatch -f' : 'journalctl --user -u petal-dispatch -f';
  process.stdout.write(
    [
      `wrote ${unit}`,
      `secrets: ${envFile} (edit it; mode 0600)`,
      '',
      `start:  ${ctl.join(' ')} enable --now petal-dispatch`,
      `logs:   ${journal}`,
      '',
    ].join('\n'),
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`install-service: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
