// Whether an edit adds a dependency: the dependency names of a manifest before and after the edit.
// With the whole file (read from disk) the sections are known; with only the Edit's fragments the
// same extractors read the old and the new fragment.
import path from 'node:path';

const MANIFESTS = /^(package\.json|requirements[^/]*\.txt|pyproject\.toml|Cargo\.toml|go\.mod|Gemfile)$/;

export function isManifest(file: string): boolean {
  return MANIFESTS.test(path.basename(file));
}

/** Names added from before to after (both the whole file, or both fragments). */
export function addedDependencies(file: string, before: string, after: string, whole: boolean): string[] {
  const names = (t: string) => new Set(extract(path.basename(file), t, whole));
  const old = names(before);
  return [...names(after)].filter((n) => !old.has(n));
}

function extract(base: string, text: string, whole: boolean): string[] {
  if (base === 'package.json') return whole ? packageJson(text) : jsonFragment(text);
  if (base.startsWith('requirements')) return requirements(text);
  if (base === 'go.mod') return [...text.matchAll(/^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]{2,}\/[^\s]+)\s+v[0-9]/gim)].map((m) => m[1]!);
  if (base === 'Gemfile') return [...text.matchAll(/^\s*gem\s+['"]([^'"]+)['"]/gm)].map((m) => m[1]!);
  return toml(text, whole, base === 'Cargo.toml');
}

function packageJson(text: string): string[] {
  try {
    const j = JSON.parse(text) as Record<string, unknown>;
    return ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) =>
      j[k] && typeof j[k] === 'object' ? Object.keys(j[k] as object) : []);
  } catch {
    return jsonFragment(text);
  }
}

/** `"name": "<version-ish>"` pairs, the package's own fields left out. */
function jsonFragment(text: string): string[] {
  const own = new Set(['version', 'name', 'main', 'module', 'types', 'license', 'description', 'node', 'npm', 'type', 'packageManager']);
  return [...text.matchAll(/"([@a-z0-9][\w@./-]*)"\s*:\s*"([~^<>=*]|\d|latest|next|workspace:|npm:|file:|link:|git|github:|https?:)[^"]*"/gi)]
    .map((m) => m[1]!).filter((n) => !own.has(n));
}

function requirements(text: string): string[] {
  return text.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter((l) => l && !l.startsWith('-'))
    .map((l) => l.split(/[\s<>=!~;[@]/)[0]!.toLowerCase()).filter(Boolean);
}

/** Keys in dependency tables, and the quoted requirements of `dependencies = [...]` arrays. */
function toml(text: string, whole: boolean, cargo: boolean): string[] {
  const out: string[] = [];
  let section = whole ? '' : 'dependencies';
  let inArray = !whole && /^\s*"/m.test(text) && !cargo;
  for (const line of text.split('\n')) {
    const head = /^\s*\[([^\]]+)\]\s*$/.exec(line);
    if (head) { section = head[1]!; inArray = false; continue; }
    const inDeps = /(^|\.)(dev-|build-)?dependencies(\.|$)|^dependency-groups|optional-dependencies/.test(section);
    if (/^\s*(dependencies|[\w-]+)\s*=\s*\[/.test(line) && /dependencies|^\s*[\w-]+\s*=/.test(line) && (/dependencies\s*=/.test(line) || inDeps)) inArray = true;
    if (inArray) {
      for (const m of line.matchAll(/["']([A-Za-z0-9][\w.-]*)/g)) out.push(m[1]!.toLowerCase());
      if (line.includes(']')) inArray = false;
      continue;
    }
    const key = /^\s*([A-Za-z0-9][\w.-]*)\s*=/.exec(line);
    if (key && inDeps && key[1] !== 'python') out.push(key[1]!.toLowerCase());
  }
  return out;
}
