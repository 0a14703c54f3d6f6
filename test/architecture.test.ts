// The shape of the codebase, checked: core/ stands alone, functions/ (HTTP) and jobs/ (execution)
// never import each other — only bin/ composes them; no import cycles; the client bundle pulls in
// no zod; and only the substrate adapter (jobs/substrate/) knows Claude Code's flags and lines.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const SERVER = ['bin', 'core', 'functions', 'jobs'];

function filesUnder(dir: string, ext: RegExp): string[] {
  const abs = path.join(root, dir);
  if (!fs.existsSync(abs)) return [];
  return fs.readdirSync(abs, { recursive: true, encoding: 'utf8' })
    .filter((f) => ext.test(f))
    .map((f) => path.join(dir, f));
}

const IMPORT = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module a file imports: repo-relative paths for our files, bare names for packages. */
function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(IMPORT)) {
    const spec = m[1] ?? m[2]!;
    out.push(spec.startsWith('.') ? path.normalize(path.join(path.dirname(file), spec)) : spec);
  }
  return out;
}

function graph(files: string[]): Map<string, string[]> {
  return new Map(files.map((f) => [f, importsOf(f).filter((i) => i.endsWith('.ts'))]));
}

const top = (file: string) => file.split(path.sep)[0]!;

function cycles(g: Map<string, string[]>): string[][] {
  const found: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (f: string) => {
    state.set(f, 'open');
    stack.push(f);
    for (const d of g.get(f) ?? []) {
      if (state.get(d) === 'open') found.push([...stack.slice(stack.indexOf(d)), d]);
      else if (!state.has(d) && g.has(d)) visit(d);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of g.keys()) if (!state.has(f)) visit(f);
  return found;
}

const server = SERVER.flatMap((d) => filesUnder(d, /\.ts$/));
const serverGraph = graph(server);

describe('the layers', () => {
  const crossings = (from: string, to: string[]) =>
    server.filter((f) => top(f) === from).flatMap((f) => serverGraph.get(f)!.filter((i) => to.includes(top(i))).map((i) => `${f} → ${i}`));

  it('core/ imports neither half (nor the entry points)', () => {
    expect(crossings('core', ['functions', 'jobs', 'bin'])).toEqual([]);
  });
  it('functions/ (HTTP) never imports jobs/ (execution), and jobs/ never imports functions/', () => {
    expect(crossings('functions', ['jobs', 'bin'])).toEqual([]);
    expect(crossings('jobs', ['functions', 'bin'])).toEqual([]);
  });
  it('has no import cycles', () => {
    expect(cycles(serverGraph)).toEqual([]);
  });
});

describe('the client bundle', () => {
  it('pulls in no zod: from core/ it reads only the valibot side of the contracts', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const walk = (f: string) => {
      if (seen.has(f)) return;
      seen.add(f);
      for (const i of importsOf(f)) {
        if (i.endsWith('.ts')) walk(i);
        else if (!i.startsWith('.')) packages.add(i.split('/').slice(0, i.startsWith('@') ? 2 : 1).join('/'));
      }
    };
    walk(path.join('client', 'src', 'main.ts'));
    expect([...packages].filter((p) => p.includes('zod'))).toEqual([]);
    const fromCore = [...seen].filter((f) => top(f) === 'core');
    expect(fromCore.length).toBeGreaterThan(0);
    for (const f of fromCore) expect(f).toMatch(/^core\/contracts\/([a-z-]+\.valibot|vocabulary)\.ts$/);
  });
});

describe('Claude Code\'s format', () => {
  // Its flags, its names and the fields of its stdout lines.
  const MARKERS = [
    'stream-json', '--output-format', '--allowedTools', '--permission-mode', '--mcp-config', '--strict-mcp-config', "'--resume'",
    '--max-budget-usd', '--max-turns', '--settings', 'mcp__', 'CLAUDECODE', '@anthropic-ai/claude-code',
    'message.content', 'message?.content', 'api_error_status', 'api_retry', 'total_cost_usd', 'modelUsage',
    'cache_read_input_tokens', 'subtype', "payload->>'result'", "'claude.", 'stream_event',
  ];
  const knowing = [...server, ...filesUnder(path.join('sql', 'functions'), /\.sql$/)].filter((f) => {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    return MARKERS.some((m) => text.includes(m));
  });

  it('is known only to the substrate adapter, in at most four files', () => {
    expect(knowing.filter((f) => !f.startsWith(path.join('jobs', 'substrate') + path.sep))).toEqual([]);
    expect(knowing.length).toBeLessThanOrEqual(4);
  });
});

describe("sql/ outside its migrations, and Claude Code's lines", () => {
  // What the SQL would read of a stdout line: its event types (seeded as event_types rows only), its
  // payload paths and block types, its fields. The substrate adapter writes the neutral facts
  // (summary, usage, quota) that the functions read instead. Migrations keep their history.
  const LINE_SHAPES: [string, RegExp][] = [
    ["a 'claude.…' event type", /'claude\.[\w.]*'/],
    ['the path message,content', /message\s*,\s*content|'message'\s*->>?\s*'content'/],
    ['a content block type', /'(tool_use|tool_result|text_delta|thinking)'/],
    ['a field of its lines', /api_retry|rate_limit_info|rate_limit_event|stream_event|content_block|parent_tool_use_id|total_cost_usd|modelUsage|cache_(read|creation)_input_tokens|'subtype'|'is_error'/],
  ];
  const files = fs.readdirSync(path.join(root, 'sql'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.sql') && !f.startsWith(`migrations${path.sep}`))
    .map((f) => path.join('sql', f));

  it('knows none of them (event types only in seeded event_types rows)', () => {
    expect(files.length).toBeGreaterThan(0);
    const knowing = files.flatMap((f) => {
      const text = fs.readFileSync(path.join(root, f), 'utf8').replace(/insert\s+into\s+dispatch\.event_types\b[\s\S]*?;/gi, '');
      return LINE_SHAPES.filter(([, re]) => re.test(text)).map(([what]) => `${f}: ${what}`);
    });
    expect(knowing).toEqual([]);
  });
});
