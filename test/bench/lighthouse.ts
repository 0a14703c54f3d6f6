// `npm run lighthouse`: Lighthouse (mobile preset) against `npm run demo`, as a new user meets it.
// Starts the demo on a free port with a fresh data folder (the loop runs while Lighthouse loads the
// page), runs a pinned Lighthouse with the Chromium the browser tests use (test/helpers/chromium.ts),
// prints the four category scores, LCP, TBT and the bytes transferred, and every audit that cost
// points; the whole report goes to test-output/lighthouse.json. Not part of `npm test`: it measures.
//
// Lighthouse is fetched by `npx` on first use (cached after) rather than made a devDependency: it
// brings ~150 packages that `npm ci` would install on every CI run for a figure CI never checks.
// 12.2.x is the newest line that runs on Node 20.
//   LIGHTHOUSE_URL   measure that running server instead of starting the demo
//   LIGHTHOUSE_RUNS  runs to take (default 1; with more, the median run by performance is printed)
//   DATABASE_URL     given to the demo (default: an embedded Postgres in a temporary folder)
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveChromium } from '../helpers/chromium.ts';

const LIGHTHOUSE = 'lighthouse@12.2.3';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const out = path.join(root, 'test-output');
const FLAGS = ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-sync', '--disable-background-networking', '--disable-component-update'];

interface Audit {
  id: string;
  title: string;
  score: number | null;
  scoreDisplayMode: string;
  displayValue?: string;
  numericValue?: number;
  details?: { overallSavingsMs?: number; overallSavingsBytes?: number; items?: unknown[] };
}
interface Report {
  lighthouseVersion: string;
  finalDisplayedUrl: string;
  runtimeError?: { code: string; message: string };
  categories: Record<string, { title: string; score: number | null; auditRefs: { id: string; weight: number }[] }>;
  audits: Record<string, Audit>;
}

async function freePort(): Promise<number> {
  const srv = net.createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as net.AddressInfo;
  await new Promise<void>((r) => srv.close(() => r()));
  return port;
}

/** The demo in a fresh data folder, resolved with its URL once it prints it. */
async function startDemo(): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  execFileSync(process.execPath, [path.join(root, 'client/build-if-stale.mjs')], { stdio: 'inherit' });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-lighthouse-'));
  fs.chmodSync(dataDir, 0o755); // run as root, the embedded Postgres runs as `postgres` and must enter it
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'bin/demo.ts')], {
    cwd: root,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DISPATCH_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`the demo printed no URL in 120 s:\n${seen}`)), 120_000);
    child.stdout!.on('data', (b: Buffer) => {
      seen += b.toString();
      const m = /open (http:\/\/\S+?)\/?\s/.exec(seen);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`the demo exited (${code}) before printing its URL:\n${seen}`)));
  });
  child.stdout!.resume();
  return { url, child, dataDir };
}

function runLighthouse(url: string, chromePath: string, file: string): Report {
  // npx's own chatter goes to stderr; Lighthouse's progress log is silenced.
  execFileSync(
    'npx',
    ['--yes', LIGHTHOUSE, url, '--quiet', '--output=json', `--output-path=${file}`,
      '--only-categories=performance,accessibility,best-practices,seo', `--chrome-flags=${FLAGS.join(' ')}`],
    { stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, CHROME_PATH: chromePath }, cwd: os.tmpdir() },
  );
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Report;
}

function summarise(r: Report): void {
  const score = (k: string) => r.categories[k]?.score ?? null;
  const a = r.audits;
  const kib = (n?: number) => (n === undefined ? '?' : `${Math.round(n / 1024)} KiB`);
  process.stdout.write(
    `\nLighthouse ${r.lighthouseVersion} (mobile) ${r.finalDisplayedUrl}  load average ${os.loadavg().map((x) => x.toFixed(2)).join(' ')} (${os.cpus().length} cores)\n` +
      `  performance ${score('performance')}  accessibility ${score('accessibility')}  best practices ${score('best-practices')}  seo ${score('seo')}\n` +
      `  FCP ${a['first-contentful-paint']?.displayValue}  LCP ${a['largest-contentful-paint']?.displayValue}  TBT ${a['total-blocking-time']?.displayValue}` +
      `  CLS ${a['cumulative-layout-shift']?.displayValue}  SI ${a['speed-index']?.displayValue}  transfer ${kib(a['total-byte-weight']?.numericValue)}\n`,
  );
  // What cost points: failed audits of the scored categories, and performance opportunities.
  const lines: string[] = [];
  for (const [key, cat] of Object.entries(r.categories)) {
    for (const ref of cat.auditRefs) {
      const audit = a[ref.id];
      if (!audit || audit.score === null || audit.score >= 0.9 || audit.scoreDisplayMode === 'informative' || audit.scoreDisplayMode === 'notApplicable') continue;
      if (key !== 'performance' && ref.weight === 0) continue;
      lines.push(`  ${key}: ${audit.id} (${audit.score}) ${audit.title}${audit.displayValue ? ` — ${audit.displayValue}` : ''}`);
    }
  }
  for (const audit of Object.values(a)) {
    const d = audit.details;
    if ((d?.overallSavingsMs ?? 0) > 0 || (d?.overallSavingsBytes ?? 0) > 1024) {
      lines.push(`  opportunity: ${audit.id} — ${Math.round(d?.overallSavingsMs ?? 0)} ms, ${kib(d?.overallSavingsBytes ?? 0)}`);
    }
  }
  process.stdout.write(lines.length ? `${[...new Set(lines)].join('\n')}\n` : '  nothing flagged\n');
}

const chrome = await resolveChromium();
const given = process.env.LIGHTHOUSE_URL;
const demo = given ? null : await startDemo();
const url = given ?? `${demo!.url}/`;
fs.mkdirSync(out, { recursive: true });
try {
  const runs = Math.max(1, Number(process.env.LIGHTHOUSE_RUNS ?? 1));
  const reports: Report[] = [];
  for (let i = 0; i < runs; i++) {
    const r = runLighthouse(url, chrome.path, path.join(out, runs > 1 ? `lighthouse-${i + 1}.json` : 'lighthouse.json'));
    if (r.runtimeError) throw new Error(`Lighthouse: ${r.runtimeError.code} ${r.runtimeError.message}`);
    if (runs > 1) process.stdout.write(`run ${i + 1}: performance ${r.categories.performance?.score}\n`);
    reports.push(r);
  }
  reports.sort((x, y) => (x.categories.performance?.score ?? 0) - (y.categories.performance?.score ?? 0));
  const median = reports[Math.floor(reports.length / 2)]!;
  if (runs > 1) fs.writeFileSync(path.join(out, 'lighthouse.json'), JSON.stringify(median));
  summarise(median);
  process.stdout.write(`  Chromium: ${chrome.source}; report: ${path.relative(root, path.join(out, 'lighthouse.json'))}\n`);
} finally {
  if (demo) {
    demo.child.kill('SIGTERM');
    await new Promise((r) => demo.child.once('exit', r));
    // A worker the demo started may still be writing its Claude config as it exits.
    try {
      fs.rmSync(demo.dataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 500 });
    } catch (err) {
      process.stderr.write(`could not remove ${demo.dataDir}: ${(err as Error).message}\n`);
    }
  }
}
