// Claude Code, part 2 of 3: its stdout (`--output-format stream-json`). Each line is read once into
// a typed journal row (the line itself as payload), a neutral summary for the views, and the facts
// the supervisor needs; a journalled result is read back for its final text and usage. The
// substrate's own ids (session_id, message.id, uuid) stay inside the payload.
import { clipText } from '../../core/contracts/vocabulary.ts';
import type { EventSummary } from '../../core/contracts/event.ts';
import type { ClassifiedLine, DeferredCall, LineFacts, ModelUsage, RateLimitFact, ResultReading, RunUsage } from './port.ts';

export const OVERSIZED_BYTES = 1024 * 1024;
export const RESULT_EVENT_TYPE = 'claude.result';

const utf8 = new TextDecoder('utf-8', { fatal: true });
const STREAM_SUMMARY = '{"kind":"stream"}';
const UNKNOWN_SUMMARY = '{"kind":"unknown"}';
const INPUT_SUMMARY_MAX = 200;

type Obj = Record<string, unknown>;
interface Block {
  type?: unknown;
  text?: unknown;
  thinking?: unknown;
  name?: unknown;
  input?: unknown;
  content?: unknown;
  is_error?: unknown;
}

/** Classifies one stdout line (without its newline). Never throws. */
export function classifyLine(line: Buffer): ClassifiedLine {
  let text: string;
  try {
    text = utf8.decode(line);
  } catch {
    return binary(line, 'invalid_utf8');
  }
  if (text.includes('\u0000')) return binary(line, 'nul_byte');
  if (text.endsWith('\r')) text = text.slice(0, -1);

  if (line.length >= OVERSIZED_BYTES) {
    return raw('stdout.oversized', JSON.stringify({ bytes: line.length, text }), text);
  }

  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const trimmed = text.trimStart();
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
      return raw('stdout.truncated_json', JSON.stringify({ text, error: (err as Error).message }), text);
    }
    return raw('stdout.non_json', JSON.stringify({ text }), text);
  }

  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { eventType: 'claude.unknown', payloadJson: JSON.stringify({ value }), summaryJson: UNKNOWN_SUMMARY, facts: null };
  }
  // Postgres jsonb cannot hold U+0000; keep such a line as text rather than lose it.
  if (text.includes('\\u0000')) {
    return raw('stdout.rejected', JSON.stringify({ text, reason: 'contains \\u0000' }), text);
  }
  return classifyObject(value as Obj, text.trim());
}

function classifyObject(obj: Obj, payloadJson: string): ClassifiedLine {
  switch (obj.type) {
    case 'stream_event':
      return { eventType: 'claude.stream_event', payloadJson, summaryJson: STREAM_SUMMARY, facts: null };
    case 'assistant':
      return { eventType: 'claude.assistant', payloadJson, summaryJson: summary(assistantSummary(obj)), facts: null };
    case 'user': {
      const blocks = contentOf(obj);
      const results = blocks.filter((b) => b.type === 'tool_result');
      if (results.length) {
        return {
          eventType: 'claude.tool_result',
          payloadJson,
          summaryJson: summary({
            kind: 'tool_result',
            ...textOf(results.map((b) => contentText(b.content)).join('\n')),
            is_error: results.some((b) => b.is_error === true),
          }),
          facts: null,
        };
      }
      const said = typeof (obj.message as Obj | undefined)?.content === 'string'
        ? ((obj.message as Obj).content as string)
        : blocks.map((b) => (typeof b.text === 'string' ? b.text : '')).join('\n');
      return { eventType: 'claude.user', payloadJson, summaryJson: summary({ kind: 'user', ...textOf(said) }), facts: null };
    }
    case 'system': {
      const facts = sessionFacts(obj);
      if (obj.subtype === 'init') {
        return { eventType: 'claude.init', payloadJson, summaryJson: summary({ kind: 'init', ...textOf(str(obj.model)) }), facts };
      }
      if (obj.subtype === 'api_retry') {
        const retry = { status: num(obj.error_status), error: str(obj.error) };
        const why = [retry.status, retry.error].filter((x) => x !== null).join(' ');
        const attempt = `attempt ${String(obj.attempt ?? '?')}/${String(obj.max_retries ?? '?')}`;
        const limited = retry.status === 429 || retry.error === 'rate_limit';
        const rateLimit: RateLimitFact | undefined = limited
          ? { resetsAt: null, retryAfterMs: num(obj.retry_delay_ms), reason: `rate limited (429, ${attempt})` }
          : undefined;
        return {
          eventType: 'claude.api_retry',
          payloadJson,
          summaryJson: summary({ kind: 'retry', text: why ? `${attempt}: ${why}` : attempt, is_error: true }),
          facts: { ...facts, retry, ...(rateLimit ? { rateLimit } : {}) },
        };
      }
      return { eventType: 'claude.system', payloadJson, summaryJson: summary({ kind: 'system', ...textOf(str(obj.subtype)) }), facts };
    }
    case 'rate_limit_event': {
      // The account's quota window changed; `rejected` means requests are refused until resetsAt.
      const info = (obj.rate_limit_info ?? {}) as Obj;
      const status = str(info.status) ?? 'unknown';
      const resetsAt = typeof info.resetsAt === 'number' ? info.resetsAt * 1000 : null;
      const kind = str(info.rateLimitType);
      const text = `rate limit ${status}${kind ? ` (${kind})` : ''}${resetsAt ? `, resets ${new Date(resetsAt).toISOString()}` : ''}`;
      const facts = sessionFacts(obj);
      return {
        eventType: 'claude.rate_limit',
        payloadJson,
        summaryJson: summary({ kind: 'system', text, ...(status === 'rejected' ? { is_error: true } : {}) }),
        facts: status === 'rejected' ? { ...facts, rateLimit: { resetsAt, retryAfterMs: null, reason: text } } : facts,
      };
    }
    case 'result': {
      const result = {
        isError: obj.is_error === true,
        kind: str(obj.subtype),
        text: str(obj.result),
        errorStatus: num(obj.api_error_status),
        deferred: deferredOf(obj),
        usage: usageOf(obj),
      };
      return {
        eventType: RESULT_EVENT_TYPE,
        payloadJson,
        summaryJson: summary({ kind: 'result', ...textOf(result.text ?? result.kind ?? ''), is_error: result.isError }),
        facts: { ...sessionFacts(obj), result, ...resultRateLimit(result) },
      };
    }
    default:
      return { eventType: 'claude.unknown', payloadJson, summaryJson: UNKNOWN_SUMMARY, facts: null };
  }
}

const LIMIT_RESULT = /usage limit|rate[ _-]?limit|hit your .*limit|limit reached|too many requests/i;

/** A result refused for quota: 429, or a usage-limit text, with its reset time when the text gives one. */
function resultRateLimit(r: { isError: boolean; text: string | null; errorStatus: number | null }): { rateLimit?: RateLimitFact } {
  if (!r.isError) return {};
  const text = r.text ?? '';
  if (r.errorStatus !== 429 && !LIMIT_RESULT.test(text)) return {};
  return { rateLimit: { resetsAt: resetTime(text, Date.now()), retryAfterMs: null, reason: oneLine(text || 'rate limited (429)', 200) } };
}

/**
 * When a usage-limit text says the limit resets, in epoch ms: "…|1767225600" (epoch seconds),
 * an ISO time, or "resets 3pm" / "resets 2:30pm" / "resets 14:05" (the next such local time).
 */
export function resetTime(text: string, now: number): number | null {
  const epoch = /\|(\d{10})\b/.exec(text);
  if (epoch) return Number(epoch[1]) * 1000;
  const iso = /\b(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2}))/.exec(text);
  if (iso && !Number.isNaN(Date.parse(iso[1]!))) return Date.parse(iso[1]!);
  const clock = /resets?(?: at| in)?\s+(\d{1,2})(?::(\d{2}))?\s*(am|pm)?\b/i.exec(text);
  if (!clock || (!clock[2] && !clock[3])) return null;
  let h = Number(clock[1]);
  const m = Number(clock[2] ?? 0);
  const ampm = clock[3]?.toLowerCase();
  if (ampm === 'pm' && h < 12) h += 12;
  if (ampm === 'am' && h === 12) h = 0;
  if (h > 23 || m > 59) return null;
  const t = new Date(now);
  t.setHours(h, m, 0, 0);
  if (t.getTime() <= now) t.setDate(t.getDate() + 1);
  return t.getTime();
}

function assistantSummary(obj: Obj): EventSummary {
  const blocks = contentOf(obj);
  const words: string[] = [];
  const thoughts: string[] = [];
  let tool: Block | undefined;
  for (const b of blocks) {
    if (b.type === 'text' && typeof b.text === 'string') words.push(b.text);
    else if (b.type === 'thinking' && typeof b.thinking === 'string') thoughts.push(b.thinking);
    else if (b.type === 'tool_use') tool ??= b;
  }
  const isError = obj.error !== undefined && obj.error !== null ? { is_error: true } : {};
  if (tool) {
    return {
      kind: 'tool_use',
      tool: typeof tool.name === 'string' ? tool.name : 'tool',
      input_summary: inputSummary(tool.input),
      ...textOf(words.join('\n')),
      ...isError,
    };
  }
  if (!words.length && thoughts.length) return { kind: 'thinking', ...textOf(thoughts.join('\n')) };
  return { kind: 'text', ...textOf(words.join('\n')), ...isError };
}

/** A tool call's input in one short line: its most telling string field, else compact JSON. */
function inputSummary(input: unknown): string {
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    const o = input as Obj;
    for (const k of ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt', 'approach', 'brief']) {
      if (typeof o[k] === 'string') return oneLine(o[k] as string, INPUT_SUMMARY_MAX);
    }
  }
  return oneLine(JSON.stringify(input ?? null) ?? '', INPUT_SUMMARY_MAX);
}

function contentOf(obj: Obj): Block[] {
  const c = (obj.message as { content?: unknown } | undefined)?.content;
  return Array.isArray(c) ? (c.filter((b) => b && typeof b === 'object') as Block[]) : [];
}

function contentText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x) => (x && typeof x === 'object' && typeof (x as Block).text === 'string' ? (x as Block).text : '')).join('\n');
  return '';
}

function sessionFacts(obj: Obj): LineFacts {
  return typeof obj.session_id === 'string' ? { substrateSessionId: obj.session_id } : {};
}

function raw(eventType: string, payloadJson: string, text: string): ClassifiedLine {
  return { eventType, payloadJson, summaryJson: summary({ kind: 'raw', ...textOf(text) }), facts: null };
}

function binary(line: Buffer, reason: 'invalid_utf8' | 'nul_byte'): ClassifiedLine {
  return {
    eventType: 'stdout.binary',
    payloadJson: JSON.stringify({ reason, bytes: line.length, base64: line.toString('base64') }),
    summaryJson: summary({ kind: 'raw', text: `(${line.length} bytes that are not text: ${reason.replace('_', ' ')})` }),
    facts: null,
  };
}

function summary(s: EventSummary): string {
  return JSON.stringify(s);
}

/** `{text}` clipped to the summary limit, or nothing for an empty text. */
function textOf(text: string | null): { text?: string } {
  return text ? { text: clipText(text) } : {};
}

function oneLine(s: string, max: number): string {
  return clipText(s.replace(/\s+/g, ' ').trim(), max);
}

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);

/** The final text and usage of a journalled result payload; null when it is not one. */
export function readResult(payload: unknown): ResultReading | null {
  if (!payload || typeof payload !== 'object' || (payload as Obj).type !== 'result') return null;
  const p = payload as Obj;
  return { text: str(p.result) ?? '', isError: p.is_error === true, usage: usageOf(p), deferred: deferredOf(p) };
}

/** The tool call a run ended on when a PreToolUse hook deferred it (terminal_reason tool_deferred). */
function deferredOf(p: Obj): DeferredCall | null {
  if (p.terminal_reason !== 'tool_deferred' && p.stop_reason !== 'tool_deferred') return null;
  const d = p.deferred_tool_use as Obj | undefined;
  if (!d || typeof d !== 'object' || typeof d.id !== 'string' || typeof d.name !== 'string') return null;
  const input = d.input && typeof d.input === 'object' && !Array.isArray(d.input) ? (d.input as Record<string, unknown>) : {};
  return { id: d.id, tool: d.name, input };
}

/**
 * What a result says the run cost. `modelUsage` (per model, with its cost) is the truth when
 * present: the top-level `usage` counts only the main loop, and is all zeros in a result that
 * stopped at --max-budget-usd while modelUsage holds what was spent.
 */
function usageOf(p: Obj): RunUsage | null {
  const u = p.usage && typeof p.usage === 'object' ? (p.usage as Obj) : null;
  const mu = p.modelUsage && typeof p.modelUsage === 'object' && !Array.isArray(p.modelUsage) ? (p.modelUsage as Obj) : null;
  if (!u && !mu) return null;
  const cost = typeof p.total_cost_usd === 'number' && p.total_cost_usd >= 0 ? p.total_cost_usd : null;
  // A model's name may carry its context-window variant ("claude-opus-4-8[1m]"; a resumed session
  // names it without): one model either way.
  const merged = new Map<string, ModelUsage>();
  for (const [name, m] of Object.entries(mu ?? {})) {
    if (!m || typeof m !== 'object') continue;
    const x = m as Obj;
    const model = name.replace(/\[[^\]]*\]$/, '');
    const acc = merged.get(model) ?? { model, cost_usd: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0 };
    acc.cost_usd += typeof x.costUSD === 'number' && x.costUSD >= 0 ? x.costUSD : 0;
    acc.input_tokens += tokens(x.inputTokens);
    acc.output_tokens += tokens(x.outputTokens);
    acc.cache_read_tokens += tokens(x.cacheReadInputTokens);
    acc.cache_creation_tokens += tokens(x.cacheCreationInputTokens);
    merged.set(model, acc);
  }
  const byModel = [...merged.values()];
  const sum = (k: keyof Omit<ModelUsage, 'model'>) => byModel.reduce((a, m) => a + m[k], 0);
  if (byModel.length) {
    return {
      cost_usd: cost ?? sum('cost_usd'),
      input_tokens: sum('input_tokens'),
      output_tokens: sum('output_tokens'),
      cache_read_tokens: sum('cache_read_tokens'),
      cache_creation_tokens: sum('cache_creation_tokens'),
      models: byModel.map((m) => m.model),
      by_model: byModel,
    };
  }
  return {
    cost_usd: cost,
    input_tokens: tokens(u?.input_tokens),
    output_tokens: tokens(u?.output_tokens),
    cache_read_tokens: tokens(u?.cache_read_input_tokens),
    cache_creation_tokens: tokens(u?.cache_creation_input_tokens),
    models: [],
    by_model: [],
  };
}

function tokens(v: unknown): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : 0;
}
