// Reading Claude Code's stdout: each line once into its journal row, a neutral summary the views
// read instead of the line, and the facts the supervisor needs; a result read back for its text
// and usage. Driven by the real lines of the Phase 0 dump.
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { EventSummarySchema } from '../../../core/contracts/event.ts';
import { EventSummarySchema as ClientSummary } from '../../../core/contracts/event.valibot.ts';
import { SUMMARY_TEXT_MAX } from '../../../core/contracts/vocabulary.ts';
import { defaultSubstrate as substrate } from '../../../jobs/substrate/index.ts';
import type { ClassifiedLine } from '../../../jobs/substrate/port.ts';
import { OVERSIZED_BYTES, resetTime } from '../../../jobs/substrate/stream-json.ts';

const runs = path.resolve(import.meta.dirname, '../../../fixtures/runs');
const linesOf = (run: string) => fs.readFileSync(path.join(runs, run, 'stdout.jsonl')).toString('utf8').split('\n').filter(Boolean);
const read = (line: string | Buffer) => substrate.classify(typeof line === 'string' ? Buffer.from(line) : line);
const summaryOf = (c: ClassifiedLine) => (c.summaryJson === null ? null : (JSON.parse(c.summaryJson) as Record<string, unknown>));

describe('the lines of a real run', () => {
  it('bash-tool: text, a tool call, its result, more text, the result', () => {
    const read_ = linesOf('bash-tool').map(read);
    expect(read_.map((c) => c.eventType)).toEqual([
      'claude.init', 'claude.assistant', 'claude.assistant', 'claude.tool_result', 'claude.assistant', 'claude.result',
    ]);
    expect(read_.map(summaryOf)).toEqual([
      { kind: 'init', text: 'claude-opus-4-8[1m]' },
      { kind: 'text', text: 'I will run the command.' },
      { kind: 'tool_use', tool: 'Bash', input_summary: 'echo hello from the worker' },
      { kind: 'tool_result', text: 'hello from the worker', is_error: false },
      { kind: 'text', text: 'The command printed: hello from the worker.' },
      { kind: 'result', text: 'The command printed: hello from the worker.', is_error: false },
    ]);
  });

  it('rate-limit-429: retries are summarised as errors, the error result as an error', () => {
    const s = linesOf('rate-limit-429').map(read).map(summaryOf);
    expect(s[1]).toEqual({ kind: 'retry', text: 'attempt 1/2: 429 rate_limit', is_error: true });
    expect(s[3]).toMatchObject({ kind: 'text', is_error: true });
    expect(s[4]).toMatchObject({ kind: 'result', is_error: true, text: expect.stringContaining('429') });
  });

  it('keeps every JSON line byte for byte as its payload (forensics)', () => {
    for (const run of ['bash-tool', 'api-error-500', 'auth-401']) {
      for (const line of linesOf(run)) expect(read(line).payloadJson).toBe(line.trim());
    }
  });

  it('every summary of every run fits the contract on both sides, and is small', () => {
    for (const run of fs.readdirSync(runs).filter((d) => fs.statSync(path.join(runs, d)).isDirectory())) {
      for (const line of linesOf(run)) {
        const s = summaryOf(read(line));
        expect(EventSummarySchema.safeParse(s).success, `${run}: ${JSON.stringify(s)}`).toBe(true);
        expect(v.safeParse(ClientSummary, s).success).toBe(true);
        expect(JSON.stringify(s).length).toBeLessThan(SUMMARY_TEXT_MAX + 300);
      }
    }
  });

  it('tells the supervisor the session id, each retry and the result — and nothing for other lines', () => {
    const facts = linesOf('auth-401').map(read).map((c) => c.facts);
    expect(facts[0]).toEqual({ substrateSessionId: 'c210528c-af02-49d2-ba11-ebc62e4c52ca' });
    expect(facts[1]).toEqual({ substrateSessionId: 'c210528c-af02-49d2-ba11-ebc62e4c52ca', retry: { status: 401, error: 'authentication_failed' } });
    expect(facts[3]).toBeNull();
    expect(facts[4]!.result).toEqual({
      isError: true, kind: 'success', text: 'Invalid API key · Fix external API key', errorStatus: 401,
      usage: { cost_usd: 0, input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_creation_tokens: 0, models: [], by_model: [] },
      deferred: null,
    });
  });

  it('reads a journalled result back: its text and its usage', () => {
    const result = JSON.parse(linesOf('bash-tool').at(-1)!) as unknown;
    expect(substrate.readResult(result)).toEqual({
      text: 'The command printed: hello from the worker.',
      isError: false,
      deferred: null,
      usage: {
        cost_usd: 0.0008500000000000001, input_tokens: 50, output_tokens: 24, cache_read_tokens: 0, cache_creation_tokens: 0, models: ['claude-opus-4-8'],
        by_model: [{ model: 'claude-opus-4-8', cost_usd: 0.0008500000000000001, input_tokens: 50, output_tokens: 24, cache_read_tokens: 0, cache_creation_tokens: 0 }],
      },
    });
    expect(substrate.readResult({ type: 'assistant' })).toBeNull();
    expect(substrate.readResult({ type: 'result', result: 'x' })!.usage).toBeNull();
    expect(substrate.readResult(null)).toBeNull();
  });
});

describe('usage', () => {
  // A result stopped by --max-budget-usd (pinned CLI 2.1.197): the top-level usage is all zeros,
  // modelUsage holds what was spent.
  const budgetStop = {
    type: 'result', subtype: 'error_max_budget_usd', is_error: true, num_turns: 1, total_cost_usd: 1.0875,
    usage: { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, output_tokens: 0 },
    modelUsage: {
      'claude-opus-4-8[1m]': { inputTokens: 100000, outputTokens: 20000, cacheReadInputTokens: 50000, cacheCreationInputTokens: 10000, costUSD: 1.0875 },
      'claude-opus-4-8': { inputTokens: 0, outputTokens: 0, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: 0 },
      'claude-haiku-4-5': { inputTokens: 10, outputTokens: 2, cacheReadInputTokens: 0, cacheCreationInputTokens: 0, costUSD: 0.00002 },
    },
    errors: ['Reached maximum budget ($0.5)'],
  };

  it('is read per model from modelUsage (a context-window variant is the same model), the totals summed from it', () => {
    const facts = read(Buffer.from(JSON.stringify(budgetStop))).facts!;
    expect(facts.result!.usage).toEqual({
      cost_usd: 1.0875, input_tokens: 100010, output_tokens: 20002, cache_read_tokens: 50000, cache_creation_tokens: 10000,
      models: ['claude-opus-4-8', 'claude-haiku-4-5'],
      by_model: [
        { model: 'claude-opus-4-8', cost_usd: 1.0875, input_tokens: 100000, output_tokens: 20000, cache_read_tokens: 50000, cache_creation_tokens: 10000 },
        { model: 'claude-haiku-4-5', cost_usd: 0.00002, input_tokens: 10, output_tokens: 2, cache_read_tokens: 0, cache_creation_tokens: 0 },
      ],
    });
  });
});

describe('rate limits', () => {
  it('a 429 retry, a rejected rate_limit_event and a usage-limit result say the account is limited, and until when', () => {
    const retry = read(linesOf('rate-limit-429').find((l) => l.includes('api_retry'))!).facts!;
    expect(retry.rateLimit).toEqual({ resetsAt: null, retryAfterMs: 522.5343188149807, reason: 'rate limited (429, attempt 1/2)' });

    const event = read(JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1767225600, rateLimitType: 'five_hour' }, session_id: 's' }));
    expect(event.eventType).toBe('claude.rate_limit');
    expect(event.facts!.rateLimit).toEqual({ resetsAt: 1767225600000, retryAfterMs: null, reason: 'rate limit rejected (five_hour), resets 2026-01-01T00:00:00.000Z' });
    const warning = read(JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'allowed_warning', resetsAt: 1767225600 } }));
    expect(warning.facts!.rateLimit).toBeUndefined();

    const result = read(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'Claude AI usage limit reached|1767225600' })).facts!;
    expect(result.rateLimit).toMatchObject({ resetsAt: 1767225600000 });
    const ok = read(JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: 'I hit the rate limit of my patience' })).facts!;
    expect(ok.rateLimit).toBeUndefined();
  });

  it('reads a reset time from the usage-limit texts', () => {
    const now = new Date(2026, 10, 30, 9, 30).getTime(); // local time
    expect(resetTime("You've hit your session limit · resets 2pm", now)).toBe(new Date(2026, 10, 30, 14, 0).getTime());
    expect(resetTime('limit reached · resets 9:15am', now)).toBe(new Date(2026, 11, 1, 9, 15).getTime());
    expect(resetTime('resets at 14:05', now)).toBe(new Date(2026, 10, 30, 14, 5).getTime());
    expect(resetTime('rate limited until 2026-11-30T14:05:00Z', now)).toBe(Date.parse('2026-11-30T14:05:00Z'));
    expect(resetTime('rate limited, try again later', now)).toBeNull();
  });
});

describe('lines that are not what they should be', () => {
  it('plain text, broken JSON, JSON that is not an object, a type nobody knows', () => {
    expect(read('hello')).toMatchObject({ eventType: 'stdout.non_json', payloadJson: '{"text":"hello"}', facts: null });
    expect(summaryOf(read('hello'))).toEqual({ kind: 'raw', text: 'hello' });
    expect(read('{"type":"assi')).toMatchObject({ eventType: 'stdout.truncated_json' });
    expect(summaryOf(read('{"type":"assi'))).toEqual({ kind: 'raw', text: '{"type":"assi' });
    expect(read('[1,2]')).toMatchObject({ eventType: 'claude.unknown', payloadJson: '{"value":[1,2]}' });
    expect(summaryOf(read('{"type":"novel","x":1}'))).toEqual({ kind: 'unknown' });
    expect(summaryOf(read('{"type":"stream_event","event":{}}'))).toEqual({ kind: 'stream' });
  });

  it('bytes that are not text, a NUL escape, a line of 1 MiB', () => {
    const bin = read(Buffer.from([0xff, 0xfe, 0x41]));
    expect(bin.eventType).toBe('stdout.binary');
    expect(summaryOf(bin)).toEqual({ kind: 'raw', text: '(3 bytes that are not text: invalid utf8)' });
    expect(read('{"type":"assistant","x":"a\\u0000b"}').eventType).toBe('stdout.rejected');
    const big = read(Buffer.from(`{"type":"assistant","pad":"${'x'.repeat(OVERSIZED_BYTES)}"}`));
    expect(big.eventType).toBe('stdout.oversized');
    expect((summaryOf(big)!.text as string).length).toBe(SUMMARY_TEXT_MAX);
  });

  it('clips a long text to the summary limit without splitting a character in two', () => {
    const text = `${'a'.repeat(SUMMARY_TEXT_MAX - 2)}😀😀😀`;
    const s = summaryOf(read(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text }] } })))!;
    expect((s.text as string).length).toBeLessThanOrEqual(SUMMARY_TEXT_MAX);
    expect(s.text).toMatch(/…$/);
    expect(() => encodeURIComponent(s.text as string)).not.toThrow(); // no lone surrogate
  });

  it('summarises a tool call by its most telling input, on one line', () => {
    const call = (input: unknown) =>
      summaryOf(read(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't', name: 'Edit', input }] } })));
    expect(call({ file_path: '/a/b.ts', old_string: 'x' })).toEqual({ kind: 'tool_use', tool: 'Edit', input_summary: '/a/b.ts' });
    expect(call({ command: 'ls\n  -la' })).toMatchObject({ input_summary: 'ls -la' });
    expect(call({ n: 1 })).toMatchObject({ input_summary: '{"n":1}' });
    expect(summaryOf(read(JSON.stringify({ type: 'assistant', message: { content: [{ type: 'thinking', thinking: 'hmm' }] } })))).toEqual({
      kind: 'thinking',
      text: 'hmm',
    });
  });
});
