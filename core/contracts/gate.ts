// A gate: a worker's tool call (or an orchestrator's spawn) waiting for a person, and how it was
// decided. GET /api/gates, POST /api/gates/:id/decision, the push notification and the client.
import { z } from '@hono/zod-openapi';
import { Timestamp, Uuid } from './common.ts';

export const GATE_STATUSES = ['open', 'approved', 'denied', 'expired'] as const;
export const GATE_DECISIONS = ['approve', 'deny'] as const;

export const GateSchema = z
  .object({
    id: Uuid,
    task_id: Uuid.nullable(),
    project_id: Uuid,
    session_id: Uuid.nullable(),
    /** tool: a worker's tool call; spawn: a worker the orchestrator asked for. */
    kind: z.enum(['tool', 'spawn']),
    /** One of dispatch.gate_categories (the plan's eight, interactive_spawn, ruled_out_override, unverified). */
    category: z.string(),
    /** The rule that opened it. */
    rule: z.string().nullable(),
    tool: z.string(),
    input: z.record(z.string(), z.unknown()),
    /** What will run: the command, the path or the brief. */
    subject: z.string().nullable(),
    status: z.enum(GATE_STATUSES),
    /** Why it was gated. */
    reason: z.string(),
    /** The person's reason. */
    decision_reason: z.string().nullable(),
    decided_by: z.string().nullable(),
    decided_via: z.string().nullable(),
    created_at: Timestamp,
    decided_at: Timestamp.nullable(),
    expires_at: Timestamp.nullable(),
    project_name: z.string().nullable(),
    task_brief: z.string().nullable(),
  })
  .openapi('Gate');
export type Gate = z.output<typeof GateSchema>;

/** POST /api/gates/:id/decision */
export const GateDecision = z
  .object({
    decision: z.enum(GATE_DECISIONS),
    reason: z.string().max(2000).optional(),
    /** Where the person decided (web, push, …); journalled with the decision. */
    via: z.string().min(1).max(40).regex(/^[a-z][a-z0-9_-]*$/).optional(),
  })
  .openapi('GateDecision');
export type GateDecision = z.output<typeof GateDecision>;
