// Which Chromium the browser tests drive: CHROMIUM_PATH when set, else a system Chromium when the
// machine has one, else the headless build that `npm ci` brought (@sparticuz/chromium), so a bare
// machine with only Node runs every browser test.
import fs from 'node:fs';
import path from 'node:path';

export interface ResolvedChromium {
  path: string;
  /** Where it came from, for the one line the test run prints. */
  source: 'CHROMIUM_PATH' | 'system' | 'npm (@sparticuz/chromium)';
}

const SYSTEM = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      /* not here */
    }
  }
  return null;
}

export async function resolveChromium(env: NodeJS.ProcessEnv = process.env): Promise<ResolvedChromium> {
  if (env.CHROMIUM_PATH) {
    if (!fs.existsSync(env.CHROMIUM_PATH)) throw new Error(`CHROMIUM_PATH=${env.CHROMIUM_PATH} does not exist`);
    return { path: env.CHROMIUM_PATH, source: 'CHROMIUM_PATH' };
  }
  for (const name of SYSTEM) {
    const found = onPath(name, env);
    if (found) return { path: found, source: 'system' };
  }
  // Unpacks its brotli-compressed binary (and fonts) into the temp folder once; later runs reuse it.
  const { default: packaged } = await import('@sparticuz/chromium');
  return { path: await packaged.executablePath(), source: 'npm (@sparticuz/chromium)' };
}
