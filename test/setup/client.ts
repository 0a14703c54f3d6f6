// Vitest global setup: the browser tests need the built client.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export function setup() {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  execFileSync(process.execPath, [path.join(root, 'client/build-if-stale.mjs')], { stdio: 'inherit' });
}
