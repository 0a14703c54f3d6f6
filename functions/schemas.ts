// HTTP-only contracts: query strings and path parameters. The shapes the API shares with its
// clients (bodies and answers) live in core/contracts, one module per shape.
import { z } from '@hono/zod-openapi';
import { Uuid } from '../core/contracts/common.ts';

export const EventsQuery = z.object({
  after: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
  project: Uuid.optional(),
  task: Uuid.optional(),
  session: Uuid.optional(),
});

export const HandoffsQuery = z.object({
  scope: Uuid,
  limit: z.coerce.number().int().min(1).max(200).default(20),
  order: z.enum(['desc', 'asc']).default('desc'),
});

export const IdParam = z.object({ id: Uuid });

const Instant = z.string().datetime({ offset: true });

export const UsageQuery = z.object({
  project_id: Uuid.optional(),
  since: Instant.optional(),
  until: Instant.optional(),
  group: z.enum(['task', 'day', 'model', 'project', 'role']).default('day'),
});
