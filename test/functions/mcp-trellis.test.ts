// The dispatch MCP server's read-only Trellis tools, with the SDK's own client: offered when
// TRELLIS_URL is set, answering with the live thread, the list and the context (string ids kept),
// and "unavailable" — a result, not an error — when Trellis is down.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrellis, type TrellisServer } from '../../fixtures/trellis/server.ts';
import { ORCHESTRATOR_TRELLIS_TOOLS } from '../../jobs/intents.ts';
import { TRELLIS_TOOLS } from '../../functions/mcp-trellis.ts';
import { listen, startTestApp, type TestApp } from '../helpers/app.ts';

let trellis: TrellisServer;
let t: TestApp;
let url: string;
beforeAll(async () => {
  trellis = await startTrellis(
    [
      { id: 'th_garden', title: 'Plan the garden', updated_at: '2026-11-30T07:00:00.000Z', recent_context: [{ role: 'user', text: 'tomatoes first' }] },
      { id: 42, title: 'Numbers', recent_context: [{ role: 'assistant', text: 'forty-two' }] },
    ],
    'th_garden',
  );
  t = await startTestApp({ TRELLIS_URL: trellis.url });
  url = (await listen(t)).url;
});
afterAll(() => trellis.close());

async function client(): Promise<Client> {
  const [p] = await t.db.sql<{ id: string }[]>`select dispatch.create_project(${`trellis mcp ${Math.random()}`}) as id`;
  const [tok] = await t.db.sql<{ t: string }[]>`select dispatch.issue_mcp_token(${p!.id}) as t`;
  const c = new Client({ name: 'test', version: '1.0.0' });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tok!.t}` } } }));
  return c;
}

const parse = (r: unknown) => JSON.parse((r as { content: { text: string }[] }).content[0]!.text) as Record<string, unknown>;

describe('the Trellis MCP tools', () => {
  it('are offered with TRELLIS_URL, by the names the orchestrator is allowed', async () => {
    expect([...TRELLIS_TOOLS]).toEqual(ORCHESTRATOR_TRELLIS_TOOLS);
    const c = await client();
    const names = (await c.listTools()).tools.map((x) => x.name);
    expect(names).toEqual(expect.arrayContaining([...TRELLIS_TOOLS]));
    await c.close();
  });

  it('answer with the live thread, the list and a context, ids as Trellis gives them', async () => {
    trellis.set({ mode: 'ok' });
    const c = await client();
    expect(parse(await c.callTool({ name: 'trellis_live_thread', arguments: {} }))).toEqual({
      available: true,
      live_thread: { id: 'th_garden', title: 'Plan the garden', updated_at: '2026-11-30T07:00:00.000Z' },
    });
    expect(parse(await c.callTool({ name: 'trellis_threads', arguments: {} }))).toMatchObject({ available: true, threads: [{ id: 'th_garden' }, { id: 42 }] });
    expect(parse(await c.callTool({ name: 'trellis_context', arguments: {} }))).toEqual({
      available: true,
      thread_id: 'th_garden',
      recent_context: [{ role: 'user', text: 'tomatoes first' }],
    });
    expect(parse(await c.callTool({ name: 'trellis_context', arguments: { thread_id: 42 } }))).toEqual({
      available: true,
      thread_id: 42,
      recent_context: [{ role: 'assistant', text: 'forty-two' }],
    });
    await c.close();
  });

  it('answer "unavailable" (not an error) when Trellis hangs or fails', async () => {
    const c = await client();
    trellis.set({ mode: 'slow' });
    const slow = await c.callTool({ name: 'trellis_live_thread', arguments: {} });
    expect(slow.isError).toBeFalsy();
    expect(parse(slow)).toEqual({ available: false, status: 'unavailable', reason: 'timed out after 1000 ms' });
    trellis.set({ mode: 'error' });
    expect(parse(await c.callTool({ name: 'trellis_threads', arguments: {} }))).toEqual({ available: false, status: 'unavailable', reason: 'HTTP 500 from /threads' });
    trellis.set({ mode: 'ok' });
    await c.close();
  });

  it('are not offered without TRELLIS_URL', async () => {
    const none = await startTestApp();
    const { url: u, close } = await listen(none);
    const [p] = await none.db.sql<{ id: string }[]>`select dispatch.create_project('no trellis') as id`;
    const [tok] = await none.db.sql<{ t: string }[]>`select dispatch.issue_mcp_token(${p!.id}) as t`;
    const c = new Client({ name: 'test', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${u}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tok!.t}` } } }));
    const names = (await c.listTools()).tools.map((x) => x.name);
    expect(names.filter((n) => n.startsWith('trellis_'))).toEqual([]);
    await c.close();
    await close();
  });
});
