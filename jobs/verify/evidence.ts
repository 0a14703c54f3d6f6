// The handoff's `evidence`, written by the gate from journal facts — never by the extractor: the
// attempt's check verdict (verify.finished; null when the project has no check), its change
// (workspace.changed: file count and line totals; null without a workspace), and the handoff's
// `file` artifacts that the change does not contain, listed as unbacked claims.
import type { Sql } from '../../core/db/client.ts';

export interface Evidence {
  verify: { passed: boolean; exit_code: number | null; command: string[]; output_tail: string; duration_ms: number; reason: string | null } | null;
  diff: { files: number; insertions: number; deletions: number; paths: string[] } | null;
  unbacked_claims: { kind: 'file'; ref: string }[];
}

interface Change {
  files: { path: string; insertions: number; deletions: number }[];
  path?: string;
}

export async function evidenceFor(sql: Sql, taskId: string, attempt: number, artifacts: unknown): Promise<Evidence> {
  const [row] = await sql<{ v: Evidence['verify'] & Record<string, unknown>; c: Change | null; w: string | null }[]>`
    select dispatch.attempt_check(${taskId}, ${attempt}) as v, dispatch.attempt_change(${taskId}, ${attempt}) as c,
           (select path from dispatch.workspaces where task_id = ${taskId} and attempt = ${attempt}) as w`;
  const v = row?.v ?? null;
  const c = row?.c ?? null;
  const verify = v && { passed: v.passed, exit_code: v.exit_code, command: v.command, output_tail: v.output_tail, duration_ms: v.duration_ms, reason: v.reason ?? null };
  const files = c?.files ?? [];
  const diff = c && {
    files: files.length,
    insertions: files.reduce((n, f) => n + f.insertions, 0),
    deletions: files.reduce((n, f) => n + f.deletions, 0),
    paths: files.map((f) => f.path),
  };
  const unbacked: Evidence['unbacked_claims'] = [];
  if (diff && Array.isArray(artifacts)) {
    const changed = new Set(diff.paths);
    for (const a of artifacts as { kind?: unknown; ref?: unknown }[]) {
      if (a?.kind !== 'file' || typeof a.ref !== 'string') continue;
      if (!changed.has(relative(a.ref, row?.w ?? null))) unbacked.push({ kind: 'file', ref: a.ref });
    }
  }
  return { verify, diff, unbacked_claims: unbacked };
}

/** A claimed file as the change names it: relative to the worktree, without a leading ./. */
function relative(ref: string, worktree: string | null): string {
  let r = ref.trim();
  if (worktree && r.startsWith(`${worktree}/`)) r = r.slice(worktree.length + 1);
  return r.replace(/^(\.\/)+/, '');
}
