// Lines shaped like what Claude Code 2.1.197 prints with --include-partial-messages (taken from the
// Phase 0 fixtures in fixtures/runs/): a session is a loop of partial-message stream events, an
// assistant text message, an assistant tool_use, the tool's result, now and then a retry notice.
// Each line gets its own uuid and varying text, so nothing compresses or dedupes unrealistically.
// Plain JS (no TypeScript) because the firehose fake CLI imports it too.
import { randomUUID } from 'node:crypto';

const SESSION = '19f8cf1a-5574-44b4-8baf-e29fd4b503c1';
const WORDS = 'the worker reads the file then runs the tests and edits the handler so that every request is checked before it is stored'.split(' ');

function words(i, n) {
  let s = '';
  for (let k = 0; k < n; k++) s += (k ? ' ' : '') + WORDS[(i * 7 + k * 3) % WORDS.length];
  return s;
}

function streamEvent(i) {
  return { type: 'stream_event', event: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: words(i, 4 + (i % 6)) } }, session_id: SESSION, parent_tool_use_id: null, uuid: randomUUID() };
}
function assistantText(i) {
  return { type: 'assistant', message: { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-opus-4-8', content: [{ type: 'text', text: words(i, 12 + (i % 20)) }], stop_reason: null, stop_sequence: null, usage: { input_tokens: 25 + (i % 100), output_tokens: 1 + (i % 50) }, context_management: null }, parent_tool_use_id: null, session_id: SESSION, uuid: randomUUID(), request_id: `req_${i}` };
}
function assistantToolUse(i) {
  return { type: 'assistant', message: { id: `msg_${i}`, type: 'message', role: 'assistant', model: 'claude-opus-4-8', content: [{ type: 'tool_use', id: `toolu_${i}`, name: i % 3 ? 'Bash' : 'Edit', input: i % 3 ? { command: `npm test -- --grep ${words(i, 2).replace(/ /g, '-')}`, description: words(i, 4) } : { file_path: `/work/src/handler-${i % 40}.ts`, old_string: words(i, 6), new_string: words(i + 1, 7) } }], stop_reason: null, stop_sequence: null, usage: { input_tokens: 25, output_tokens: 1 }, context_management: null }, parent_tool_use_id: null, session_id: SESSION, uuid: randomUUID(), request_id: `req_${i}` };
}
function toolResult(i) {
  const out = words(i, 10 + (i % 15));
  return { type: 'user', message: { role: 'user', content: [{ tool_use_id: `toolu_${i - 1}`, type: 'tool_result', content: out, is_error: i % 17 === 0 }] }, parent_tool_use_id: null, session_id: SESSION, uuid: randomUUID(), timestamp: new Date().toISOString(), tool_use_result: { stdout: out, stderr: '', interrupted: false, isImage: false, noOutputExpected: false } };
}
function retry(i) {
  return { type: 'system', subtype: 'api_retry', attempt: 1 + (i % 3), max_retries: 10, retry_delay_ms: 600, error_status: 529, error: 'overloaded_error', session_id: SESSION, uuid: randomUUID() };
}

// One cycle of a working session: 6 partial deltas, the assembled text, a tool call, its result.
const CYCLE = [streamEvent, streamEvent, streamEvent, streamEvent, streamEvent, streamEvent, assistantText, assistantToolUse, toolResult];

/** Line i of a realistic session (no newline); `extra` fields (e.g. a print time) are added last. */
export function realisticLine(i, extra) {
  const make = i % 997 === 996 ? retry : CYCLE[i % CYCLE.length];
  const o = make(i);
  return JSON.stringify(extra ? { ...o, ...extra } : o);
}
