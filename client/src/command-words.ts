// A command typed on one line, as the argument array the server runs (config.verify.command): words
// split on spaces, a word in '…' or "…" kept whole (so `sh -c "npm test && npm run lint"` is three
// words). Nothing here is a shell: there are no variables, globs or escapes besides \" and \\ in "…".

/** The words of `text`; throws an Error naming the problem when a quote is not closed. */
export function wordsOf(text: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = c === "'" ? text.indexOf("'", i + 1) : closingDouble(text, i + 1);
      if (end < 0) throw new Error(`a ${c === "'" ? 'single' : 'double'} quote is not closed`);
      const inner = text.slice(i + 1, end);
      word = (word ?? '') + (c === '"' ? inner.replace(/\\(["\\])/g, '$1') : inner);
      i = end;
    } else if (/\s/.test(c)) {
      if (word !== null) words.push(word);
      word = null;
    } else {
      word = (word ?? '') + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

function closingDouble(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

/** The line that `wordsOf` reads back as `words` (a word with a space or a quote is quoted). */
export function textOf(words: readonly string[]): string {
  return words.map((w) => (w !== '' && !/[\s'"\\]/.test(w) ? w : `"${w.replace(/(["\\])/g, '\\$1')}"`)).join(' ');
}
