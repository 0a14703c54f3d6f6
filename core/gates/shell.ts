// The shell parser behind the gates: tree-sitter-bash (the grammar GitHub and most editors use,
// maintained by the tree-sitter org) run as WebAssembly through web-tree-sitter, so no native build.
// It turns a Bash command into the simple commands it runs, in order, each with its words (quotes
// and escapes decoded, expansions marked as not literal), redirections, here-documents and the
// command whose output it reads through a pipe. A command the grammar cannot read is an error,
// never a guess: the gate fails closed on it.
import { createRequire } from 'node:module';
import { Language, Parser, type Node } from 'web-tree-sitter';

/** One word of a command line: its text as the shell would see it when literal. */
export interface Word {
  text: string;
  /** false when an expansion, substitution or arithmetic decides part of it at run time */
  literal: boolean;
  /** variables it expands ($X, ${X…}) */
  vars: string[];
}

export interface Redirect {
  op: string;
  target: Word;
}

export interface SimpleCommand {
  words: Word[];
  assigns: { name: string; value: Word }[];
  redirects: Redirect[];
  /** the here-document or here-string it reads on stdin */
  stdin?: Word;
  /** the command whose output it reads through a pipe */
  pipedFrom?: SimpleCommand;
}

export type Parsed = { ok: true; commands: SimpleCommand[] } | { ok: false; error: string };

let parser: Promise<Parser> | undefined;

/** The parser, loaded once per process (the WASM runtime and the Bash grammar). */
export function shellParser(): Promise<Parser> {
  parser ??= (async () => {
    const require = createRequire(import.meta.url);
    await Parser.init();
    const bash = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const p = new Parser();
    p.setLanguage(bash);
    return p;
  })();
  return parser;
}

/** Parses a command line into its simple commands (nested substitutions included). */
export async function parseShell(src: string): Promise<Parsed> {
  const p = await shellParser();
  const tree = p.parse(src);
  if (!tree) return { ok: false, error: 'the shell parser gave no tree' };
  try {
    const root = tree.rootNode;
    if (root.hasError) return { ok: false, error: describeError(root) };
    const commands: SimpleCommand[] = [];
    walk(root, commands);
    return { ok: true, commands };
  } finally {
    tree.delete();
  }
}

function describeError(root: Node): string {
  const bad = root.descendantsOfType(['ERROR']).find((n): n is Node => !!n) ?? firstMissing(root);
  if (!bad) return 'the command is not valid shell';
  const at = `line ${bad.startPosition.row + 1}, column ${bad.startPosition.column + 1}`;
  return bad.isMissing ? `the command is incomplete at ${at} (missing ${bad.type})` : `the shell cannot read the command at ${at}: ${JSON.stringify(bad.text.slice(0, 40))}`;
}

function firstMissing(n: Node): Node | null {
  if (n.isMissing) return n;
  for (const c of n.children) {
    const m = c && firstMissing(c);
    if (m) return m;
  }
  return null;
}

/** Collects simple commands below n in source order; answers those of n itself (for pipes). */
function walk(n: Node, out: SimpleCommand[]): SimpleCommand[] {
  switch (n.type) {
    case 'command':
      return [command(n, out)];
    case 'redirected_statement': {
      const body = n.childForFieldName('body');
      const mine = body ? walk(body, out) : [];
      const last = mine[mine.length - 1];
      let tail: SimpleCommand[] = [];
      for (const r of n.childrenForFieldName('redirect')) {
        if (!r) continue;
        if (r.type === 'file_redirect' && last) last.redirects.push(redirect(r));
        else if (r.type === 'herestring_redirect' && last) last.stdin = word(r.namedChildren.find((c) => c) ?? null);
        else if (r.type === 'heredoc_redirect') {
          const bodyNode = r.namedChildren.find((c) => c?.type === 'heredoc_body');
          if (last) last.stdin = { text: bodyNode?.text ?? '', literal: true, vars: [] };
          // The rest of a pipeline written after `<<EOF` hangs under the redirect in this grammar.
          for (const c of r.namedChildren) {
            if (!c || c.type === 'heredoc_start' || c.type === 'heredoc_body' || c.type === 'heredoc_end') continue;
            if (c.type === 'file_redirect' && last) { last.redirects.push(redirect(c)); continue; }
            const next = walk(c, out);
            if (c.type === 'pipeline' || c.type === 'command') {
              if (next[0] && last) next[0].pipedFrom ??= last;
              tail = next;
            }
          }
        }
      }
      return tail.length ? tail : mine;
    }
    case 'pipeline': {
      let prev: SimpleCommand[] = [];
      let all: SimpleCommand[] = [];
      for (const c of n.namedChildren) {
        if (!c) continue;
        const stage = walk(c, out);
        const up = prev[prev.length - 1];
        if (stage[0] && up) stage[0].pipedFrom ??= up;
        if (stage.length) prev = stage;
        all = all.concat(stage);
      }
      return all;
    }
    default: {
      let mine: SimpleCommand[] = [];
      for (const c of n.namedChildren) if (c) mine = mine.concat(walk(c, out));
      return mine;
    }
  }
}

function command(n: Node, out: SimpleCommand[]): SimpleCommand {
  const c: SimpleCommand = { words: [], assigns: [], redirects: [] };
  // Substitutions inside run first: collect them before the command itself.
  for (const s of n.descendantsOfType(['command_substitution', 'process_substitution'])) {
    if (s && nearestCommand(s)?.id === n.id) for (const k of s.namedChildren) if (k) walk(k, out);
  }
  for (const k of n.namedChildren) {
    if (!k) continue;
    if (k.type === 'variable_assignment') {
      c.assigns.push({ name: k.childForFieldName('name')?.text ?? '', value: word(k.childForFieldName('value')) });
    } else if (k.type === 'command_name') {
      c.words.push(word(k.namedChildren[0] ?? k));
    } else if (k.type === 'file_redirect') {
      c.redirects.push(redirect(k));
    } else if (k.type === 'herestring_redirect') {
      c.stdin = word(k.namedChildren[0] ?? null);
    } else if (k.type !== 'comment') {
      c.words.push(word(k));
    }
  }
  out.push(c);
  return c;
}

function nearestCommand(n: Node): Node | null {
  for (let p = n.parent; p; p = p.parent) if (p.type === 'command') return p;
  return null;
}

function redirect(r: Node): Redirect {
  const dest = r.childForFieldName('destination') ?? r.namedChildren.filter((c) => c && c.type !== 'file_descriptor').pop() ?? null;
  const op = r.children.find((c) => c && /^[<>&|]+$/.test(c.type))?.type ?? '>';
  return { op, target: word(dest) };
}

/** A word's value: quotes and escapes decoded; expansions leave it not literal. */
export function word(n: Node | null): Word {
  const w: Word = { text: '', literal: true, vars: [] };
  if (n) decode(n, w);
  return w;
}

function decode(n: Node, w: Word): void {
  switch (n.type) {
    case 'word':
    case 'number':
    case 'command_name':
      if (n.namedChildCount) for (const c of n.namedChildren) c && decode(c, w);
      else w.text += n.text.replace(/\\(.)/gs, '$1');
      return;
    case 'raw_string':
      w.text += n.text.slice(1, -1);
      return;
    case 'ansi_c_string':
      w.text += n.text.slice(2, -1).replace(/\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)/g, (_, e: string) =>
        e[0] === 'x' ? String.fromCharCode(parseInt(e.slice(1), 16)) : /^[0-7]/.test(e) ? String.fromCharCode(parseInt(e, 8))
          : ({ n: '\n', t: '\t', r: '\r', e: '\x1b', a: '\x07' } as Record<string, string>)[e] ?? e);
      return;
    case 'string':
      for (const c of n.children) {
        if (!c || c.type === '"') continue;
        if (c.type === 'string_content') w.text += c.text.replace(/\\([$`"\\\n])/g, '$1');
        else decode(c, w);
      }
      return;
    case 'concatenation':
      for (const c of n.children) c && decode(c, w);
      return;
    case 'simple_expansion':
    case 'expansion': {
      const v = n.descendantsOfType(['variable_name', 'special_variable_name'])[0]?.text ?? '';
      if (v) w.vars.push(v);
      if (v === 'HOME' && /^\$\{?HOME\}?$/.test(n.text)) { w.text += '~'; return; }
      w.literal = false;
      w.text += n.text;
      return;
    }
    default:
      // command and process substitutions, arithmetic, brace expressions the grammar splits: as written.
      if (n.type === 'command_substitution' || n.type === 'process_substitution' || n.type === 'arithmetic_expansion') w.literal = false;
      w.text += n.text;
  }
}
