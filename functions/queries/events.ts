// Journal reads: the envelope columns as the API shows them, and paging in seq order.
import type { Sql } from '../../core/db/client.ts';

export interface EventRow {
  event_id: string;
  seq: number;
  project_id: string | null;
  session_id: string | null;
  task_id: string | null;
  parent_id: string | null;
  thread_id: number | null;
  message_id: string | null;
  event_type: string;
  tier: 'raw' | 'derived';
  payload: unknown;
  line_no: number | null;
  created_at: Date;
}

export const EVENT_COLUMNS =
  'event_id, seq, project_id, session_id, task_id, parent_id, thread_id, message_id, event_type, tier, payload, line_no, created_at';

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
