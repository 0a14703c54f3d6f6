// HTTP-only contracts: query strings and path parameters. The shapes the API shares with its
// clients (bodies and answers) live in core/contracts, one module per shape.
import { z } from '@hono/zod-openapi';
import { Uuid } from '../core/contracts/common.ts';
import { TIERS } from '../core/contracts/vocabulary.ts';

/** A comma-separated list of event types; an entry ending in `*` is a prefix (`claude.*`). */
export const EventTypeList = z
  .string()
  .regex(/^[a-z0-9_.]+\*?(,[a-z0-9_.]+\*?)*$/, 'a comma-separated list of event types (a trailing * is a prefix)')
  .transform((s) => s.split(','));

/** The journal filters GET /api/events and GET /api/stream share. */
export const EventFilterQuery = z.object({
  project: Uuid.optional(),
  task: Uuid.optional(),
  session: Uuid.optional(),
  tier: z.enum(TIERS).optional(),
  /** Only these event types. */
  type: EventTypeList.optional(),
  /** Not these event types (e.g. the partial-token lines a phone does not show). */
  not_type: EventTypeList.optional(),
});

/** A comma-separated list of session roles (roles are data: any name the sessions table holds). */
const RoleList = z
  .string()
  .regex(/^[a-z0-9_.-]+(,[a-z0-9_.-]+)*$/, 'a comma-separated list of session roles')
  .transform((s) => s.split(','));

export const EventsQuery = EventFilterQuery.extend({
  /**
   * Only rows of sessions with one of these roles (e.g. the orchestrator's words in a project's
   * chat, paged back without the workers' output around them). A page filter: the stream has no
   * sessions table at hand for its live rows.
   */
  role: RoleList.optional(),
  after: z.coerce.number().int().min(0).default(0),
  /** Page backwards: the newest `limit` rows below this seq (still answered in seq order). */
  before: z.coerce.number().int().min(1).optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(200),
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
