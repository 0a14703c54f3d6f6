// Claude Code's PreToolUse hook for dispatch's gates: puts each tool call to dispatch and answers
// the CLI. Tiny and dependency-free on purpose: it runs before every tool call of every worker
// (node:http rather than fetch: loading fetch's client costs more than the rest of the hook).
// pass → no output (the run's own permissions apply); allow → a person approved this very call;
// deny → refused with the reason (the model sees it); ask, or anything going wrong → defer: the CLI
// ends the run on this call, and `claude -p --resume` asks again. It fails closed, never open.
import http from 'node:http';
import https from 'node:https';

const url = process.env.DISPATCH_GATE_URL;
const token = process.env.DISPATCH_GATE_TOKEN;
const TIMEOUT_MS = Number(process.env.DISPATCH_GATE_TIMEOUT_MS) || 20_000;

// Rules read the command, path or URL; long values (a file's new content) are clipped so a large
// Write never exceeds the request limit. The resumed run uses the CLI's own copy of the call.
function clip(v, depth = 0) {
  if (typeof v === 'string') return v.length > 4000 ? `${v.slice(0, 4000)}… (${v.length} chars)` : v;
  if (!v || typeof v !== 'object' || depth > 4) return v;
  if (Array.isArray(v)) return v.slice(0, 50).map((x) => clip(x, depth + 1));
  return Object.fromEntries(Object.entries(v).slice(0, 50).map(([k, x]) => [k, clip(x, depth + 1)]));
}

function answer(decision, reason) {
  if (decision === 'pass') return;
  const out = { hookEventName: 'PreToolUse', permissionDecision: decision };
  if (reason) out.permissionDecisionReason = reason;
  process.stdout.write(JSON.stringify({ hookSpecificOutput: out }));
}

function post(target, body) {
  return new Promise((resolve, reject) => {
    const lib = target.startsWith('https:') ? https : http;
    const req = lib.request(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${token}` },
      timeout: TIMEOUT_MS,
    }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function main() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  const call = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  if (!url || !token) return answer('defer', 'dispatch gate: no gate address configured');
  const body = JSON.stringify({ tool: call.tool_name, input: clip(call.tool_input ?? {}), tool_use_id: call.tool_use_id ?? null, cwd: call.cwd ?? null });
  const res = await post(url, body);
  if (res.status < 200 || res.status > 299) return answer('defer', `dispatch gate: answered ${res.status}`);
  const a = JSON.parse(res.text);
  if (a.decision === 'pass') return answer('pass');
  if (a.decision === 'allow') return answer('allow', a.reason ?? 'approved at the dispatch gate');
  if (a.decision === 'deny') return answer('deny', `dispatch gate: ${a.reason ?? 'refused'}`);
  return answer('defer', `dispatch gate: ${a.reason ?? 'waiting for a person'}`);
}

main().catch((err) => answer('defer', `dispatch gate unreachable: ${err?.message ?? err}`));
