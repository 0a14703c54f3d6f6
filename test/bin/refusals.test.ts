// Start-up refusals as a person meets them: the process itself exits, non-zero, saying why, before it
// opens a database or a port.
import { describe, expect, it } from 'vitest';
import { cleanEnv, startEntry } from '../helpers/process.ts';

const TOKEN = 'a-long-enough-test-token-0123456789';

describe('bin/main.ts refuses to start', () => {
  it.each([
    ['open on 0.0.0.0 with no way to authenticate', { HOST: '0.0.0.0' }, /nothing can authenticate/],
    ['open mode on 0.0.0.0 without ALLOW_OPEN_NETWORK', { HOST: '0.0.0.0', OPEN_MODE: '1' }, /refusing to serve 0\.0\.0\.0 in open mode/],
    ['an unknown mode', {}, /unknown mode/, ['serve-everything']],
    ['a bad config value', { PORT: 'seventy' }, /PORT/],
  ] as const)('%s: exit 2 with the reason', async (_what, env, reason, args: readonly string[] = []) => {
    // DATABASE_URL points nowhere: a refusal must come before any connection attempt.
    const p = startEntry('bin/main.ts', cleanEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', ...env }), [...args]);
    const { code } = await p.exited;
    expect({ code, output: p.output() }).toEqual({ code: 2, output: expect.stringMatching(reason) });
  });

  it('starts with a token on 0.0.0.0 (the refusal is only for open mode): it gets as far as the database', async () => {
    const p = startEntry('bin/main.ts', cleanEnv({ DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', HOST: '0.0.0.0', DISPATCH_TOKEN: TOKEN }));
    const { code } = await p.exited;
    expect(code).not.toBe(0);
    expect(p.output()).not.toMatch(/nothing can authenticate|refusing to serve/);
    expect(p.output()).toMatch(/ECONNREFUSED|connect|database/i);
  });
});
