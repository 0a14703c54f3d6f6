// The gate's reading of a tool call: the facts its rules match (see docs/gates.md, "What a rule
// reads"). The same reading serves the worker's hook (POST /hooks/gate), the dry run and the CLI.
import fs from 'node:fs';
import path from 'node:path';
import { readCommand } from './commands.ts';
import { pathFact, type Ctx } from './facts.ts';
import { addedDependencies, isManifest } from './manifest.ts';
import { placeFor, resolvePath, where } from './paths.ts';

export interface Reading {
  facts: string[];
}

export interface CallContext {
  /** the task's working directory or worktree */
  cwd?: string | null;
  /** the task's own branch; read from the tree's .git when not given */
  branch?: string | null;
  home?: string;
}

const FILE_WRITERS = new Set(['Write', 'Edit', 'MultiEdit', 'NotebookEdit']);

/** Reads one tool call into facts; never throws on odd input (a fact says what could not be read). */
export async function readCall(tool: string, input: Record<string, unknown>, at: CallContext = {}): Promise<Reading> {
  const place = placeFor(at.cwd, at.home);
  const ctx: Ctx = { ...place, branch: at.branch ?? gitBranch(place.root), facts: [], depth: 0 };
  const str = (k: string) => (typeof input[k] === 'string' ? (input[k] as string) : undefined);
  if (tool === 'Bash') {
    const command = str('command');
    if (command === undefined) ctx.facts.push('unverified a Bash call without a command');
    else await readCommand(command, ctx);
  } else if (tool === 'Read' || tool === 'NotebookRead') {
    fileFact('read', str('file_path') ?? str('notebook_path'), ctx);
  } else if (tool === 'Grep' || tool === 'Glob' || tool === 'LS') {
    fileFact('read', str('path') ?? '.', ctx);
  } else if (FILE_WRITERS.has(tool)) {
    const file = str('file_path') ?? str('notebook_path');
    if (!file) ctx.facts.push(`unverified a ${tool} call without a file path`);
    else {
      fileFact('write', file, ctx);
      manifestFacts(tool, file, input, ctx);
    }
  } else if (tool === 'WebFetch') {
    ctx.facts.push(`http get ${str('url') ?? ''}`);
  }
  return { facts: [...new Set(ctx.facts)] };
}

function fileFact(mode: string, p: string | undefined, ctx: Ctx): void {
  if (p) pathFact(mode, { text: p, literal: true, vars: [] }, ctx);
}

/** An edit of a dependency manifest: which names it adds (before and after compared). */
function manifestFacts(tool: string, file: string, input: Record<string, unknown>, ctx: Ctx): void {
  if (!isManifest(file)) return;
  const abs = resolvePath(file, ctx);
  if (!abs) return;
  let current: string | null = null;
  try {
    current = fs.readFileSync(abs, 'utf8');
  } catch {
    current = null;
  }
  const edits = tool === 'MultiEdit' && Array.isArray(input.edits) ? (input.edits as Record<string, unknown>[])
    : tool === 'Edit' ? [input] : [];
  let added: string[];
  if (tool === 'Write' || tool === 'NotebookEdit') {
    added = addedDependencies(abs, current ?? '', String(input.content ?? input.new_source ?? ''), true);
  } else {
    let after = current;
    for (const e of edits) {
      const o = String(e.old_string ?? '');
      const n = String(e.new_string ?? '');
      if (after === null || !after.includes(o)) { after = null; break; }
      after = e.replace_all ? after.split(o).join(n) : after.replace(o, () => n);
    }
    added = current !== null && after !== null
      ? addedDependencies(abs, current, after, true)
      : edits.flatMap((e) => addedDependencies(abs, String(e.old_string ?? ''), String(e.new_string ?? ''), false));
  }
  const w = where(abs, ctx.root);
  for (const name of added) ctx.facts.push(`adds-dependency ${w} ${path.basename(abs)} ${name}`);
}

/** The branch checked out in a tree (a worktree's .git is a file naming its git directory). */
export function gitBranch(root: string): string | null {
  for (let dir = root; ; dir = path.dirname(dir)) {
    const dotgit = path.join(dir, '.git');
    try {
      let gitdir = dotgit;
      if (fs.statSync(dotgit).isFile()) gitdir = path.resolve(dir, fs.readFileSync(dotgit, 'utf8').replace(/^gitdir:\s*/, '').trim());
      const head = fs.readFileSync(path.join(gitdir, 'HEAD'), 'utf8').trim();
      return /^ref: refs\/heads\/(.+)$/.exec(head)?.[1] ?? null;
    } catch {
      if (path.dirname(dir) === dir) return null;
    }
  }
}
