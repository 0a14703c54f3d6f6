// Benchmark helper, run as its own process: opens N SSE connections to URL from seq AFTER, counts
// the journal rows each receives, measures line-to-client latency from the "t" stamped in
// stream_event payloads, and prints one JSON report when every client has EXPECT rows or on SIGTERM.
// SSE_MEASURE clients (default 1), spread evenly over the N, measure latency; the rest only count.
import http from 'node:http';

const [url, n, after, expect] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5] ?? 0)];
const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
const counts = new Array(n).fill(0);
const latencies = [];
let firstAt = 0;
let lastAt = 0;
let connected = 0;
let done = false;
const measured = Math.max(1, Math.min(n, Number(process.env.SSE_MEASURE ?? 1)));
const measures = new Set(Array.from({ length: measured }, (_, j) => Math.floor((j * n) / measured)));

function report() {
  if (done) return;
  done = true;
  latencies.sort((a, b) => a - b);
  const q = (p) => (latencies.length ? latencies[Math.max(0, Math.ceil((p / 100) * latencies.length) - 1)] : null);
  process.stdout.write(JSON.stringify({ clients: n, connected, counts_min: counts.reduce((m, c) => Math.min(m, c), Infinity), counts_max: counts.reduce((m, c) => Math.max(m, c), 0), received: counts.reduce((a, b) => a + b, 0), first_at: firstAt, last_at: lastAt, latency_ms: { p50: q(50), p99: q(99), n: latencies.length, clients_measured: measured } }) + '\n');
  process.exit(0);
}

for (let k = 0; k < n; k++) {
  const req = http.get(`${url}/api/stream`, { agent, headers: { accept: 'text/event-stream', 'last-event-id': String(after) } }, (res) => {
    connected++;
    if (connected === n) process.stderr.write('ready\n');
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buf += chunk;
      let i;
      while ((i = buf.indexOf('\n\n')) !== -1) {
        const block = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        const now = performance.timeOrigin + performance.now();
        counts[k]++;
        if (!firstAt) firstAt = now;
        lastAt = now;
        if (measures.has(k)) {
          const m = /"t":([0-9.]+)/.exec(data);
          if (m) latencies.push(now - Number(m[1]));
        }
        if (expect && counts.every((c) => c >= expect)) report();
      }
    });
  });
  req.on('error', () => {});
}
process.on('SIGTERM', report);
setTimeout(report, Number(process.env.SSE_TIMEOUT_MS ?? 120000));
