// User message reads: the message as the API shows it, from the user_messages cache.
import type { Message } from '../../core/contracts/message.ts';
import { iso, selectList } from './columns.ts';

/** Select list over `dispatch.user_messages`. */
export const MESSAGE_COLUMNS = selectList<Message>({
  id: 'event_id',
  message_id: 'message_id',
  project_id: 'project_id',
  text: 'text',
  seq: 'seq',
  status: `case when delivered_at is null then 'pending' else 'delivered' end`,
  created_at: iso('created_at'),
});
