// The substrate port: what the rest of petal-dispatch asks of the agent runtime that does the work
// (Claude Code today). Jobs describe an intent; the substrate turns it into a command, reads each
// stdout line once (the journal row, its neutral summary, and the facts the supervisor needs), and
// derives the session's status from those facts and how the process ended. Nothing here knows a
// flag or a line shape; the adapters in this folder do.
import type { Status } from '../../core/contracts/status.ts';
import type { Usage } from '../../core/contracts/usage.ts';

/** An MCP server a run may use: where it is, how to authenticate, and which of its tools to allow. */
export interface McpServerIntent {
  url: string;
  headers?: Record<string, string>;
  tools: string[];
}

/** What a run is for and what it may do — never how the substrate spells it. */
export interface Intent {
  /** worker, extractor, orchestrator, … (data, not a code branch). */
  role: string;
  prompt: string;
  /** Working directory of the process. */
  cwd: string;
  /** The substrate's own session id to continue (a resumed conversation). */
  resume?: string | null;
  /** Continue `resume` under a new session id, leaving the resumed conversation as it was (a failed run then changes nothing). */
  fork?: boolean;
  /** Built-in tools the run may use without asking. */
  tools?: string[];
  permissionMode?: string;
  model?: string;
  /** MCP servers to load, by name; only these are loaded. */
  mcpServers?: Record<string, McpServerIntent>;
  limits?: {
    /** Stop the run once it has spent this much (the substrate's own estimate). */
    maxBudgetUsd?: number;
    maxTurns?: number;
  };
  /** Hook settings handed to the run as they are. */
  hooks?: Record<string, unknown>;
  /**
   * Every tool call is first put to dispatch's gate (POST url with the bearer token): pass, deny
   * with a reason, or defer the call and end the run (the gate is open; a resumed run asks again).
   * Fails closed: when the gate cannot be reached, the call is deferred.
   */
  gate?: GateIntent;
  /** Arguments passed through untouched (CLAUDE_ARGS, a project's extra_args). */
  extraArgs?: string[];
  /** Variables added to the run's environment. */
  env?: Record<string, string>;
}

/** Where a run's tool calls are put to the gate. */
export interface GateIntent {
  url: string;
  token: string;
}

/** A tool call the run deferred at the gate; the run ended there and resumes with the same call. */
export interface DeferredCall {
  /** The substrate's id of the call (the resumed run asks about the same id). */
  id: string;
  tool: string;
  input: Record<string, unknown>;
}

/** A process to start: argument array (never a shell string), working directory, environment. */
export interface Command {
  bin: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The command line as it may be journalled: the prompt and credentials replaced by placeholders. */
  display: string[];
}

/** What one model of a run cost. */
export interface ModelUsage {
  model: string;
  cost_usd: number;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_creation_tokens: number;
}

/** What a run cost as its substrate reported it (its own estimate), whole and per model. */
export interface RunUsage extends Usage {
  by_model: ModelUsage[];
}

/** A rate limit or quota signal: when it resets (epoch ms) or how long to wait, if the line says. */
export interface RateLimitFact {
  resetsAt: number | null;
  retryAfterMs: number | null;
  reason: string;
}

/** What one line tells the supervisor about how the run is going. */
export interface LineFacts {
  /** The substrate's own session id (forensic; the next turn resumes it). */
  substrateSessionId?: string;
  /** The substrate is retrying an API call. */
  retry?: { status: number | null; error: string | null };
  /** The account's quota or rate limit stopped a request: until when, as well as the line says. */
  rateLimit?: RateLimitFact;
  /** The run's final result. */
  result?: { isError: boolean; kind: string | null; text: string | null; errorStatus: number | null; usage: RunUsage | null; deferred?: DeferredCall | null };
}

/** One stdout line, read once: the journal row it becomes and what it tells the supervisor. */
export interface ClassifiedLine {
  eventType: string;
  /** The payload as JSON text, ready to embed; for a JSON line it is the line itself. */
  payloadJson: string;
  /** The neutral summary (core/contracts/event.ts EventSummary) as JSON text; null for none. */
  summaryJson: string | null;
  facts: LineFacts | null;
}

/** Everything the stream said that decides a status, accumulated line by line. */
export interface StreamFacts {
  resultSeen: boolean;
  isError: boolean;
  /** The result's own kind (e.g. success, error_max_turns). */
  resultKind: string | null;
  resultText: string | null;
  /** The HTTP status of the API error the result reports. */
  errorStatus: number | null;
  retries: { status: number | null; error: string | null }[];
  substrateSessionId: string | null;
  /** What the run cost, from its result (null until a result reports it). */
  usage: RunUsage | null;
  lines: number;
  /** The tool call the run ended on, deferred at the gate. */
  deferred: DeferredCall | null;
}

export function emptyFacts(): StreamFacts {
  return { resultSeen: false, isError: false, resultKind: null, resultText: null, errorStatus: null, retries: [], substrateSessionId: null, usage: null, lines: 0, deferred: null };
}

/** Folds one classified line into the facts. */
export function observe(f: StreamFacts, line: ClassifiedLine): void {
  f.lines++;
  const x = line.facts;
  if (!x) return;
  if (x.substrateSessionId) f.substrateSessionId ??= x.substrateSessionId;
  if (x.retry) f.retries.push(x.retry);
  if (x.result) {
    f.resultSeen = true;
    f.isError = x.result.isError;
    f.resultKind = x.result.kind;
    f.resultText = x.result.text;
    f.errorStatus = x.result.errorStatus;
    f.deferred = x.result.deferred ?? null;
    f.usage = x.result.usage ?? f.usage;
  }
}

/** How the process ended. */
export interface ExitFacts {
  /** null when the process was not our child (adopted after a runner died). */
  code: number | null;
  signal: string | null;
  exitKnown: boolean;
  /** We ended it because its result arrived and it did not exit within the grace period. */
  endedAfterResult: boolean;
}

export interface Derived {
  status: Status;
  reason: string;
}

/** A result line read back from the journal. */
export interface ResultReading {
  text: string;
  isError: boolean;
  usage: RunUsage | null;
  /** The tool call the run ended on, deferred at the gate. */
  deferred: DeferredCall | null;
}

export interface Substrate {
  /** Its name, for logs. */
  readonly name: string;
  /** The event type of a run's final result line. */
  readonly resultEventType: string;
  /** The process that carries out the intent. */
  command(intent: Intent): Command;
  /** A process that prints the substrate's version. */
  versionCommand(): Omit<Command, 'cwd' | 'display'>;
  /** Reads one stdout line (without its newline). Never throws. */
  classify(line: Buffer): ClassifiedLine;
  /** The session's status from what its stream said and how its process ended (D-11). */
  deriveStatus(facts: StreamFacts, exit: ExitFacts): Derived;
  /** The final text and usage of a journalled result payload; null when it is not one. */
  readResult(payload: unknown): ResultReading | null;
}
