// The Debian tools `npm run apk` builds with (smali, aapt and the framework resources, zipalign,
// apksigner, keytool), the packages that bring them, installing those (root, apt-get), and running
// one: an argument array, no shell, a non-zero exit an error carrying the tool's last words.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** A failure to tell the person as it is (bad settings, a missing tool, a tool's refusal): exit 2. */
export class ApkError extends Error {
  override name = 'ApkError';
}

export interface Tool {
  name: string;
  /** A command looked up on the PATH, or an absolute file. */
  find: string;
  /** The Debian (bookworm) package that brings it. */
  pkg: string;
}

/** Android 10's framework resources (API 29), which aapt links the manifest and resources against. */
export const FRAMEWORK_RES = '/usr/share/android-framework-res/framework-res.apk';

export const BUILD_TOOLS: Tool[] = [
  { name: 'smali', find: 'smali', pkg: 'libsmali-java' },
  { name: 'aapt', find: 'aapt', pkg: 'aapt' },
  { name: 'framework-res.apk', find: FRAMEWORK_RES, pkg: 'android-framework-res' },
  { name: 'zipalign', find: 'zipalign', pkg: 'zipalign' },
  { name: 'apksigner', find: 'apksigner', pkg: 'apksigner' },
  { name: 'keytool', find: 'keytool', pkg: 'default-jre-headless' },
];

/** What the tests read an APK's code with, besides aapt and apksigner. */
export const CHECK_TOOLS: Tool[] = [
  { name: 'dexdump', find: 'dexdump', pkg: 'dexdump' },
  { name: 'baksmali', find: 'baksmali', pkg: 'libsmali-java' },
];

/** Where the tool is, or undefined. */
export function locate(tool: Tool, env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (path.isAbsolute(tool.find)) return fs.existsSync(tool.find) ? tool.find : undefined;
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    const file = path.join(dir, tool.find);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* not in this folder */
    }
  }
  return undefined;
}

export function missingTools(tools: Tool[], env: NodeJS.ProcessEnv = process.env): Tool[] {
  return tools.filter((t) => !locate(t, env));
}

export function installCommand(tools: Tool[]): string[] {
  return ['apt-get', 'install', '-y', '--no-install-recommends', ...new Set(tools.map((t) => t.pkg))];
}

/** `apt-get install` of the tools' packages, as root; after a failure, `apt-get update` and once more. */
export async function installTools(tools: Tool[], env: NodeJS.ProcessEnv = process.env): Promise<void> {
  const command = installCommand(tools);
  if (process.getuid?.() !== 0) throw new ApkError(`--install-tools needs root; as root run: ${command.join(' ')}`);
  if (!locate({ name: 'apt-get', find: 'apt-get', pkg: 'apt' }, env)) throw new ApkError(`no apt-get here: install ${command.slice(4).join(' ')} (Debian bookworm package names) another way`);
  const apt = (args: string[]) =>
    new Promise<number | null>((resolve) => {
      const child = spawn('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env: { ...env, DEBIAN_FRONTEND: 'noninteractive' } });
      child.on('error', () => resolve(null));
      child.on('exit', (code) => resolve(code));
    });
  if ((await apt(command.slice(1))) === 0) return;
  if ((await apt(['update'])) === 0 && (await apt(command.slice(1))) === 0) return;
  throw new ApkError(`${command.join(' ')} failed (see its output above)`);
}

/** Runs a tool; resolves with its output, rejects with an ApkError naming it and its stderr's tail. */
export function run(file: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: opts.cwd, env: opts.env ?? process.env, maxBuffer: 16 << 20, timeout: 300_000 }, (err, stdout, stderr) => {
      if (!err) return resolve({ stdout, stderr });
      const tail = (stderr || stdout || err.message).trim().split('\n').slice(-8).join('\n    ');
      reject(new ApkError(`${path.basename(file)} ${args[0] ?? ''} failed (${err.code ?? err.signal ?? 'error'}):\n    ${tail}`));
    });
  });
}
