// Auth: open on loopback by default; otherwise a bearer token, or an Authentik username header that
// is believed only from a trusted proxy address. The stream and /mcp are covered too.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { startupRefusal } from '../../../functions/middleware/auth.ts';
import { listen, startTestApp } from '../../helpers/app.ts';

const TOKEN = 'a-long-enough-test-token-0123456789';

describe('open mode', () => {
  it('is the default on loopback: no credentials needed', async () => {
    const t = await startTestApp();
    expect((await t.call('GET', '/api/state')).status).toBe(200);
  });

  it('refuses to start open on a non-loopback address without an explicit override', () => {
    expect(startupRefusal(loadConfig({ HOST: '0.0.0.0' }))).toMatch(/nothing can authenticate/);
    expect(startupRefusal(loadConfig({ HOST: '0.0.0.0', OPEN_MODE: '1' }))).toMatch(/refusing to serve 0\.0\.0\.0 in open mode/);
    expect(startupRefusal(loadConfig({ HOST: '0.0.0.0', OPEN_MODE: '1', ALLOW_OPEN_NETWORK: '1' }))).toBeNull();
    expect(startupRefusal(loadConfig({ HOST: '0.0.0.0', DISPATCH_TOKEN: TOKEN }))).toBeNull();
  });
});

describe('token mode', () => {
  it('requires the bearer token on the API and the stream', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN });
    for (const path of ['/api/state', '/api/events', '/api/stream', '/api/openapi.json']) {
      const res = await t.call('GET', path);
      expect(res.status, path).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: 'send Authorization: Bearer <DISPATCH_TOKEN>' } });
    }
    expect((await t.call('GET', '/api/state', undefined, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await t.call('GET', '/api/state', undefined, { authorization: `Bearer ${TOKEN}` })).status).toBe(200);
    expect((await t.call('GET', '/healthz')).status).toBe(200);
  });

  it('refuses /mcp without a project token', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN });
    const res = await t.call('POST', '/mcp', { jsonrpc: '2.0', id: 1, method: 'tools/list' }, { authorization: `Bearer ${TOKEN}` });
    expect(res.status).toBe(401);
  });
});

describe('the Authentik header', () => {
  it('is believed from a trusted proxy address', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', TRUSTED_PROXIES: '127.0.0.1' });
    const { url } = await listen(t);
    const res = await fetch(`${url}/api/state`, { headers: { 'x-authentik-username': 'travis' } });
    expect(res.status).toBe(200);
  });

  it('is refused when forged from an untrusted address', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', TRUSTED_PROXIES: '10.9.8.7', DISPATCH_TOKEN: TOKEN });
    const { url } = await listen(t);
    const res = await fetch(`${url}/api/state`, { headers: { 'x-authentik-username': 'travis' } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: { code: 'untrusted_proxy', message: 'X-Authentik-Username is only accepted from a trusted proxy' } });
  });
});

describe('CORS', () => {
  it('is closed: no Access-Control-Allow-Origin for another origin', async () => {
    const t = await startTestApp();
    const res = await t.call('GET', '/api/state', undefined, { origin: 'https://evil.example' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
