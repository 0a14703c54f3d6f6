// Auth's refusals, beyond the happy path: a token that is almost right, a token in the wrong place,
// and an MCP token that is revoked, expired or used where only the person's token belongs. Each
// refusal would pass unnoticed if the check were loosened, so each is its own assertion.
import { describe, expect, it } from 'vitest';
import { startTestApp } from '../../helpers/app.ts';

const TOKEN = 'a-long-enough-test-token-0123456789';
const MCP_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const MCP_ACCEPT = { accept: 'application/json, text/event-stream' };

async function code(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe('token mode refuses a token that is only nearly right', () => {
  it('a prefix, a longer string, another scheme, no scheme, or the token elsewhere: 401 each', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN });
    const wrong: Record<string, string>[] = [
      { authorization: `Bearer ${TOKEN.slice(0, -1)}` },
      { authorization: `Bearer ${TOKEN}x` },
      { authorization: `Basic ${TOKEN}` },
      { authorization: TOKEN },
      { authorization: 'Bearer ' },
      { 'x-dispatch-token': TOKEN },
      { cookie: `token=${TOKEN}` },
    ];
    for (const headers of wrong) {
      const res = await t.call('GET', '/api/state', undefined, headers);
      expect(res.status, JSON.stringify(headers)).toBe(401);
      expect(await code(res)).toBe('unauthorized');
    }
    // Nor in a query string, where it would land in logs.
    expect((await t.call('GET', `/api/state?token=${TOKEN}`)).status).toBe(401);
    expect((await t.call('GET', `/api/stream?access_token=${TOKEN}`)).status).toBe(401);
    // The control: the exact token is accepted.
    expect((await t.call('GET', '/api/state', undefined, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
  });

  it('an Authentik header from no socket at all (no proxy address) is refused, with the token absent', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN, TRUSTED_PROXIES: '127.0.0.1' });
    const res = await t.call('GET', '/api/state', undefined, { 'x-authentik-username': 'mallory' });
    expect(res.status).toBe(401);
    expect(await code(res)).toBe('untrusted_proxy');
  });
});

describe('MCP tokens', () => {
  async function appWithToken() {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN });
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('mcp refusals') as id`;
    const [tok] = await t.db.sql<{ t: string }[]>`select dispatch.issue_mcp_token(${p!.id}) as t`;
    return { t, token: tok!.t };
  }

  it('a live project token reaches /mcp, but is no key to the person\'s API', async () => {
    const { t, token } = await appWithToken();
    const mcp = await t.call('POST', '/mcp', MCP_LIST, { authorization: `Bearer ${token}`, ...MCP_ACCEPT });
    expect(mcp.status).not.toBe(401);
    const api = await t.call('GET', '/api/state', undefined, { authorization: `Bearer ${token}` });
    expect(api.status).toBe(401);
  });

  it('a revoked token and an expired token are refused at /mcp', async () => {
    const { t, token } = await appWithToken();
    const hash = (await t.db.sql<{ h: string }[]>`select encode(digest(${token}, 'sha256'), 'hex') as h`)[0]!.h;

    await t.db.sql`update dispatch.mcp_tokens set revoked_at = now() where token_sha256 = ${hash}`;
    const revoked = await t.call('POST', '/mcp', MCP_LIST, { authorization: `Bearer ${token}`, ...MCP_ACCEPT });
    expect(revoked.status).toBe(401);
    expect(await code(revoked)).toBe('unauthorized');

    await t.db.sql`update dispatch.mcp_tokens set revoked_at = null, expires_at = now() - interval '1 second'
                    where token_sha256 = ${hash}`;
    const expired = await t.call('POST', '/mcp', MCP_LIST, { authorization: `Bearer ${token}`, ...MCP_ACCEPT });
    expect(expired.status).toBe(401);
    // (A token that was never issued: test/functions/mcp.test.ts "refuses an unknown token".)
  });
});
