// The read-only Trellis tools of the dispatch MCP server, offered when TRELLIS_URL is set: the live
// thread, the thread list and a thread's recent context. Each answers within Trellis's 1 s budget;
// when Trellis is down the answer is {available: false, status: "unavailable", reason} — a result,
// not an error, so the orchestrator's turn goes on without it.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { readContext, readLiveThread, readThreads, trellisOptions, type Unavailable } from '../core/trellis.ts';
import type { Deps } from './deps.ts';

/** The tool names; an orchestrator's allow-list (jobs/intents.ts) names them too. */
export const TRELLIS_TOOLS = ['trellis_live_thread', 'trellis_threads', 'trellis_context'] as const;

function answer(value: object) {
  const v = (value as { available?: boolean }).available === false ? { ...(value as Unavailable), status: 'unavailable' } : value;
  return { content: [{ type: 'text' as const, text: JSON.stringify(v, null, 2) }] };
}

export function registerTrellisTools(server: McpServer, deps: Deps): void {
  const opts = trellisOptions(deps.config);
  if (!opts.url) return;
  server.registerTool(
    'trellis_live_thread',
    { description: 'The live Trellis thread (id, title, last activity), or null when there is none. Read-only; "unavailable" when Trellis is down.' },
    async () => answer(await readLiveThread(opts)),
  );
  server.registerTool(
    'trellis_threads',
    { description: 'The recent Trellis threads (id, title, last activity), newest as Trellis orders them. Read-only.' },
    async () => answer(await readThreads(opts)),
  );
  server.registerTool(
    'trellis_context',
    {
      description: 'The recent context (latest entries) of a Trellis thread, or of the live thread when thread_id is omitted. Read-only.',
      inputSchema: { thread_id: z.union([z.string().min(1).max(200), z.number().int().nonnegative()]).optional() },
    },
    async ({ thread_id }) => answer(await readContext(opts, thread_id)),
  );
}
