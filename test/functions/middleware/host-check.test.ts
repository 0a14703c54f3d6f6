// DNS rebinding and foreign origins: a request naming a host this server is not known by is refused
// (421), and a state-changing request or an /mcp call from a foreign Origin is refused (403) — in
// open mode and in token mode, over a real socket as a browser on a rebinding page would send it.
import http from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../core/config.ts';
import { listen, startTestApp, type TestApp } from '../../helpers/app.ts';

const TOKEN = 'a-long-enough-test-token-0123456789';

/** A raw HTTP request with exactly these headers (fetch will not send a foreign Host). */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const data = body === undefined ? undefined : JSON.stringify(body);
  return new Promise<{ status: number; json: { error?: { code: string } } & Record<string, unknown> }>((resolve, reject) => {
    const u = new URL(url);
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        method,
        path,
        agent: false,
        headers: {
          ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}),
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json = {};
          try {
            json = JSON.parse(text);
          } catch {
            json = { text };
          }
          resolve({ status: res.statusCode ?? 0, json: json as never });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function mcpToken(t: TestApp): Promise<{ projectId: string; token: string }> {
  const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project('mcp host check') as id`;
  const [tok] = await t.db.sql<{ t: string }[]>`select dispatch.issue_mcp_token(${p!.id}, null) as t`;
  return { projectId: p!.id, token: tok!.t };
}

const tasksOf = async (t: TestApp, projectId: string) =>
  Number((await t.db.sql<{ n: string }[]>`select count(*) as n from dispatch.tasks where project_id = ${projectId}`)[0]!.n);

for (const mode of ['open', 'token'] as const) {
  describe(`${mode} mode`, () => {
    let t: TestApp;
    let url: string;
    let port: string;
    let projectId: string;
    let mcp: { projectId: string; token: string };
    const auth: Record<string, string> = mode === 'token' ? { authorization: `Bearer ${TOKEN}` } : {};
    const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };

    beforeAll(async () => {
      t = await startTestApp(mode === 'token' ? { OPEN_MODE: '0', DISPATCH_TOKEN: TOKEN } : {});
      url = (await listen(t)).url;
      port = new URL(url).port;
      projectId = ((await (await t.call('POST', '/api/projects', { name: 'rebinding' }, auth)).json()) as { id: string }).id;
      mcp = await mcpToken(t);
    });

    it('a rebinding request (a foreign Host) is refused with 421 and creates nothing', async () => {
      const evil = { host: `evil.example:${port}`, ...auth };
      const state = await raw(url, 'GET', '/api/state', evil);
      expect(state.status).toBe(421);
      expect(state.json.error?.code).toBe('host_not_allowed');
      const before = await t.db.sql`select count(*)::int as n from dispatch.projects`;
      expect((await raw(url, 'POST', '/api/projects', evil, { name: 'pwned' })).status).toBe(421);
      expect((await raw(url, 'POST', '/api/tasks', evil, { project_id: projectId, brief: 'rm -rf ~' })).status).toBe(421);
      expect((await raw(url, 'POST', '/mcp', { ...evil, authorization: `Bearer ${mcp.token}` }, list)).status).toBe(421);
      expect((await raw(url, 'GET', '/', evil)).status).toBe(421); // not even the client shell
      expect(await t.db.sql`select count(*)::int as n from dispatch.projects`).toEqual(before);
      expect(await tasksOf(t, projectId)).toBe(0);
    });

    it('a foreign Origin on POST /api/tasks is refused with 403 and creates no task', async () => {
      const res = await raw(url, 'POST', '/api/tasks', { origin: 'https://evil.example', ...auth }, { project_id: projectId, brief: 'exfiltrate' });
      expect(res.status).toBe(403);
      expect(res.json.error?.code).toBe('origin_not_allowed');
      expect((await raw(url, 'POST', '/api/tasks', { origin: 'null', ...auth }, { project_id: projectId, brief: 'x' })).status).toBe(403);
      // Another port on loopback is another origin.
      expect((await raw(url, 'POST', '/api/tasks', { origin: 'http://127.0.0.1:1', ...auth }, { project_id: projectId, brief: 'x' })).status).toBe(403);
      expect(await tasksOf(t, projectId)).toBe(0);
    });

    it('a foreign Origin on /mcp is refused with 403, even for a GET', async () => {
      const headers = { origin: 'https://evil.example', authorization: `Bearer ${mcp.token}` };
      const post = await raw(url, 'POST', '/mcp', headers, list);
      expect(post.status).toBe(403);
      expect(post.json.error?.code).toBe('origin_not_allowed');
      expect((await raw(url, 'GET', '/mcp', headers)).status).toBe(403);
    });

    it('the same origin, and no Origin at all (the CLI, the claude MCP client), pass', async () => {
      const same = { origin: url, ...auth };
      const task = await raw(url, 'POST', '/api/tasks', same, { project_id: projectId, brief: 'a real task' });
      expect(task.status).toBe(201);
      expect((await raw(url, 'POST', '/api/tasks', auth, { project_id: projectId, brief: 'from the CLI' })).status).toBe(201);
      expect((await raw(url, 'GET', '/api/state', { ...auth, host: `localhost:${port}` })).status).toBe(200);
      expect((await raw(url, 'GET', '/api/state', { ...auth, host: `pd.localhost:${port}` })).status).toBe(200);
      const tools = await raw(url, 'POST', '/mcp', { authorization: `Bearer ${mcp.token}` }, list);
      expect(tools.status).toBe(200);
      expect((await raw(url, 'POST', '/mcp', { origin: url, authorization: `Bearer ${mcp.token}` }, list)).status).toBe(200);
      // A foreign Origin on a read is not a write: CORS (closed) keeps the answer from the page.
      expect((await raw(url, 'GET', '/api/state', { origin: 'https://evil.example', ...auth })).status).toBe(200);
    });

    it('/healthz answers any Host (liveness probes send an address)', async () => {
      expect((await raw(url, 'GET', '/healthz', { host: '10.1.2.3:7777' })).status).toBe(200);
    });
  });
}

describe('configured names', () => {
  let t: TestApp;
  let url: string;
  beforeAll(async () => {
    t = await startTestApp({
      PUBLIC_URL: 'https://dispatch.example.ts.net',
      TWA_HOST: 'phone.example.org',
      ALLOWED_HOSTS: 'box.lan, *.tail1234.ts.net',
    });
    url = (await listen(t)).url;
  });

  it('PUBLIC_URL, TWA_HOST and ALLOWED_HOSTS (with *.suffix) are answered; their neighbours are not', async () => {
    for (const host of ['dispatch.example.ts.net', 'phone.example.org', 'box.lan:7777', 'laptop.tail1234.ts.net', 'DISPATCH.example.ts.net']) {
      expect((await raw(url, 'GET', '/api/state', { host })).status, host).toBe(200);
    }
    for (const host of ['example.ts.net', 'dispatch.example.ts.net.evil.example', 'tail1234.ts.net', 'box.lan.evil.example']) {
      expect((await raw(url, 'GET', '/api/state', { host })).status, host).toBe(421);
    }
  });

  it('behind a proxy that rewrites Host, an Origin naming PUBLIC_URL passes', async () => {
    const res = await raw(url, 'POST', '/api/projects', { origin: 'https://dispatch.example.ts.net' }, { name: 'via proxy' });
    expect(res.status).toBe(201);
    expect((await raw(url, 'POST', '/api/projects', { origin: 'https://evil.example.ts.net' }, { name: 'x' })).status).toBe(403);
  });

  it('a bad ALLOWED_HOSTS entry stops the start with a message naming it', () => {
    expect(() => loadConfig({ ALLOWED_HOSTS: 'ok.example, http://no/' })).toThrow(/ALLOWED_HOSTS/);
    expect(() => loadConfig({ ALLOWED_HOSTS: '*' })).toThrow(/ALLOWED_HOSTS/);
    expect(loadConfig({ ALLOWED_HOSTS: 'a.example,*.b.example' }).ALLOWED_HOSTS).toEqual(['a.example', '*.b.example']);
  });
});
