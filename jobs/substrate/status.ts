// Claude Code, part 3 of 3: a session's status (D-11) from how its process ended AND what its
// stream said; never from the exit code alone (API errors arrive as subtype "success" with
// is_error: true). Quota, usage limits and authentication failures read from the stream override
// the exit mapping as rate_limited.
import type { Derived, ExitFacts, StreamFacts } from './port.ts';

const LIMIT_TEXT = /usage limit|rate[ _-]?limit|quota|too many requests|oauth token (has )?expired|invalid api key|authenticat|unauthori[sz]ed|credit balance/i;

/** Why the stream shows quota, usage limit or authentication trouble; null when it does not. */
export function limitedBy(f: StreamFacts): string | null {
  if (f.errorStatus === 429) return 'rate limited (429)';
  if (f.errorStatus === 401 || f.errorStatus === 403) return `authentication failed (${f.errorStatus})`;
  const last = f.retries.at(-1);
  if (last) {
    if (last.status === 429 || last.error === 'rate_limit') return 'rate limited (429 while retrying)';
    if (last.status === 401 || last.status === 403 || last.error === 'authentication_failed') {
      return `authentication failed (${last.status ?? last.error})`;
    }
  }
  if (f.isError && f.resultText && LIMIT_TEXT.test(f.resultText)) return `limited: ${firstLine(f.resultText)}`;
  return null;
}

/** Result kinds that mean the run hit its turn cap rather than failing (the budget cap: below). */
const CAPPED = new Set(['error_max_turns']);

export function deriveStatus(f: StreamFacts, e: ExitFacts): Derived {
  const succeeded = f.resultSeen && !f.isError;
  // The run ended on a tool call deferred at the gate: it holds nothing and waits for a person.
  if (f.deferred && f.resultSeen && !f.isError) {
    return { status: 'gated', reason: `tool call deferred at the gate: ${f.deferred.tool}` };
  }
  const sig = e.signal ?? (e.code === 143 ? 'SIGTERM' : e.code === 130 ? 'SIGINT' : e.code === 137 ? 'SIGKILL' : null);

  if (e.endedAfterResult && f.resultSeen) {
    return succeeded
      ? { status: 'success', reason: 'result arrived; the process did not exit and was stopped' }
      : fromErrorResult(f);
  }
  if (sig === 'SIGTERM' || sig === 'SIGINT') return { status: 'cancelled', reason: `stopped by ${sig}` };
  if (sig) return { status: 'crashed', reason: sig === 'SIGKILL' ? 'killed (SIGKILL)' : `killed by ${sig}` };

  if (!e.exitKnown) {
    if (f.resultSeen) return succeeded ? { status: 'success', reason: 'result arrived (exit status unknown)' } : fromErrorResult(f);
    const limited = limitedBy(f);
    if (limited) return { status: 'rate_limited', reason: limited };
    return { status: 'crashed', reason: 'the process ended while no runner watched it; no result line' };
  }

  if (e.code === 0) {
    if (succeeded) return { status: 'success', reason: 'exit 0 with a successful result' };
    if (f.resultSeen) return fromErrorResult(f);
    return { status: 'failed', reason: 'exit 0 without a result line' };
  }
  if (f.resultSeen && !succeeded) return fromErrorResult(f, e.code);
  const limited = limitedBy(f);
  if (limited) return { status: 'rate_limited', reason: limited };
  if (!f.resultSeen) return { status: 'failed', reason: `exit ${e.code} without a result line` };
  return { status: 'failed', reason: `exit ${e.code} after a successful result` };
}

/** The kind of result Claude Code ends a run with when --max-budget-usd stops it. */
export const BUDGET_RESULT_KIND = 'error_max_budget_usd';

function fromErrorResult(f: StreamFacts, code?: number | null): Derived {
  if (f.resultKind === BUDGET_RESULT_KIND) {
    const spent = f.usage?.cost_usd;
    return { status: 'partial', reason: spent != null ? `budget reached ($${spent.toFixed(2)} spent)` : 'budget reached' };
  }
  const limited = limitedBy(f);
  if (limited) return { status: 'rate_limited', reason: limited };
  if (f.resultKind && CAPPED.has(f.resultKind)) {
    return { status: 'partial', reason: 'stopped at its turn limit' };
  }
  const what = f.resultText ? firstLine(f.resultText) : (f.resultKind ?? 'error result');
  return { status: 'failed', reason: code ? `exit ${code}: ${what}` : what };
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
