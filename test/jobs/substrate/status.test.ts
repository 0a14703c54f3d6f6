// Status derivation (D-11) as a pure function: every row of the exit mapping, the stream facts
// that override it (429, 401, 403, usage limit text), and the real runs of the Phase 0 dump.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultSubstrate as substrate } from '../../../jobs/substrate/index.ts';
import { emptyFacts, observe, type ExitFacts, type StreamFacts } from '../../../jobs/substrate/port.ts';

const exit = (code: number | null, signal: string | null = null): ExitFacts => ({ code, signal, exitKnown: true, endedAfterResult: false });
const unknownExit: ExitFacts = { code: null, signal: null, exitKnown: false, endedAfterResult: false };

/** The facts a stream of lines leaves behind, read through the substrate as the supervisor does. */
function factsOf(...lines: object[]): StreamFacts {
  const f = emptyFacts();
  for (const l of lines) observe(f, substrate.classify(Buffer.from(JSON.stringify(l))));
  return f;
}
const init = { type: 'system', subtype: 'init', session_id: 's-1', model: 'm' };
const ok = { type: 'result', subtype: 'success', is_error: false, result: 'Done.', session_id: 's-1' };
const apiError = (status: number | null, result: string) => ({ type: 'result', subtype: 'success', is_error: true, api_error_status: status, result });
const retry = (status: number, error: string) => ({ type: 'system', subtype: 'api_retry', attempt: 1, max_retries: 2, error_status: status, error });

describe('D-11: how the process ended', () => {
  it('exit 0 with a successful result is success', () => {
    expect(substrate.deriveStatus(factsOf(init, ok), exit(0))).toEqual({ status: 'success', reason: 'exit 0 with a successful result' });
  });
  it('exit 0 with an error result is failed, never success (API errors arrive as subtype success)', () => {
    expect(substrate.deriveStatus(factsOf(init, apiError(500, 'API Error: 500 Internal server error')), exit(0))).toEqual({
      status: 'failed',
      reason: 'API Error: 500 Internal server error',
    });
  });
  it('exit 0 without a result line is failed', () => {
    expect(substrate.deriveStatus(factsOf(init), exit(0))).toEqual({ status: 'failed', reason: 'exit 0 without a result line' });
  });
  it('another clean exit is failed, with or without a result', () => {
    expect(substrate.deriveStatus(factsOf(init), exit(1))).toEqual({ status: 'failed', reason: 'exit 1 without a result line' });
    expect(substrate.deriveStatus(factsOf(init, apiError(null, 'boom\nmore')), exit(1))).toEqual({ status: 'failed', reason: 'exit 1: boom' });
    expect(substrate.deriveStatus(factsOf(init, ok), exit(2))).toEqual({ status: 'failed', reason: 'exit 2 after a successful result' });
  });
  it('an error result without text names its kind', () => {
    const f = factsOf({ type: 'result', subtype: 'error_during_execution', is_error: true });
    expect(substrate.deriveStatus(f, exit(1))).toEqual({ status: 'failed', reason: 'exit 1: error_during_execution' });
  });
  it('a run stopped at its turn or budget cap is partial', () => {
    const turns = factsOf({ type: 'result', subtype: 'error_max_turns', is_error: true });
    expect(substrate.deriveStatus(turns, exit(1))).toEqual({ status: 'partial', reason: 'stopped at its turn limit' });
    const budget = factsOf({ type: 'result', subtype: 'error_max_budget_usd', is_error: true });
    expect(substrate.deriveStatus(budget, exit(1)).status).toBe('partial');
  });
  it('a run that ended on a tool call deferred at the gate is gated', () => {
    const deferred = {
      type: 'result', subtype: 'success', is_error: false, result: '', stop_reason: 'tool_deferred', terminal_reason: 'tool_deferred',
      deferred_tool_use: { id: 'toolu_1', name: 'Bash', input: { command: 'git push' } },
    };
    const f = factsOf(init, deferred);
    expect(f.deferred).toEqual({ id: 'toolu_1', tool: 'Bash', input: { command: 'git push' } });
    expect(substrate.deriveStatus(f, exit(0))).toEqual({ status: 'gated', reason: 'tool call deferred at the gate: Bash' });
    expect(substrate.readResult(deferred)?.deferred).toEqual({ id: 'toolu_1', tool: 'Bash', input: { command: 'git push' } });
  });
  it('SIGINT or exit 130 is cancelled', () => {
    expect(substrate.deriveStatus(factsOf(init), exit(null, 'SIGINT'))).toEqual({ status: 'cancelled', reason: 'stopped by SIGINT' });
    expect(substrate.deriveStatus(factsOf(init), exit(130))).toEqual({ status: 'cancelled', reason: 'stopped by SIGINT' });
  });
  it('SIGTERM or exit 143 is cancelled', () => {
    expect(substrate.deriveStatus(factsOf(init), exit(null, 'SIGTERM'))).toEqual({ status: 'cancelled', reason: 'stopped by SIGTERM' });
    expect(substrate.deriveStatus(factsOf(init), exit(143))).toEqual({ status: 'cancelled', reason: 'stopped by SIGTERM' });
  });
  it('SIGKILL or exit 137 is crashed, and so is any other signal', () => {
    expect(substrate.deriveStatus(factsOf(init), exit(null, 'SIGKILL'))).toEqual({ status: 'crashed', reason: 'killed (SIGKILL)' });
    expect(substrate.deriveStatus(factsOf(init), exit(137))).toEqual({ status: 'crashed', reason: 'killed (SIGKILL)' });
    expect(substrate.deriveStatus(factsOf(init), exit(null, 'SIGSEGV'))).toEqual({ status: 'crashed', reason: 'killed by SIGSEGV' });
  });
  it('a signal we sent wins over a successful result the process printed before', () => {
    expect(substrate.deriveStatus(factsOf(init, ok), exit(143)).status).toBe('cancelled');
  });
});

describe('D-11: what the stream said overrides the exit mapping as rate_limited', () => {
  it('a result with a 429', () => {
    expect(substrate.deriveStatus(factsOf(apiError(429, 'API Error: Request rejected (429)')), exit(1))).toEqual({ status: 'rate_limited', reason: 'rate limited (429)' });
  });
  it('a refused credential: 401 and 403', () => {
    expect(substrate.deriveStatus(factsOf(apiError(401, 'Invalid API key')), exit(1))).toEqual({ status: 'rate_limited', reason: 'authentication failed (401)' });
    expect(substrate.deriveStatus(factsOf(apiError(403, 'Forbidden')), exit(0))).toEqual({ status: 'rate_limited', reason: 'authentication failed (403)' });
  });
  it('retries that ended on a 429, a 401 or a 403, with no result at all', () => {
    expect(substrate.deriveStatus(factsOf(init, retry(429, 'rate_limit')), exit(1))).toEqual({ status: 'rate_limited', reason: 'rate limited (429 while retrying)' });
    expect(substrate.deriveStatus(factsOf(init, retry(401, 'authentication_failed')), exit(1))).toEqual({ status: 'rate_limited', reason: 'authentication failed (401)' });
    expect(substrate.deriveStatus(factsOf(init, retry(403, 'forbidden')), exit(1))).toEqual({ status: 'rate_limited', reason: 'authentication failed (403)' });
  });
  it('only the last retry counts: a 429 that was followed by a 500 is not a rate limit', () => {
    expect(substrate.deriveStatus(factsOf(init, retry(429, 'rate_limit'), retry(500, 'server_error')), exit(1)).status).toBe('failed');
  });
  it('"usage limit reached" (and its kin) in an error result', () => {
    const f = factsOf(apiError(null, 'Claude AI usage limit reached|1767225600'));
    expect(substrate.deriveStatus(f, exit(1))).toEqual({ status: 'rate_limited', reason: 'limited: Claude AI usage limit reached|1767225600' });
    expect(substrate.deriveStatus(factsOf(apiError(null, 'OAuth token has expired')), exit(1)).status).toBe('rate_limited');
    expect(substrate.deriveStatus(factsOf(apiError(null, 'Credit balance is too low')), exit(0)).status).toBe('rate_limited');
  });
  it('the same words in a successful result mean nothing', () => {
    expect(substrate.deriveStatus(factsOf({ ...ok, result: 'I read about the usage limit.' }), exit(0)).status).toBe('success');
  });
});

describe('D-11: a process stopped after its result, and one nobody watched end', () => {
  const stopped: ExitFacts = { code: null, signal: 'SIGTERM', exitKnown: true, endedAfterResult: true };
  it('stopped after a successful result is success, classified from the result', () => {
    expect(substrate.deriveStatus(factsOf(init, ok), stopped)).toEqual({ status: 'success', reason: 'result arrived; the process did not exit and was stopped' });
  });
  it('stopped after an error result is failed (or rate_limited)', () => {
    expect(substrate.deriveStatus(factsOf(apiError(null, 'boom')), stopped)).toEqual({ status: 'failed', reason: 'boom' });
    expect(substrate.deriveStatus(factsOf(apiError(429, 'x')), stopped).status).toBe('rate_limited');
  });
  it('an adopted process that ended unseen is classified from its stream', () => {
    expect(substrate.deriveStatus(factsOf(init, ok), unknownExit)).toEqual({ status: 'success', reason: 'result arrived (exit status unknown)' });
    expect(substrate.deriveStatus(factsOf(init, retry(429, 'rate_limit')), unknownExit).status).toBe('rate_limited');
    expect(substrate.deriveStatus(factsOf(init), unknownExit)).toEqual({
      status: 'crashed',
      reason: 'the process ended while no runner watched it; no result line',
    });
  });
});

describe('the real runs of the Phase 0 dump end as they should', () => {
  const runs = path.resolve(import.meta.dirname, '../../../fixtures/runs');
  const expected: Record<string, string> = {
    'text-only': 'success',
    'bash-tool': 'success',
    'multi-turn': 'success',
    'api-error-500': 'failed',
    'sigterm-mid-turn': 'cancelled',
    'rate-limit-429': 'rate_limited',
    'auth-401': 'rate_limited',
  };
  for (const [name, status] of Object.entries(expected)) {
    it(`${name} → ${status}`, () => {
      const meta = JSON.parse(fs.readFileSync(path.join(runs, name, 'meta.json'), 'utf8')) as { exit_code: number | null; signal: string | null };
      const f = emptyFacts();
      for (const line of fs.readFileSync(path.join(runs, name, 'stdout.jsonl')).toString('utf8').split('\n').filter(Boolean)) {
        observe(f, substrate.classify(Buffer.from(line)));
      }
      expect(substrate.deriveStatus(f, exit(meta.exit_code, meta.signal)).status).toBe(status);
      expect(f.substrateSessionId).toMatch(/^[0-9a-f-]{36}$/);
    });
  }
});
