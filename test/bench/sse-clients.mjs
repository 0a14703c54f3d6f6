// Benchmark helper, run as its own process: opens N SSE connections to URL from seq AFTER, counts
// the journal rows each receives, and prints one JSON report when every client has EXPECT rows or
// on SIGTERM.
//   SSE_MODE=measure  each client parses its frames (as an EventSource does) and measures
//                     line-to-client latency from the "t" stamped in stream_event payloads
//   SSE_MODE=count    each client only counts frames, on a plain socket: the bench runs these in
//                     another process than the measuring ones, so 5 000 counting clients cost the
//                     machine little and never queue the measured clients' reads behind theirs
//   SSE_WARMUP_MS=ms  (measure) frames printed within this long of the first one are counted but timed
//                     apart (warmup_ms): the processes' first second (JIT, new connections) is not
//                     the steady state the latency figure describes
//   SSE_DUMP=file     (measure) writes [seq, printed at, received at] of the first client's frames
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';

const [url, n, after, expect] = [process.argv[2], Number(process.argv[3]), Number(process.argv[4]), Number(process.argv[5] ?? 0)];
const measure = process.env.SSE_MODE !== 'count';
const counts = new Array(n).fill(0);
const latencies = [];
const warmup = [];
const warmupMs = Number(process.env.SSE_WARMUP_MS ?? 0);
let firstPrinted = 0;
const dump = [];
let firstAt = 0;
let lastAt = 0;
let connected = 0;
let complete = 0;
let done = false;

function report() {
  if (done) return;
  done = true;
  const q = (p, list = latencies) => {
    list.sort((a, b) => a - b);
    return list.length ? list[Math.max(0, Math.ceil((p / 100) * list.length) - 1)] : null;
  };
  if (process.env.SSE_DUMP) fs.writeFileSync(process.env.SSE_DUMP, JSON.stringify(dump));
  process.stdout.write(JSON.stringify({ clients: n, connected, counts_min: counts.reduce((m, c) => Math.min(m, c), Infinity), counts_max: counts.reduce((m, c) => Math.max(m, c), 0), received: counts.reduce((a, b) => a + b, 0), first_at: firstAt, last_at: lastAt, latency_ms: { p50: q(50), p99: q(99), n: latencies.length, clients_measured: measure ? n : 0 }, warmup_ms: { p50: q(50, warmup), p99: q(99, warmup), n: warmup.length } }) + '\n');
  process.exit(0);
}

function onConnected() {
  if (++connected === n) process.stderr.write('ready\n');
}

function counted(k, frames) {
  const now = performance.timeOrigin + performance.now();
  if (!firstAt) firstAt = now;
  lastAt = now;
  const before = counts[k];
  counts[k] += frames;
  if (expect && before < expect && counts[k] >= expect && ++complete === n) report();
  return now;
}

// Every frame has exactly one data line, and a JSON payload holds no raw newline: a counting client
// looks for this marker in the bytes (HTTP chunk framing never splits a frame: each chunk the server
// writes holds whole frames).
const DATA = Buffer.from('\ndata: ');

function countingClient(k) {
  const { hostname, port } = new URL(url);
  const socket = net.connect(Number(port), hostname);
  socket.write(`GET /api/stream HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\nLast-Event-ID: ${after}\r\n\r\n`);
  let head = true;
  let tail = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    if (head) {
      head = false;
      if (!chunk.toString('latin1', 0, 12).startsWith('HTTP/1.1 200')) throw new Error(`client ${k}: ${chunk.toString('latin1', 0, 200)}`);
      onConnected();
    }
    const hay = tail.length ? Buffer.concat([tail, chunk]) : chunk;
    let frames = 0;
    for (let i = hay.indexOf(DATA); i !== -1; i = hay.indexOf(DATA, i + DATA.length)) frames++;
    tail = Buffer.from(hay.subarray(Math.max(0, hay.length - (DATA.length - 1))));
    if (frames) counted(k, frames);
  });
  socket.on('error', () => {});
}

const agent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
function measuringClient(k) {
  const req = http.get(`${url}/api/stream`, { agent, headers: { accept: 'text/event-stream', 'last-event-id': String(after) } }, (res) => {
    onConnected();
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
        const m = /"t": ?([0-9.]+)/.exec(data); // Postgres writes the payload's JSON with a space after the colon
        if (!m) continue;
        const printed = Number(m[1]);
        firstPrinted ||= printed;
        (printed - firstPrinted < warmupMs ? warmup : latencies).push(now - printed);
        if (k === 0 && process.env.SSE_DUMP) dump.push([Number(/^id: (\d+)/m.exec(block)?.[1]), printed, now]);
      }
      buf = buf.slice(start);
    });
  });
  req.on('error', () => {});
}

for (let k = 0; k < n; k++) (measure ? measuringClient : countingClient)(k);
process.on('SIGTERM', report);
setTimeout(report, Number(process.env.SSE_TIMEOUT_MS ?? 120000));
