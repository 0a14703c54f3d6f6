// The handoff contract at write time (D-17, D-19): the extractor's prompt is built from the active
// contract rows, and the gate validates the extractor's answer against the same rows.
import { Ajv, type ErrorObject } from 'ajv';
import type { Sql } from '../core/db/client.ts';

export interface ContractField {
  field_key: string;
  required: boolean;
  read_by: string[];
  semantics: string;
  shape: Record<string, unknown>;
}

export async function loadContract(sql: Sql): Promise<ContractField[]> {
  return sql<ContractField[]>`select field_key, required, read_by, semantics, shape from dispatch.contract order by created_at, field_key`;
}

/** The extractor's prompt; the worker's final output goes in verbatim. */
export function extractorPrompt(contract: ContractField[], brief: string, workerOutput: string): string {
  const fields = contract
    .map((f) => `- ${f.field_key}${f.required ? ' (required)' : ''}: ${f.semantics}\n  shape: ${JSON.stringify(f.shape)}`)
    .join('\n');
  return [
    'You are the handoff extractor of petal-dispatch. Read the worker\'s final output below and write its handoff.',
    'Answer with exactly one JSON object and nothing else: bare, or inside a single ```json fenced block.',
    'Use only what the output says; do not invent. List every approach the worker tried or rejected in ruled_out',
    'with its reason (an empty array when there is none).',
    '',
    'Fields:',
    fields,
    '',
    '<task_brief>',
    brief,
    '</task_brief>',
    '',
    '<worker_output>',
    workerOutput,
    '</worker_output>',
  ].join('\n');
}

export interface GateError {
  field: string;
  message: string;
}

export type GateResult = { ok: true; handoff: Record<string, unknown> } | { ok: false; errors: GateError[] };

const ajv = new Ajv({ allErrors: true, strict: false });

/** Parses the extractor's answer (one JSON object, bare or in one fenced json block) and validates it. */
export function validateHandoff(contract: ContractField[], answer: string): GateResult {
  const parsed = parseAnswer(answer);
  if ('error' in parsed) return { ok: false, errors: [{ field: '(answer)', message: parsed.error }] };
  const schema = {
    type: 'object',
    required: contract.filter((f) => f.required).map((f) => f.field_key),
    properties: Object.fromEntries(contract.map((f) => [f.field_key, f.shape])),
    additionalProperties: true,
  };
  const validate = ajv.compile(schema);
  if (validate(parsed.value)) return { ok: true, handoff: parsed.value };
  return { ok: false, errors: (validate.errors ?? []).map(toGateError) };
}

function toGateError(e: ErrorObject): GateError {
  const missing = (e.params as { missingProperty?: string }).missingProperty;
  const field = missing ?? (e.instancePath.replace(/^\//, '').replace(/\//g, '.') || '(root)');
  return { field, message: e.message ?? e.keyword };
}

function parseAnswer(answer: string): { value: Record<string, unknown> } | { error: string } {
  const text = answer.trim();
  let body: string;
  if (text.startsWith('{')) {
    body = text;
  } else {
    const blocks = [...text.matchAll(/```json[^\n]*\n([\s\S]*?)```/g)];
    if (blocks.length === 0) return { error: 'no JSON object: expected a bare object or one ```json block' };
    if (blocks.length > 1) return { error: `expected one \`\`\`json block, found ${blocks.length}` };
    body = blocks[0]![1]!.trim();
  }
  try {
    const value: unknown = JSON.parse(body);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return { error: 'the answer is JSON but not an object' };
    return { value: value as Record<string, unknown> };
  } catch (err) {
    return { error: `the answer is not valid JSON: ${(err as Error).message}` };
  }
}
