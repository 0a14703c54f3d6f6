// Journal reads: the envelope columns as the API shows them, and paging in seq order.
import type { EventRow } from '../../core/contracts/event.ts';
import type { Sql } from '../../core/db/client.ts';
import { iso, selectList } from './columns.ts';

export type { EventRow };

/** Select list over `dispatch.events`: the row as GET /api/events and the stream show it. */
export const EVENT_COLUMNS = selectList<EventRow>({
  event_id: 'event_id',
  seq: 'seq',
  project_id: 'project_id',
  session_id: 'session_id',
  task_id: 'task_id',
  parent_id: 'parent_id',
  thread_id: 'thread_id',
  thread_ref: 'thread_ref',
  message_id: 'message_id',
  event_type: 'event_type',
  tier: 'tier',
  payload: 'payload',
  summary: 'summary',
  line_no: 'line_no',
  created_at: iso('created_at'),
});

export interface EventPage {
  after: number;
  limit: number;
  project?: string;
  task?: string;
  session?: string;
}

export async function pageEvents(sql: Sql, q: EventPage): Promise<EventRow[]> {
  return sql<EventRow[]>`
    select ${sql.unsafe(EVENT_COLUMNS)} from dispatch.events
     where seq > ${q.after}
       ${q.project ? sql`and project_id = ${q.project}` : sql``}
       ${q.task ? sql`and task_id = ${q.task}` : sql``}
       ${q.session ? sql`and session_id = ${q.session}` : sql``}
     order by seq limit ${q.limit}`;
}
