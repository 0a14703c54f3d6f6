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

// Every frame has exactly one data line, and a JSON payload holds no raw newline: a client that
// only counts looks for this marker in the bytes, so the load generator's own parsing (100 clients
// at 1 000 lines/s is 100 000 frames/s in this one process) does not delay the clients it measures.
const DATA = Buffer.from('\ndata: ');
let complete = 0;

function counted(k, frames) {
  const now = performance.timeOrigin + performance.now();
  if (!firstAt) firstAt = now;
  lastAt = now;
  const before = counts[k];
  counts[k] += frames;
  if (expect && before < expect && counts[k] >= expect && ++complete === n) report();
  return now;
}

for (let k = 0; k < n; k++) {
  const req = http.get(`${url}/api/stream`, { agent, headers: { accept: 'text/event-stream', 'last-event-id': String(after) } }, (res) => {
    connected++;
    if (connected === n) process.stderr.write('ready\n');
    if (!measures.has(k)) {
      let tail = Buffer.alloc(0);
      res.on('data', (chunk) => {
        const hay = tail.length ? Buffer.concat([tail, chunk]) : chunk;
        let frames = 0;
        for (let i = hay.indexOf(DATA); i !== -1; i = hay.indexOf(DATA, i + DATA.length)) frames++;
        tail = Buffer.from(hay.subarray(Math.max(0, hay.length - (DATA.length - 1))));
        if (frames) counted(k, frames);
      });
      return;
    }
    let buf = '';
    res.setEncoding('utf8');
    res.on('data', (chunk) => {
      buf += chunk;
      let start = 0;
      let i;
      while ((i = buf.indexOf('\n\n', start)) !== -1) {
        const block = buf.slice(start, i);
        start = i + 2;
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (!data) continue;
        const now = counted(k, 1);
        const m = /"t":([0-9.]+)/.exec(data);
        if (m) latencies.push(now - Number(m[1]));
      }
      buf = buf.slice(start);
    });
  });
  req.on('error', () => {});
}
process.on('SIGTERM', report);
setTimeout(report, Number(process.env.SSE_TIMEOUT_MS ?? 120000));
