// Deriving a session's status (D-11) from how its process ended AND what its stream said; never from
// the exit code alone (API errors arrive as subtype "success" with is_error: true).

export interface StreamFacts {
  resultSeen: boolean;
  isError: boolean;
  subtype: string | null;
  resultText: string | null;
  apiErrorStatus: number | null;
  /** error_status / error of every system/api_retry line. */
  retries: { status: number | null; error: string | null }[];
  claudeSessionId: string | null;
  lines: number;
}

export function emptyFacts(): StreamFacts {
  return { resultSeen: false, isError: false, subtype: null, resultText: null, apiErrorStatus: null, retries: [], claudeSessionId: null, lines: 0 };
}

/** Updates the facts from one stdout line. Parses only the lines that matter (system, result). */
export function observeLine(facts: StreamFacts, line: Buffer): void {
  facts.lines++;
  const head = line.subarray(0, 48).toString('latin1');
  if (!head.includes('"system"') && !head.includes('"result"')) return;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line.toString('utf8')) as Record<string, unknown>;
  } catch {
    return;
  }
  if (typeof o.session_id === 'string') facts.claudeSessionId ??= o.session_id;
  if (o.type === 'system' && o.subtype === 'api_retry') {
    facts.retries.push({
      status: typeof o.error_status === 'number' ? o.error_status : null,
      error: typeof o.error === 'string' ? o.error : null,
    });
  } else if (o.type === 'result') {
    facts.resultSeen = true;
    facts.isError = o.is_error === true;
    facts.subtype = typeof o.subtype === 'string' ? o.subtype : null;
    facts.resultText = typeof o.result === 'string' ? o.result : null;
    facts.apiErrorStatus = typeof o.api_error_status === 'number' ? o.api_error_status : null;
  }
}

export interface ExitFacts {
  /** null when the process was not our child (adopted after a runner died). */
  code: number | null;
  signal: string | null;
  exitKnown: boolean;
  /** We ended it because its result arrived and it did not exit within the grace period. */
  endedAfterResult: boolean;
}

export interface Derived {
  status: 'success' | 'failed' | 'crashed' | 'cancelled' | 'rate_limited';
  reason: string;
}

const LIMIT_TEXT = /usage limit|rate[ _-]?limit|quota|too many requests|oauth token (has )?expired|invalid api key|authenticat|unauthori[sz]ed|credit balance/i;

/** True when the stream shows quota, usage limit or authentication trouble. */
export function limitedBy(f: StreamFacts): string | null {
  if (f.apiErrorStatus === 429) return 'rate limited (429)';
  if (f.apiErrorStatus === 401 || f.apiErrorStatus === 403) return `authentication failed (${f.apiErrorStatus})`;
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

export function deriveStatus(f: StreamFacts, e: ExitFacts): Derived {
  const succeeded = f.resultSeen && !f.isError;
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

function fromErrorResult(f: StreamFacts, code?: number | null): Derived {
  const limited = limitedBy(f);
  if (limited) return { status: 'rate_limited', reason: limited };
  const what = f.resultText ? firstLine(f.resultText) : (f.subtype ?? 'error result');
  return { status: 'failed', reason: code ? `exit ${code}: ${what}` : what };
}

function firstLine(s: string): string {
  const line = s.split('\n')[0] ?? '';
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}
