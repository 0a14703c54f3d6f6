// What a branch changed, as the journal keeps it: files with +/- counts and the patch, bounded
// (PATCH_LIMIT, cut at a line, with an explicit marker and the full size); and whether the branch
// merges cleanly into base right now (git merge-tree: no worktree, nothing touched).
import { git } from '../../core/git/git.ts';

/** The most patch text one workspace.changed row carries. */
export const PATCH_LIMIT = 512 * 1024;
/** The most conflict text (files with their markers) a Resolve brief carries. */
const CONFLICT_DETAIL_LIMIT = 32 * 1024;
const CONFLICT_FILE_LIMIT = 8 * 1024;

export interface FileChange {
  path: string;
  insertions: number;
  deletions: number;
  binary?: true;
}

export interface Change {
  files: FileChange[];
  patch: string;
  truncated: boolean;
  /** The full patch's size in bytes (more than `patch` holds when truncated). */
  patch_bytes: number;
}

/** The change from `from` to `to` in `repo` (commits or refs). */
export async function describeChange(repo: string, from: string, to: string, bin?: string, limit = PATCH_LIMIT): Promise<Change> {
  const numstat = await git(['diff', '--numstat', '-z', '--no-renames', '--no-ext-diff', from, to, '--'], { cwd: repo, bin });
  const files: FileChange[] = [];
  for (const entry of numstat.stdout.split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t([\s\S]+)$/.exec(entry);
    if (!m) continue;
    const binary = m[1] === '-';
    files.push({ path: m[3]!, insertions: binary ? 0 : Number(m[1]), deletions: binary ? 0 : Number(m[2]), ...(binary ? { binary: true as const } : {}) });
  }
  const diff = await git(['diff', '--no-color', '--no-ext-diff', '--no-renames', from, to, '--'], { cwd: repo, bin, limit });
  let patch = diff.stdout;
  if (diff.truncated) {
    const cut = patch.lastIndexOf('\n');
    patch = `${cut > 0 ? patch.slice(0, cut + 1) : patch}\n[patch truncated by petal-dispatch: ${Buffer.byteLength(patch)} of ${diff.bytes} bytes shown; the branch holds the whole change]\n`;
  }
  return { files, patch: storable(patch), truncated: diff.truncated, patch_bytes: diff.bytes };
}

export interface MergeCheck {
  /** The merged tree (with conflict markers in conflicted files). */
  tree: string;
  clean: boolean;
  files: string[];
  /** The conflicted files with their markers, bounded (for a Resolve brief). */
  detail: string | null;
}

/** Whether `head` merges cleanly into `base` (both commits), without touching any worktree. */
export async function checkMerge(repo: string, base: string, head: string, bin?: string): Promise<MergeCheck> {
  const r = await git(['merge-tree', '--write-tree', '--name-only', '--no-messages', base, head], { cwd: repo, bin, ok: [1] });
  const [tree, ...rest] = r.stdout.split('\n');
  const files = [...new Set(rest.map((l) => l.trim()).filter(Boolean))];
  if (r.code === 0) return { tree: tree!.trim(), clean: true, files: [], detail: null };
  let detail = '';
  for (const f of files) {
    if (detail.length >= CONFLICT_DETAIL_LIMIT) {
      detail += `\n(… more conflicted files not shown)\n`;
      break;
    }
    const blob = await git(['cat-file', '-p', `${tree!.trim()}:${f}`], { cwd: repo, bin, ok: [128], limit: CONFLICT_FILE_LIMIT });
    const text = blob.code === 0 ? blob.stdout + (blob.truncated ? '\n(… cut)\n' : '') : '(no text: deleted or binary on one side)\n';
    detail += `--- ${f}\n${text}${text.endsWith('\n') ? '' : '\n'}`;
  }
  return { tree: tree!.trim(), clean: false, files, detail: storable(detail) };
}

/** Text Postgres can keep in jsonb: NUL becomes U+FFFD (invalid UTF-8 already did when decoded). */
export function storable(text: string): string {
  return text.includes('\0') ? text.replaceAll('\0', '\uFFFD') : text;
}
