// Runs `vite build` when client/dist is missing or older than the client sources, so `npm start`
// always serves the current client without rebuilding it on every start.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = path.dirname(fileURLToPath(import.meta.url));
const built = path.join(dir, 'dist', 'index.html');

function newest(p) {
  const st = fs.statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...fs.readdirSync(p).map((f) => newest(path.join(p, f))));
}

const sources = ['src', 'public', 'index.html', 'vite.config.ts', 'sw-template.js'].map((f) => path.join(dir, f)).filter((f) => fs.existsSync(f));
const stale = !fs.existsSync(built) || Math.max(...sources.map(newest)) > fs.statSync(built).mtimeMs;
if (stale) {
  const vite = path.join(dir, '..', 'node_modules', 'vite', 'bin', 'vite.js');
  execFileSync(process.execPath, [vite, 'build', '--logLevel', 'warn', '-c', path.join(dir, 'vite.config.ts')], { stdio: 'inherit' });
}
