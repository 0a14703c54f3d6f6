// The manual holds together: every relative link (and #anchor) in README.md and docs/*.md resolves,
// every `path:line` citation names a file that long, every backticked repo path exists, README.md
// stays a front page (≤ 300 lines) and no line of the manual runs past 300 characters.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const PAGES = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];

/** Paths the code writes at run time or at build time: named in the manual, absent from a clone. */
const GENERATED = ['client/dist', 'test-output/', '.twa/', '.dispatch/', '.dispatch-demo/'];
/** Names the server serves that are not files of the repository. */
const SERVED = ['assetlinks.json', 'manifest.webmanifest', 'sw.js', 'openapi.json'];
/** Extensions of the repository's own files: a backticked name ending so must exist. */
const SOURCE_EXT = /\.(ts|mts|mjs|cjs|js|sql|json|md|png|html|service|example)$/;
const CITATION = /([\w.-]+(?:\/[\w.-]+)*\.(?:ts|mts|mjs|cjs|js|sql|json|md|yml|yaml|sh)):(\d+)(?![\d.])/g;

interface Page {
  file: string;
  text: string;
  /** The text outside fenced code blocks, line for line (fenced lines blanked). */
  prose: string;
}

function load(file: string): Page {
  const text = fs.readFileSync(path.join(root, file), 'utf8');
  let fenced = false;
  const prose = text
    .split('\n')
    .map((line) => {
      if (/^\s*```/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
  return { file, text, prose };
}

/** GitHub's anchor for a heading: inline markup dropped, lower case, punctuation gone, spaces → '-'. */
export function slug(heading: string): string {
  return heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[`*]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor a page offers: its headings' slugs (numbered when repeated) and explicit ids. */
export function anchorsOf(page: Page): Set<string> {
  const out = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of page.prose.split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (h) {
      const base = slug(h[1]!);
      const n = seen.get(base) ?? 0;
      seen.set(base, n + 1);
      out.add(n === 0 ? base : `${base}-${n}`);
    }
    for (const m of line.matchAll(/\bid="([^"]+)"/g)) out.add(m[1]!);
  }
  return out;
}

/** Links a page makes, `[text](target)` and `![alt](target)`, outside code. */
export function linksOf(page: Page): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  page.prose.split('\n').forEach((line, i) => {
    const bare = line.replace(/`[^`]*`/g, '');
    for (const m of bare.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) out.push({ line: i + 1, target: m[1]! });
  });
  return out;
}

/** What is wrong with one link of a page, or null. */
export function brokenLink(page: Page, target: string, pages: Map<string, Page>): string | null {
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return null; // https:, mailto: — not ours to check
  const [rel, anchor] = target.split('#', 2) as [string, string | undefined];
  const file = rel === '' ? page.file : path.posix.normalize(path.posix.join(path.posix.dirname(page.file), decodeURI(rel)));
  if (file.startsWith('..')) return `${target} leaves the repository`;
  if (!pages.has(file) && !fs.existsSync(path.join(root, file))) return `${target}: no file ${file}`;
  if (anchor === undefined) return null;
  if (!file.endsWith('.md')) return `${target}: an anchor into a file that is not markdown`;
  const into = pages.get(file) ?? load(file);
  return anchorsOf(into).has(anchor) ? null : `${target}: ${file} has no heading or id for #${anchor}`;
}

/** Backticked spans of a page's prose that name a repository path. */
export function repoPathsOf(page: Page): { line: number; ref: string }[] {
  const out: { line: number; ref: string }[] = [];
  const tops = new Set(fs.readdirSync(root).filter((f) => f !== 'node_modules'));
  page.prose.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(/`([^`]+)`/g)) {
      const ref = m[1]!.replace(/:\d+$/, '');
      if (/[\s<>{}*…|\\$~[\]()?&=,;'"]/.test(ref) || ref.startsWith('/') || ref.startsWith('-')) continue;
      const first = ref.split('/')[0]!;
      const pathLike = (ref.includes('/') && tops.has(first)) || SOURCE_EXT.test(ref);
      if (!pathLike || SERVED.includes(ref) || GENERATED.some((g) => ref === g || ref.startsWith(g))) continue;
      out.push({ line: i + 1, ref });
    }
  });
  return out;
}

let tracked: string[] | undefined;
/** The repository's files, committed or not (git-ignored ones aside), repo-relative. */
function repoFiles(): string[] {
  tracked ??= execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean);
  return tracked;
}

/** Whether a backticked path exists: from the root, or as the tail of a path (`store/journal.ts`). */
export function pathExists(ref: string): boolean {
  const clean = ref.replace(/\/$/, '');
  if (fs.existsSync(path.join(root, clean))) return true;
  return repoFiles().some((f) => f === clean || f.endsWith(`/${clean}`));
}

/** `file.ts:123` citations of a page and what is wrong with each (null: fine). */
export function brokenCitations(page: Page): string[] {
  const out: string[] = [];
  page.text.split('\n').forEach((line, i) => {
    for (const m of line.matchAll(CITATION)) {
      const [, file, n] = m as unknown as [string, string, string];
      const abs = path.join(root, file);
      if (!fs.existsSync(abs)) out.push(`${page.file}:${i + 1}: ${file}:${n} — no such file`);
      else if (fs.readFileSync(abs, 'utf8').split('\n').length < Number(n)) out.push(`${page.file}:${i + 1}: ${file}:${n} — the file is shorter`);
    }
  });
  return out;
}

const pages = new Map(PAGES.map((f) => [f, load(f)]));

describe('the manual', () => {
  it('is README.md plus one page per topic under docs/', () => {
    expect(PAGES.length).toBeGreaterThan(5);
    expect(PAGES).toContain('docs/decisions.md');
  });

  it('README.md is at most 300 lines and links every docs page', () => {
    const readme = pages.get('README.md')!;
    expect(readme.text.split('\n').length).toBeLessThanOrEqual(300);
    const linked = new Set(linksOf(readme).map((l) => l.target.split('#')[0]));
    const unlinked = PAGES.filter((p) => p.startsWith('docs/') && !linked.has(p));
    expect(unlinked).toEqual([]);
  });

  it('has no line over 300 characters', () => {
    const long = [...pages.values()].flatMap((p) =>
      p.text.split('\n').flatMap((line, i) => ([...line].length > 300 ? [`${p.file}:${i + 1} (${[...line].length})`] : [])),
    );
    expect(long).toEqual([]);
  });

  it('every relative link resolves, to the file and to the #anchor', () => {
    const broken = [...pages.values()].flatMap((p) =>
      linksOf(p).flatMap(({ line, target }) => {
        const why = brokenLink(p, target, pages);
        return why ? [`${p.file}:${line}: ${why}`] : [];
      }),
    );
    expect(broken).toEqual([]);
  });

  it('every path:line citation names an existing file with at least that many lines', () => {
    expect([...pages.values()].flatMap(brokenCitations)).toEqual([]);
  });

  it('every backticked repository path exists', () => {
    const missing = [...pages.values()].flatMap((p) =>
      repoPathsOf(p).flatMap(({ line, ref }) => (pathExists(ref) ? [] : [`${p.file}:${line}: \`${ref}\``])),
    );
    expect(missing).toEqual([]);
  });
});

/** Plan ids (D-14, FR-007, SC-2, Principle #5) cited in the code, the tests and the manual. */
function citedPlanIds(): Map<string, string> {
  const out = new Map<string, string>();
  const code = repoFiles().filter((f) => /^(bin|core|functions|jobs|sql|client\/src|test)\//.test(f));
  const files = [...code, 'README.md', ...PAGES.filter((p) => p !== 'README.md')];
  for (const f of files.filter((f) => /\.(ts|mjs|sql|md|html)$/.test(f))) {
    const text = fs.readFileSync(path.join(root, f), 'utf8');
    for (const m of text.matchAll(/\b(?:(D|FR|SC)-(\d+)\b|Principle #(\d+))/g)) {
      const id = m[3] ? `principle-${m[3]}` : `${m[1]!.toLowerCase()}-${m[2]}`;
      if (!out.has(id)) out.set(id, f);
    }
  }
  return out;
}

describe('the decisions page', () => {
  it('defines every plan id the code, the tests and the manual cite', () => {
    const defined = anchorsOf(pages.get('docs/decisions.md')!);
    const cited = citedPlanIds();
    expect(cited.size).toBeGreaterThan(10);
    expect([...cited].filter(([id]) => !defined.has(id)).map(([id, f]) => `${id} (cited in ${f})`)).toEqual([]);
  });
});

describe('the checks themselves', () => {
  const page = (file: string, text: string): Page => ({ file, text, prose: text });
  const here = new Map([['docs/a.md', page('docs/a.md', '# A page\n\n## Run `npm start` twice\n\n<a id="d-14"></a>\n')]]);

  it('slugs headings as GitHub does', () => {
    expect(slug('Quota: one account-wide "rate limited until T"')).toBe('quota-one-account-wide-rate-limited-until-t');
    expect(slug('Run `npm start` twice')).toBe('run-npm-start-twice');
    expect(slug('One stdout line, from the worker to the screen')).toBe('one-stdout-line-from-the-worker-to-the-screen');
  });

  it('finds a missing file, a missing anchor, and accepts headings and ids', () => {
    const a = here.get('docs/a.md')!;
    expect(brokenLink(a, '#run-npm-start-twice', here)).toBeNull();
    expect(brokenLink(a, '#d-14', here)).toBeNull();
    expect(brokenLink(a, 'https://example.org/x#y', here)).toBeNull();
    expect(brokenLink(a, '#no-such-heading', here)).toMatch(/no heading or id/);
    expect(brokenLink(a, 'missing.md', here)).toMatch(/no file docs\/missing.md/);
    expect(brokenLink(a, '../README.md#no-such-heading', here)).toMatch(/no heading or id/);
  });

  it('finds a citation past the end of a file and a backticked path that does not exist', () => {
    const lines = fs.readFileSync(path.join(root, 'bin/cli.ts'), 'utf8').split('\n').length;
    expect(brokenCitations(page('x.md', `see bin/cli.ts:${lines} and \`bin/cli.ts:2\``))).toEqual([]);
    expect(brokenCitations(page('x.md', `see bin/cli.ts:${lines + 1}`))).toHaveLength(1);
    expect(brokenCitations(page('x.md', 'see bin/nothing.ts:1'))).toHaveLength(1);
    const refs = repoPathsOf(page('x.md', '`jobs/supervisor.ts` `store/journal.ts` `jobs/nothing.ts` `dispatch.events` `client/dist`'));
    expect(refs.map((r) => [r.ref, pathExists(r.ref)])).toEqual([
      ['jobs/supervisor.ts', true],
      ['store/journal.ts', true],
      ['jobs/nothing.ts', false],
    ]);
  });
});
