// Where a path really is: made absolute against the task's working directory (or the directory a
// `cd` moved to), `~` expanded, `.`/`..` folded, symlinks followed where they exist, then placed:
// the tree itself, inside it, scratch space (temp folders), or outside.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type Where = 'tree' | 'inside' | 'scratch' | 'outside';

export interface Place {
  /** the working tree measured against (absolute, symlinks followed) */
  root: string;
  /** the directory relative paths start from */
  cwd: string;
  home: string;
}

/** Paths that are streams, not files: never a read or write worth a rule. */
const STREAMS = /^\/dev\/(null|zero|u?random|stdin|stdout|stderr|tty|fd\/\d+)$/;

/** The absolute path a word names, or null for a stream or an empty word. */
export function resolvePath(p: string, at: Place): string | null {
  if (!p) return null;
  let abs: string;
  if (p === '~' || p.startsWith('~/')) abs = path.join(at.home, p.slice(1));
  else if (/^~[a-z_][\w-]*(\/|$)/i.test(p)) abs = path.join(path.dirname(at.home), p.slice(1));
  else abs = path.resolve(at.cwd, p);
  if (STREAMS.test(abs)) return null;
  return realish(abs);
}

/** realpath of the longest prefix that exists, the rest appended (a file about to be written). */
export function realish(abs: string): string {
  let head = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(head), ...rest.reverse());
    } catch {
      const up = path.dirname(head);
      if (up === head) return abs;
      rest.push(path.basename(head));
      head = up;
    }
  }
}

const TEMPS = [...new Set(['/tmp', '/var/tmp', '/dev/shm', os.tmpdir()].map((t) => realish(t)))];

export function where(abs: string, root: string): Where {
  if (abs === root) return 'tree';
  if (root !== '/' && abs.startsWith(root + '/')) return 'inside';
  if (TEMPS.some((t) => abs.startsWith(t + '/'))) return 'scratch';
  return 'outside';
}

/** The context of one call: the tree and the home folder, symlinks followed. */
export function placeFor(cwd: string | null | undefined, home = os.homedir()): Place {
  const root = cwd ? realish(path.resolve(cwd)) : '/nonexistent-working-tree';
  return { root, cwd: root, home };
}
