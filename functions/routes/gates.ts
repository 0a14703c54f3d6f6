// Gates: the list a person decides from (GET /api/gates), the decision (POST /api/gates/:id/decision,
// once: a second one is 409), and the endpoint a worker's gate hook asks before each tool call
// (POST /hooks/gate, outside /api: it holds a token scoped to its session, never DISPATCH_TOKEN).
import { createHash } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { GateDecision, GateSchema } from '../../core/contracts/gate.ts';
import { AppError } from '../errors.ts';
import { decideGate, dryRunGate, listGates, readForGate } from '../queries/gates.ts';
import { IdParam } from '../schemas.ts';
import { json, newRouter } from './openapi.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id') };

export const GatesQuery = z.object({
  status: z.enum(['open', 'decided', 'all']).default('open'),
  project_id: Uuid.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

/** A call to try against the rules: what the hook would send, for one project. */
export const GateDryRun = z.object({
  project_id: Uuid,
  tool: z.string().min(1).max(200),
  input: z.record(z.string(), z.unknown()),
  cwd: z.string().min(1).max(4096).optional(),
}).superRefine((b, ctx) => {
  // The fields the reading needs, named when missing (the hook's calls always carry them).
  const need = b.tool === 'Bash' ? 'command' : ['Read', 'Write', 'Edit', 'MultiEdit'].includes(b.tool) ? 'file_path'
    : b.tool === 'NotebookEdit' ? 'notebook_path' : null;
  if (need && typeof b.input[need] !== 'string') ctx.addIssue({ code: 'custom', path: ['input', need], message: `a ${b.tool} call needs input.${need} as a string` });
});

export const GateVerdict = z.object({
  decision: z.enum(['pass', 'allow', 'ask', 'deny']),
  category: z.string().optional(),
  rule: z.string().optional(),
  reason: z.string().optional(),
  fact: z.string().optional(),
});

export function gateRoutes() {
  return newRouter()
    .openapi(
      createRoute({
        method: 'post',
        path: '/gates/dry-run',
        request: { body: { content: { 'application/json': { schema: GateDryRun } }, required: true } },
        responses: { 200: json(GateVerdict, 'what the gate would answer; nothing is opened or journalled'), ...errors },
      }),
      async (c) => c.json(await dryRunGate(c.var.deps.sql, c.req.valid('json')), 200),
    )
    .openapi(
      createRoute({
        method: 'get',
        path: '/gates',
        request: { query: GatesQuery },
        responses: { 200: json(z.object({ gates: z.array(GateSchema) }), 'gates, newest first'), ...errors },
      }),
      async (c) => {
        return c.json({ gates: await listGates(c.var.deps.sql, c.req.valid('query')) }, 200);
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/gates/{id}/decision',
        request: { params: IdParam, body: { content: { 'application/json': { schema: GateDecision } }, required: true } },
        responses: {
          200: json(GateSchema, 'the decided gate'),
          409: json(ErrorBody, 'the gate was already decided'),
          ...errors,
        },
      }),
      async (c) => {
        const { id } = c.req.valid('param');
        const b = c.req.valid('json');
        const gate = await decideGate(c.var.deps.sql, { id, decision: b.decision, reason: b.reason, by: c.var.user ?? 'api', via: b.via ?? 'http' });
        return c.json(gate, 200);
      },
    );
}

/** What a gate hook sends: the call, in neutral terms (the hook translates its substrate's). */
export const GateCheck = z.object({
  tool: z.string().min(1).max(200),
  input: z.record(z.string(), z.unknown()).default({}),
  tool_use_id: z.string().max(200).nullable().optional(),
  cwd: z.string().max(4096).nullable().optional(),
});

export function gateHookRoutes() {
  return newRouter().openapi(
    createRoute({
      method: 'post',
      path: '/hooks/gate',
      request: { body: { content: { 'application/json': { schema: GateCheck } }, required: true } },
      responses: {
        200: json(
          z.object({ decision: z.enum(['pass', 'allow', 'deny', 'ask']), reason: z.string().optional(), gate_id: Uuid.optional(), category: z.string().optional(), rule: z.string().optional() }),
          'pass (no rule objects), allow (a person approved this call), deny (with the reason) or ask (a gate is open: defer)',
        ),
        401: json(ErrorBody, 'unknown or expired gate token'),
        400: json(ErrorBody, 'bad input'),
      },
    }),
    async (c) => {
      const { sql } = c.var.deps;
      const token = /^Bearer (pdg_[0-9a-f]{48})$/.exec(c.req.header('authorization') ?? '')?.[1];
      if (!token) throw new AppError(401, 'unauthorized', 'send Authorization: Bearer <gate token>');
      const hash = createHash('sha256').update(token).digest('hex');
      const b = c.req.valid('json');
      // The token's session, where it works and on which branch; then the reading and the decision.
      const [tok] = await sql<{ session_id: string; cwd: string; branch: string | null }[]>`
        select t.session_id, t.cwd,
               (select w.branch from dispatch.sessions s join dispatch.workspaces w on w.task_id = s.task_id
                 where s.id = t.session_id order by w.attempt desc limit 1) as branch
          from dispatch.gate_tokens t where t.token_sha256 = ${hash} and t.expires_at > now()`;
      if (!tok) throw new AppError(401, 'unauthorized', 'unknown or expired gate token');
      const reading = await readForGate(b.tool, b.input, { cwd: tok.cwd, branch: tok.branch });
      const [row] = await sql<{ a: { decision: 'pass' | 'allow' | 'deny' | 'ask'; reason?: string } }[]>`
        select dispatch.gate_check(${tok.session_id}, ${b.tool}, ${JSON.stringify(b.input)}::text::jsonb, ${b.tool_use_id ?? null},
                                   ${tok.cwd}, ${JSON.stringify(reading)}::text::jsonb) as a`;
      return c.json(row!.a, 200);
    },
  );
}
