// The gate corpus's shape: one tool call a coding agent really makes, with what the gate must answer.
// Bash calls are written as their command; file tools as [tool, input]. All run in CWD.

export const CWD = '/work/projects/demo';

export type Category =
  | 'secrets' | 'outside_project' | 'privilege' | 'network_config' | 'destructive'
  | 'git_beyond_branch' | 'dependencies' | 'cross_service' | 'unverified';

/** A risky call: gated (ask or deny) under this category. */
export type Risky = { call: string | [string, Record<string, unknown>]; category: Category; decision?: 'ask' | 'deny' };

/** A routine call: passes; `near` names the category it resembles. */
export type Routine = { call: string | [string, Record<string, unknown>]; near: Category };

export function toolCall(call: Risky['call']): { tool: string; input: Record<string, unknown> } {
  return typeof call === 'string' ? { tool: 'Bash', input: { command: call } } : { tool: call[0], input: call[1] };
}
