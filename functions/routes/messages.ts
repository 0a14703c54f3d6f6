// POST /api/messages: a user message is journalled (idempotent on the client's message_id), echoed
// to every client through the store, and waits as pending until an orchestrator turn delivers it.
import { createRoute, z } from '@hono/zod-openapi';
import { json, newRouter } from './openapi.ts';
import { AppError } from '../errors.ts';
import { exists } from '../queries/tasks.ts';
import { ErrorBody } from '../../core/contracts/common.ts';
import { MessageSchema, PostMessage, type Message } from '../../core/contracts/message.ts';
import { MESSAGE_COLUMNS } from '../queries/messages.ts';

export function messageRoutes() {
  return newRouter().openapi(
    createRoute({
      method: 'post',
      path: '/messages',
      request: { body: { content: { 'application/json': { schema: PostMessage } }, required: true } },
      responses: {
        201: json(MessageSchema, 'journalled; pending until the next turn'),
        200: json(MessageSchema, 'this message_id was already journalled'),
        400: json(ErrorBody, 'bad input'),
        404: json(ErrorBody, 'unknown project'),
        409: json(ErrorBody, 'the message_id belongs to another message'),
      },
    }),
    async (c) => {
      const { sql } = c.var.deps;
      const b = c.req.valid('json');
      if (!(await exists(sql, 'projects', b.project_id))) throw new AppError(404, 'not_found', `no project ${b.project_id}`);
      const [r] = await sql<{ event_id: string; seq: number; created: boolean }[]>`
        select * from dispatch.post_user_message(${b.project_id}, ${b.text}, ${b.message_id})`;
      const [m] = await sql<Message[]>`
        select ${sql.unsafe(MESSAGE_COLUMNS)} from dispatch.user_messages where message_id = ${b.message_id}`;
      if (!r!.created && (m!.project_id !== b.project_id || m!.text !== b.text)) {
        throw new AppError(409, 'conflict', `message_id ${b.message_id} was used for another message`);
      }
      return r!.created ? c.json(m!, 201) : c.json(m!, 200);
    },
  );
}
