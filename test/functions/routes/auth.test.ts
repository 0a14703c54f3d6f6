// Auth: open on loopback by default; otherwise a bearer token, or an Authentik username header that
// is believed only from a trusted proxy address. The stream and /mcp are covered too.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { startupRefusal } from '../../../functions/middleware/auth.ts';
import { readCall } from '../../../core/gates/reading.ts';
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

  it('requires the bearer token on every POST route too, and nothing is written without it', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN });
    const auth = { authorization: `Bearer ${TOKEN}` };
    const [{ n: before } = { n: 0 }] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('token mode posts') as id`;
    const posts: [string, unknown][] = [
      ['/api/projects', { name: 'nope' }],
      ['/api/tasks', { project_id: p!.id, brief: 'nope' }],
      ['/api/messages', { project_id: p!.id, text: 'nope', message_id: '00000000-0000-4000-8000-000000000001' }],
      ['/api/focus', { thread_id: 1 }],
      ['/api/tasks/00000000-0000-4000-8000-000000000000/cancel', {}],
    ];
    for (const [path, body] of posts) {
      for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
        const res = await t.call('POST', path, body, headers);
        expect(res.status, `${path} ${JSON.stringify(headers)}`).toBe(401);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
      }
    }
    const [{ n: after } = { n: 0 }] = await t.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events`;
    expect(after).toBe(before + 1); // only the project this test made from SQL
    // With the token the same request is accepted.
    expect((await t.call('POST', '/api/projects', { name: 'with the token' }, auth)).status).toBe(201);
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

describe('a trusted proxy', () => {
  async function openGate(t: Awaited<ReturnType<typeof startTestApp>>): Promise<string> {
    const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('proxied') as id`;
    const [task] = await t.db.sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'push it') as id`;
    const [s] = await t.db.sql<{ id: string }[]>`
      insert into dispatch.sessions (project_id, task_id, role, attempt) values (${p!.id}, ${task!.id}, 'worker', 1) returning id`;
    const reading = await readCall('Bash', { command: 'git push' }, { cwd: '/tmp' });
    const [a] = await t.db.sql<{ a: { gate_id: string } }[]>`
      select dispatch.gate_check(${s!.id}, 'Bash', '{"command":"git push"}'::jsonb, 'toolu_proxy', '/tmp', ${JSON.stringify(reading)}::text::jsonb) as a`;
    return a!.a.gate_id;
  }

  for (const [mode, env] of [['token mode', { OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN }], ['open mode on loopback', {}]] as const) {
    it(`refuses a request from its address without X-Authentik-Username (401) in ${mode}, and nothing is decided`, async () => {
      const t = await startTestApp({ ...env, TRUSTED_PROXIES: '127.0.0.1' });
      const gate = await openGate(t);
      const { url } = await listen(t);
      const res = await fetch(`${url}/api/gates/${gate}/decision`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ decision: 'approve' }) });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: { code: 'proxy_user_missing', message: 'a request through the trusted proxy must carry X-Authentik-Username' } });
      expect((await fetch(`${url}/api/state`)).status).toBe(401);
      const [g] = await t.db.sql<{ status: string }[]>`select status from dispatch.gates where id = ${gate}`;
      expect(g!.status).toBe('open');
    });
  }

  it('journals the user it names as who decided', async () => {
    const t = await startTestApp({ OPEN_MODE: '0', TRUSTED_PROXIES: '127.0.0.1' });
    const gate = await openGate(t);
    const { url } = await listen(t);
    const res = await fetch(`${url}/api/gates/${gate}/decision`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-authentik-username': 'travis' }, body: JSON.stringify({ decision: 'approve' }) });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'approved', decided_by: 'travis', decided_via: 'http' });
    const [ev] = await t.db.sql<{ payload: Record<string, unknown> }[]>`
      select payload from dispatch.events where event_type = 'gate.decided' and payload->>'gate_id' = ${gate}`;
    expect(ev!.payload).toMatchObject({ by: 'travis' });
  });
});

describe('CORS', () => {
  it('is closed: no Access-Control-Allow-Origin for another origin', async () => {
    const t = await startTestApp();
    const res = await t.call('GET', '/api/state', undefined, { origin: 'https://evil.example' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });
});
