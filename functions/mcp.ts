// /mcp: the dispatch MCP server (Streamable HTTP, stateless: one server per request). Each caller
// holds a token scoped to one project (and the orchestrator session using it); tools read the
// derived surface and spawn workers — refusing an approach a prior handoff ruled out (FR-011,
// enforced here in code rather than by model goodwill).
import { createHash } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { z } from 'zod';
import type { AppEnv, Deps } from './deps.ts';
import { AppError } from './errors.ts';
import { registerTrellisTools } from './mcp-trellis.ts';

export interface McpScope {
  projectId: string;
  sessionId: string | null;
}

async function scopeOf(deps: Deps, header: string | undefined): Promise<McpScope> {
  const token = /^Bearer (pdm_[0-9a-f]{48})$/.exec(header ?? '')?.[1];
  if (!token) throw new AppError(401, 'unauthorized', 'send Authorization: Bearer <project MCP token>');
  const hash = createHash('sha256').update(token).digest('hex');
  const [row] = await deps.sql<{ project_id: string; session_id: string | null }[]>`
    select project_id, session_id from dispatch.mcp_tokens
     where token_sha256 = ${hash} and revoked_at is null and expires_at > now()`;
  if (!row) throw new AppError(401, 'unauthorized', 'unknown, revoked or expired MCP token');
  return { projectId: row.project_id, sessionId: row.session_id };
}

const text = (value: unknown, isError = false) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(value, null, 2) }],
  ...(isError ? { isError: true } : {}),
});

interface RuledOut {
  ruled_out_approach: string;
  reason: string;
  handoff_id: string;
  task_id: string;
  similarity: number;
}

export function buildMcpServer(deps: Deps, scope: McpScope): McpServer {
  const { sql, config } = deps;
  const server = new McpServer({ name: 'dispatch', version: '1.0.0' });
  const ruledOut = (approach: string) =>
    sql<RuledOut[]>`select * from dispatch.check_ruled_out(${scope.projectId}, ${approach}, ${config.RULED_OUT_SIMILARITY})`;

  server.registerTool(
    'get_handoffs',
    {
      description: 'Validated handoffs of this project, or of one of its tasks or sessions (scope_id). Newest first by default.',
      inputSchema: {
        scope_id: z.string().uuid().optional(),
        limit: z.number().int().min(1).max(50).optional(),
        order: z.enum(['desc', 'asc']).optional(),
      },
    },
    async ({ scope_id, limit, order }) => {
      const scopeId = scope_id ?? scope.projectId;
      const [inProject] = await sql`
        select 1 as one where ${scopeId}::uuid = ${scope.projectId}::uuid
           or exists (select 1 from dispatch.tasks where id = ${scopeId} and project_id = ${scope.projectId})
           or exists (select 1 from dispatch.sessions where id = ${scopeId} and project_id = ${scope.projectId})`;
      if (!inProject) return text({ error: `scope ${scopeId} is not in this project` }, true);
      const rows = await sql`select * from dispatch.get_handoffs(${scopeId}, ${limit ?? 10}, ${(order ?? 'desc') === 'desc'})`;
      return text({ handoffs: rows.map((r) => ({ handoff_id: r.event_id, task_id: r.task_id, seq: r.seq, ...r.payload })) });
    },
  );

  server.registerTool(
    'get_project_state',
    { description: 'A bounded rollup of this project: tasks done / in flight / failed / blocked, latest handoffs, open rule-outs.' },
    async () => {
      const [row] = await sql<{ s: unknown }[]>`select dispatch.project_state(${scope.projectId}) as s`;
      return text(row!.s);
    },
  );

  server.registerTool(
    'check_ruled_out',
    {
      description: 'Whether an approach was ruled out by a prior handoff of this project (exact or close paraphrase).',
      inputSchema: { approach: z.string().min(1).max(2000) },
    },
    async ({ approach }) => {
      const rows = await ruledOut(approach);
      return text({ ruled_out: rows.length > 0, matches: rows });
    },
  );

  server.registerTool(
    'spawn_worker',
    {
      description:
        'Start a one-shot worker on a brief with a named approach. Refused when a prior handoff ruled the approach out; ' +
        'with override_reason the spawn waits for a person to approve the override (a gate). In interactive mode every ' +
        'spawn waits for the person.',
      inputSchema: {
        brief: z.string().min(1).max(100_000),
        approach: z.string().min(1).max(2000),
        plan_ref: z.string().min(1).max(200).optional(),
        depends_on: z.array(z.string().uuid()).max(100).optional()
          .describe('ids of tasks of this project the worker waits for: it starts when all of them ended success'),
        override_reason: z.string().min(1).max(2000).optional(),
      },
    },
    async ({ brief, approach, plan_ref, depends_on, override_reason }) => {
      const matches = await ruledOut(approach);
      const ruled = matches.map((m) => ({ approach: m.ruled_out_approach, reason: m.reason, handoff_id: m.handoff_id, similarity: m.similarity }));
      if (matches.length && !override_reason) {
        await sql`select dispatch.refuse_spawn(${scope.projectId}, ${scope.sessionId}, ${approach}, ${brief}, ${JSON.stringify(matches)}::text::jsonb)`;
        return text({ refused: true, reason: 'a prior handoff ruled this approach out', ruled_out: ruled }, true);
      }
      const [p] = await sql<{ mode: string | null }[]>`select config->>'mode' as mode from dispatch.projects where id = ${scope.projectId}`;
      // A rule-out is never lifted by the model alone (SC-8), and in interactive mode the person
      // approves each worker: both become a gate the person decides.
      if (matches.length || p?.mode === 'interactive') {
        const [category, reason, details] = matches.length
          ? ['ruled_out_override', `a prior handoff ruled this approach out; the orchestrator asks to override: ${override_reason}`,
             { override_reason, ruled_out: ruled }]
          : ['interactive_spawn', 'interactive mode: the person approves each worker', {}];
        const g = await sql.begin(async (tx) => {
          if (matches.length) {
            await tx`select dispatch.override_spawn(${scope.projectId}, ${scope.sessionId}, ${approach}, ${override_reason!},
                                                    ${JSON.stringify(matches)}::text::jsonb)`;
          }
          const [r] = await tx<{ g: { task_id: string; gate_id: string } }[]>`
            select dispatch.gate_spawn(${scope.projectId}, ${scope.sessionId}, ${brief}, ${approach}, ${plan_ref ?? null},
                                       ${category}, ${reason}, ${JSON.stringify(details)}::text::jsonb) as g`;
          return r!.g;
        });
        return text({
          spawned: false, gated: true, task_id: g.task_id, gate_id: g.gate_id, approach,
          reason: `${reason}. The task waits for the person's decision; its outcome comes back at a later turn.`,
          ...(matches.length ? { ruled_out: ruled } : {}),
        });
      }
      let t: { id: string } | undefined;
      try {
        [t] = await sql<{ id: string }[]>`
          select dispatch.submit_task(${scope.projectId}, ${brief}, ${approach}, null, ${plan_ref ?? null}, ${scope.sessionId},
                                      ${depends_on?.length ? depends_on : null}::uuid[]) as id`;
      } catch (e) {
        // Unknown ids, another project's, a cycle: the model is told which, as a person would be.
        if ((e as { code?: string }).code !== 'PD400') throw e;
        return text({ spawned: false, refused: true, code: 'invalid_dependency', reason: (e as Error).message }, true);
      }
      return text({ spawned: true, task_id: t!.id, approach, ...(depends_on?.length ? { waits_for: depends_on } : {}) });
    },
  );
  registerTrellisTools(server, deps);
  return server;
}

export function mcpRoutes() {
  return new Hono<AppEnv>().all('/mcp', async (c) => {
    const deps = c.var.deps;
    const scope = await scopeOf(deps, c.req.header('authorization'));
    const server = buildMcpServer(deps, scope);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      void server.close();
    }
  });
}
