// What every reader of a call shares: the context it reads in and the facts it writes.
import type { Word } from './shell.ts';
import { resolvePath, where, type Place } from './paths.ts';

/** A reading in progress: where it is, the task's branch, the facts so far, how deep in nested shells. */
export interface Ctx extends Place {
  branch: string | null;
  facts: string[];
  depth: number;
}

export function envFact(name: string, ctx: Ctx): void {
  if (!/^[A-Za-z_]\w*$/.test(name)) return;
  ctx.facts.push(`env ${name}`);
}

export function pathFact(mode: string, w: Word, ctx: Ctx): void {
  if (!w.text) return;
  if (!w.literal && !/^~|^\$\{?HOME/.test(w.text) && !w.text.includes('/')) return; // a variable alone: nothing to place
  const abs = resolvePath(w.text, ctx);
  if (abs) ctx.facts.push(`${mode} ${where(abs, ctx.root)} ${abs}`);
}

