// An oversized body is refused with 413 and the connection is closed on purpose (Connection: close),
// so the client's next request goes out on a fresh connection and succeeds; another client's
// requests meanwhile are not affected.
import net from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { listen, startTestApp, type TestApp } from '../../helpers/app.ts';
import { waitFor } from '../../helpers/db.ts';

let t: TestApp;
let url: string;
let projectId: string;
beforeAll(async () => {
  t = await startTestApp();
  url = (await listen(t)).url;
  projectId = ((await (await t.call('POST', '/api/projects', { name: 'big bodies' })).json()) as { id: string }).id;
});

const big = () => JSON.stringify({ project_id: 'x', brief: 'x'.repeat(3 * 1024 * 1024) });

describe('a 3 MB body', () => {
  it('answers 413 with Connection: close, then the same client (fetch, keep-alive) succeeds', async () => {
    const first = await fetch(`${url}/api/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big() });
    expect(first.status).toBe(413);
    expect(first.headers.get('connection')).toBe('close');
    expect(((await first.json()) as { error: { code: string } }).error.code).toBe('payload_too_large');

    const next = await fetch(`${url}/api/tasks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: projectId, brief: 'a normal one' }),
    });
    expect(next.status).toBe(201);
    expect((await fetch(`${url}/api/state`)).status).toBe(200);
  });

  it('several in a row from one client, each followed by a normal request, all answered', async () => {
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${url}/api/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big() });
      expect(res.status).toBe(413);
      await res.arrayBuffer();
      expect((await fetch(`${url}/api/state`)).status).toBe(200);
    }
  });

  it('does not disturb another client holding its own keep-alive connection', async () => {
    // The other client: one raw socket, two requests on it, one sent while the big body is refused.
    const { port } = new URL(url);
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (received += d));
    const get = `GET /api/state HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: keep-alive\r\n\r\n`;
    socket.write(get);
    const big413 = fetch(`${url}/api/tasks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: big() });
    socket.write(get);
    expect((await big413).status).toBe(413);
    await waitFor(() => (received.match(/HTTP\/1\.1 200 OK/g) ?? []).length, (n) => n === 2, { what: 'two answers on the other connection' });
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });
});
