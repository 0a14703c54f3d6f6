// The small closed vocabularies of the wire shapes, shared by the zod side (server) and the valibot
// side (client) of each contract. Imports nothing, so either side may use it.

/** Journal tiers (D-16): raw is what happened, derived is what the gate validated. */
export const TIERS = ['raw', 'derived'] as const;

/**
 * What a journalled stdout line was, in the substrate's neutral words (event.summary.kind): the
 * client reads these instead of the substrate's own line shapes.
 */
export const SUMMARY_KINDS = [
  'text', // words of the model
  'thinking', // its visible reasoning
  'tool_use', // a tool call (tool, input_summary)
  'tool_result', // what a tool answered (is_error)
  'user', // a prompt or other user turn
  'result', // the run's final result (text, is_error)
  'init', // the run started
  'retry', // the substrate retries an API call (text says why)
  'system', // another substrate notice
  'stream', // a partial-message fragment
  'unknown', // JSON the substrate adapter does not know
  'raw', // not JSON, binary, oversized or refused: text shows what it was
] as const;

/** Longest summary text (characters); the full line stays in the payload. */
export const SUMMARY_TEXT_MAX = 2048;

/** How a project's orchestrator advances: autonomous (handoffs wake it) or interactive (the user does). */
export const PROJECT_MODES = ['interactive', 'autonomous'] as const;

/** Where a user message stands. */
export const MESSAGE_STATES = ['pending', 'delivered'] as const;

/** A summary text clipped to SUMMARY_TEXT_MAX, never splitting a surrogate pair (Postgres refuses a lone half). */
export function clipText(s: string, max: number = SUMMARY_TEXT_MAX): string {
  if (s.length <= max) return s;
  let end = max - 1;
  const c = s.charCodeAt(end - 1);
  if (c >= 0xd800 && c <= 0xdbff) end--;
  return `${s.slice(0, end)}…`;
}

/**
 * A workspace's state (dispatch.workspaces.state): active (a worker may be writing), ready (its
 * change waits for a decision), empty (no change), merging / discarding (the job is queued),
 * merged, discarded, continued (a follow-up task carries it on), superseded (a later attempt took over).
 */
export const WORKSPACE_STATES = ['active', 'ready', 'empty', 'merging', 'merged', 'discarding', 'discarded', 'continued', 'superseded'] as const;
