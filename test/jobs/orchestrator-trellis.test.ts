// Trellis for the orchestrator, with the real CLI and the scripted model: the turn prompt names the
// live thread (string id), the orchestrator reads its context through mcp__dispatch__trellis_context
// and the answer is in the journal; with Trellis down the tool answers "unavailable" and the turn
// still ends well.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTrellis, type TrellisServer } from '../../fixtures/trellis/server.ts';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const say = (text: string) => ({ text, chunks: 1, delay_ms: 0 });
const scenario: Scenario = {
  name: 'trellis-orchestrator',
  description: 'the orchestrator reads Trellis through the dispatch MCP server',
  conversations: [
    {
      // Matches only when the prompt names the live thread by its title and string id.
      match: 'Live Trellis thread: "Plan the garden" (id "th_garden")',
      steps: [{ tool_use: { name: 'mcp__dispatch__trellis_context', input: {} } }, say('The garden thread wants tomatoes first.')],
    },
    {
      match: 'Trellis is unavailable',
      steps: [{ tool_use: { name: 'mcp__dispatch__trellis_live_thread', input: {} } }, say('Trellis is down; carrying on without it.')],
    },
  ],
};

let trellis: TrellisServer;
let loop: Loop;
beforeAll(async () => {
  trellis = await startTrellis(
    [
      { id: 'th_garden', title: 'Plan the garden', recent_context: [{ role: 'user', text: 'tomatoes before beans this year' }] },
      { id: 42, title: 'Numbers thread' },
    ],
    'th_garden',
  );
  loop = await startLoop({ scenarios: [scenario], serve: true, env: { TRELLIS_URL: trellis.url }, serveEnv: { TRELLIS_URL: trellis.url } });
});
afterAll(() => trellis.close());

async function turn(projectName: string): Promise<{ status: string; results: string[]; turnResult: string }> {
  const projectId = await loop.project(projectName);
  const res = await fetch(`${loop.url}/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ project_id: projectId, text: 'What does Trellis say?', message_id: randomUUID() }),
  });
  expect(res.status).toBe(201);
  const session = await waitFor(
    async () => (await loop.db.sql<{ id: string; status: string }[]>`
      select id, status from dispatch.sessions where project_id = ${projectId} and role = 'orchestrator' and ended_at is not null`)[0],
    Boolean,
    { timeout: 60_000, what: `the orchestrator turn of ${projectName}` },
  );
  const rows = await loop.db.sql<{ event_type: string; payload: { message?: { content?: { content?: unknown }[] }; result?: string } }[]>`
    select event_type, payload from dispatch.events where session_id = ${session!.id}
       and event_type in ('claude.tool_result', 'claude.result') order by seq`;
  return {
    status: session!.status,
    results: rows.filter((r) => r.event_type === 'claude.tool_result').map((r) => JSON.stringify(r.payload.message?.content?.[0]?.content)),
    turnResult: rows.find((r) => r.event_type === 'claude.result')?.payload.result ?? '',
  };
}

describe('Trellis for the orchestrator (real CLI)', () => {
  it('the prompt names the live thread and trellis_context answers with its recent context, journalled', async () => {
    const t = await turn('garden');
    expect(t.results).toHaveLength(1);
    expect(t.results[0]).toContain('tomatoes before beans this year');
    expect(t.results[0]).toContain('th_garden');
    expect(t).toMatchObject({ status: 'success', turnResult: 'The garden thread wants tomatoes first.' });
  });

  it('with Trellis down the tool answers unavailable and the turn goes on', async () => {
    await trellis.close();
    const t = await turn('garden without trellis');
    expect(t.results).toHaveLength(1);
    expect(t.results[0]).toContain('unavailable');
    expect(t.results[0]).toContain('ECONNREFUSED');
    expect(t).toMatchObject({ status: 'success', turnResult: 'Trellis is down; carrying on without it.' });
  });
});
