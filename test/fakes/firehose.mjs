#!/usr/bin/env node
// A stream-json firehose for benchmarks and fault tests (set as CLAUDE_BIN): prints an init line,
// FIREHOSE_LINES stream_event lines (at FIREHOSE_RATE lines/s, or as fast as it can when 0), each
// stamped with the wall-clock time it was printed, then a successful result. As the extractor it
// answers with a valid handoff at once. FIREHOSE_SHAPE=realistic prints lines shaped like a real
// session's (test/bench/realistic-lines.mjs) instead of padded stream events. With FIREHOSE_HOLD_FILE
// set, it waits after its last line, before the result, until that file exists (a test then knows
// the worker is still alive at a point of its choosing, however slow the machine).
import fs from 'node:fs';
import { realisticLine } from '../bench/realistic-lines.mjs';
const prompt = process.argv[process.argv.indexOf('-p') + 1] ?? '';
const out = process.stdout;
const write = (o) => out.write(`${JSON.stringify(o)}\n`);
const now = () => performance.timeOrigin + performance.now();
write({ type: 'system', subtype: 'init', session_id: 'firehose', tools: [], mcp_servers: [] });
if (prompt.includes('handoff extractor')) {
  write({ type: 'result', subtype: 'success', is_error: false, result: JSON.stringify({ goal: 'g', current_state: 's', ruled_out: [] }), session_id: 'firehose' });
  process.exit(0);
}
// A prompt "pour <lines> <rate>" overrides the two (one runner can then pour at several rates).
const asked = /^pour (\d+) (\d+)/.exec(prompt);
const n = Number(asked?.[1] ?? process.env.FIREHOSE_LINES ?? 1000);
const rate = Number(asked?.[2] ?? process.env.FIREHOSE_RATE ?? 0);
const pad = 'x'.repeat(Number(process.env.FIREHOSE_PAD ?? 100));
// Realistic lines are made before the clock starts, so the fake's own JSON work is not measured.
const realistic = process.env.FIREHOSE_SHAPE === 'realistic' ? Array.from({ length: n }, (_, k) => realisticLine(k)) : null;
let i = 0;
const t0 = now();
function burst() {
  while (i < n) {
    if (rate > 0 && i >= ((now() - t0) / 1000) * rate) return setTimeout(burst, 1);
    const ok = out.write(realistic ? `${realistic[i].slice(0, -1)},"t":${now()}}\n` : `{"type":"stream_event","i":${i},"t":${now()},"pad":"${pad}"}\n`);
    i++;
    if (!ok) return out.once('drain', burst);
  }
  const hold = process.env.FIREHOSE_HOLD_FILE;
  if (hold && !fs.existsSync(hold)) return setTimeout(burst, 50);
  write({ type: 'result', subtype: 'success', is_error: false, result: `printed ${n} lines`, session_id: 'firehose' });
}
burst();
