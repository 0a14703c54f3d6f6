// Gates: the list a person decides from (GET /api/gates), the decision (POST /api/gates/:id/decision,
// once: a second one is 409), and the endpoint a worker's gate hook asks before each tool call
// (POST /hooks/gate, outside /api: it holds a token scoped to its session, never DISPATCH_TOKEN).
import { createHash } from 'node:crypto';
import { createRoute, z } from '@hono/zod-openapi';
import { ErrorBody, Uuid } from '../../core/contracts/common.ts';
import { GateDecision, GateSchema } from '../../core/contracts/gate.ts';
import { AppError } from '../errors.ts';
import { decideGate, listGates } from '../queries/gates.ts';
import { IdParam } from '../schemas.ts';
import { json, newRouter } from './openapi.ts';

const errors = { 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown id') };

export const GatesQuery = z.object({
  status: z.enum(['open', 'decided', 'all']).default('open'),
  project_id: Uuid.optional(),
  limit: z.coerce.number().int().min(1).max(500).default(100),
});

export function gateRoutes() {
  return newRouter()
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
      // One round trip: the token's session and the decision.
      const [row] = await sql<{ a: { decision: 'pass' | 'allow' | 'deny' | 'ask'; reason?: string } | null }[]>`
        select dispatch.gate_check(t.session_id, ${b.tool}, ${JSON.stringify(b.input)}::text::jsonb, ${b.tool_use_id ?? null}, t.cwd) as a
          from dispatch.gate_tokens t where t.token_sha256 = ${hash} and t.expires_at > now()`;
      if (!row?.a) throw new AppError(401, 'unauthorized', 'unknown or expired gate token');
      return c.json(row.a, 200);
    },
  );
}
