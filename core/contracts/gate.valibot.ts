// A gate as the client (and its service worker) reads it.
import * as v from 'valibot';
import { Timestamp, Uuid } from './common.valibot.ts';

export const GATE_STATUSES = ['open', 'approved', 'denied', 'expired'] as const;

export const GateSchema = v.object({
  id: Uuid,
  task_id: v.nullable(Uuid),
  project_id: Uuid,
  session_id: v.nullable(Uuid),
  kind: v.picklist(['tool', 'spawn']),
  category: v.string(),
  rule: v.nullable(v.string()),
  tool: v.string(),
  input: v.record(v.string(), v.unknown()),
  subject: v.nullable(v.string()),
  status: v.picklist(GATE_STATUSES),
  reason: v.string(),
  decision_reason: v.nullable(v.string()),
  decided_by: v.nullable(v.string()),
  decided_via: v.nullable(v.string()),
  created_at: Timestamp,
  decided_at: v.nullable(Timestamp),
  expires_at: v.nullable(Timestamp),
  project_name: v.nullable(v.string()),
  task_brief: v.nullable(v.string()),
});
export type Gate = v.InferOutput<typeof GateSchema>;

export const GateListSchema = v.object({ gates: v.array(GateSchema) });
