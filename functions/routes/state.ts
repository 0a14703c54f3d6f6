// GET /api/state (the glance snapshot) and POST /api/focus (one action switches focus everywhere).
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { ErrorBody } from '../../core/contracts/common.ts';
import { FocusSchema, PostFocus, type Focus } from '../../core/contracts/focus.ts';
import { StateSchema } from '../../core/contracts/state.ts';
import { journalHead } from '../queries/events.ts';
import { FOCUS_COLUMNS, stateSnapshot } from '../queries/state.ts';
import { renderGzip, renderJson, stateText, type StateText } from '../queries/state-text.ts';
import type { Sql } from '../../core/db/client.ts';
import type { JournalHub } from '../stream/hub.ts';

/** Whether an Accept-Encoding header takes gzip (listed with a q above 0, or `*`). */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  let star = false;
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const ok = !q || Number(q.slice(2)) > 0;
    if (name === 'gzip') return ok;
    if (name === '*') star = ok;
  }
  return star;
}

/**
 * The last answer, kept while it is still the answer: the journal head is the seq it reflects (one
 * index lookup per request) and the hub has seen no other change to the state's tables since it
 * was taken (hub.changes, read before the snapshot so a change racing it is never missed). So a
 * client that wrote anything journalled, through any process, reads it back at once.
 */
class KeptState {
  private last: { seq: number; changes: number; text: StateText } | null = null;

  async answer(sql: Sql, hub: JournalHub): Promise<StateText> {
    const changes = hub.changes;
    if (this.last && changes !== null && this.last.changes === changes) {
      if ((await journalHead(sql)) === this.last.seq && hub.changes === changes) return this.last.text;
    }
    const state = await stateSnapshot(sql);
    const text = stateText(state);
    if (changes !== null && (!this.last || state.seq >= this.last.seq)) this.last = { seq: state.seq, changes, text };
    return text;
  }
}

export function stateRoutes() {
  const kept = new KeptState();
  return newRouter()
    .openapi(
      createRoute({
        method: 'get',
        path: '/state',
        responses: { 200: json(StateSchema, 'projects, tasks, sessions, pending messages, working sets, focus, statuses, seq') },
      }),
      async (c) => {
        const { sql, hub } = c.var.deps;
        const text = await kept.answer(sql, hub);
        const now = Date.now();
        if (acceptsGzip(c.req.header('accept-encoding'))) {
          return c.body(renderGzip(text, now) as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/json', 'content-encoding': 'gzip', vary: 'Accept-Encoding' }) as never;
        }
        return c.body(renderJson(text, now) as Uint8Array<ArrayBuffer>, 200, { 'content-type': 'application/json' }) as never;
      },
    )
    .openapi(
      createRoute({
        method: 'post',
        path: '/focus',
        request: { body: { content: { 'application/json': { schema: PostFocus } }, required: true } },
        responses: { 201: json(FocusSchema, 'focus.changed journalled'), 400: json(ErrorBody, 'bad input'), 404: json(ErrorBody, 'unknown task') },
      }),
      async (c) => {
        const { sql } = c.var.deps;
        const b = c.req.valid('json');
        const [r] = await sql<{ id: string }[]>`select dispatch.set_focus(${b.thread_id === undefined ? null : JSON.stringify(b.thread_id)}::text::jsonb, ${b.task_id ?? null}) as id`;
        const [focus] = await sql<Focus[]>`select ${sql.unsafe(FOCUS_COLUMNS)} from dispatch.events where event_id = ${r!.id}`;
        return c.json(focus!, 201);
      },
    );
}
