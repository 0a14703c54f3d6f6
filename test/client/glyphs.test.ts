// Every glyph the client draws renders with a plain text font: nothing needs an emoji font (⏳, ⛔
// and the like render as empty boxes without one) or a CJK font (full-width forms such as ＋).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/process.ts';

/** Characters shown as emoji by default, and the full-width forms. */
const NEEDS_SPECIAL_FONT = /\p{Emoji_Presentation}|[\u{FE0F}\u{FF01}-\u{FF60}\u{FFE0}-\u{FFE6}]/u;

function files(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}

describe('the client glyphs', () => {
  it('need no emoji or CJK font: no such character anywhere in the client sources', () => {
    const sources = [...files(path.join(repoRoot, 'client/src')), path.join(repoRoot, 'client/index.html')];
    const found: string[] = [];
    for (const f of sources) {
      fs.readFileSync(f, 'utf8').split('\n').forEach((line, i) => {
        const m = line.match(NEEDS_SPECIAL_FONT);
        if (m) found.push(`${path.relative(repoRoot, f)}:${i + 1}: ${m[0]} (U+${m[0].codePointAt(0)!.toString(16).toUpperCase()})`);
      });
    }
    expect(found).toEqual([]);
    // The check itself catches what the issue saw.
    for (const c of ['⏳', '⛔', '＋', '✅']) expect(c).toMatch(NEEDS_SPECIAL_FONT);
    for (const c of ['⚠', '✓', '✕', '◐', '○', '⊘', '★', '☆', '⚙', '↓', '+']) expect(c).not.toMatch(NEEDS_SPECIAL_FONT);
  });
});
