// The project form's check field: a command line read as the argument array the server runs, and
// the array written back as the line the person sees again.
import { describe, expect, it } from 'vitest';
import { textOf, wordsOf } from '../../client/src/command-words.ts';

describe('a check typed on one line', () => {
  it('is its words, quoted words kept whole, and reads back as typed', () => {
    expect(wordsOf('npm test')).toEqual(['npm', 'test']);
    expect(wordsOf('  node   --test  ')).toEqual(['node', '--test']);
    expect(wordsOf(`sh -c "npm test && echo 'ok'"`)).toEqual(['sh', '-c', "npm test && echo 'ok'"]);
    expect(wordsOf(`sh -c 'a "b" c'`)).toEqual(['sh', '-c', 'a "b" c']);
    expect(wordsOf(`printf "say \\"hi\\"" ''`)).toEqual(['printf', 'say "hi"', '']);
    for (const words of [['npm', 'test'], ['sh', '-c', "test -f x || { echo 'no'; exit 3; }"], ['a b', 'c"d', 'e\\f', '']]) {
      expect(wordsOf(textOf(words))).toEqual(words);
    }
    expect(textOf(['sh', '-c', 'npm test && npm run lint'])).toBe('sh -c "npm test && npm run lint"');
  });

  it('is refused when a quote is not closed', () => {
    expect(() => wordsOf('sh -c "npm test')).toThrow('a double quote is not closed');
    expect(() => wordsOf("sh -c 'npm test")).toThrow('a single quote is not closed');
  });
});
