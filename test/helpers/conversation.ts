// A long orchestrator conversation for chat tests and the bench: `turns` times, a message from the
// person ("note i: …"), its delivery to a turn of the orchestrator (a session of its own) and the
// orchestrator's reply ("reply i: …"), every fifth turn with a tool call of the orchestrator that
// the chat does not show, and between turns the output of a worker the chat leaves out. Texts
// vary in length, so bubbles vary in height. Inserted with generate_series in a few statements.
import type { Sql } from '../../core/db/client.ts';

export interface Conversation {
  project: string;
  turns: number;
  /** Journal rows written in all (messages, deliveries, replies, tool calls, worker output). */
  rows: number;
}

export async function fillConversation(sql: Sql, name: string, turns = 3000, workerRowsPerTurn = 4): Promise<Conversation> {
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${name}) as id`;
  const project = p!.id;
  const [task] = await sql<{ id: string }[]>`
    insert into dispatch.tasks (project_id, brief, status, started_at, ended_at)
    values (${project}, 'keep the module tests green', 'success', now() - interval '30 days', now()) returning id`;
  const [worker] = await sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, task_id, role, status) values (${project}, ${task!.id}, 'worker', 'success') returning id`;
  // One orchestrator session per turn, turn i created i minutes after the first: its order is the turns' order.
  const sessions = (
    await sql<{ id: string }[]>`
      with s as (
        insert into dispatch.sessions (project_id, role, status, created_at, started_at, ended_at)
        select ${project}, 'orchestrator', 'success', t, t, t + interval '20 seconds'
          from (select now() - interval '30 days' + g * interval '1 minute' as t from generate_series(0, ${turns - 1}) g) x
        returning id, created_at)
      select id from s order by created_at`
  ).map((r) => r.id);
  await sql`
    insert into dispatch.events (project_id, session_id, task_id, message_id, event_type, payload)
    select ${project}, case when k in (2, 3, 4) then (${sessions}::uuid[])[g + 1] when k >= 5 then ${worker!.id}::uuid end,
           case when k >= 5 then ${task!.id}::uuid end,
           case when k <= 2 then md5('message ' || g)::uuid end,
           case k when 1 then 'user_message' when 2 then 'user_message.delivered' else 'claude.assistant' end,
           case
             when k = 1 then jsonb_build_object('text', 'note ' || g || ': ' || repeat('please look at this too. ', g % 13))
             when k = 2 then jsonb_build_object('session_id', (${sessions}::uuid[])[g + 1])
             when k = 3 then jsonb_build_object('type', 'assistant', 'message', jsonb_build_object('role', 'assistant',
               'content', jsonb_build_array(jsonb_build_object('type', 'text',
                 'text', 'reply ' || g || ': ' || repeat('I read the handoffs and will start a worker. ', (g * 7) % 11)))))
             when k = 4 then jsonb_build_object('type', 'assistant', 'message', jsonb_build_object('role', 'assistant',
               'content', jsonb_build_array(jsonb_build_object('type', 'tool_use', 'id', 'toolu_' || g, 'name', 'mcp__dispatch__get_project_state', 'input', '{}'::jsonb))))
             else jsonb_build_object('type', 'assistant', 'message', jsonb_build_object('role', 'assistant',
               'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'worker step ' || g || '.' || k))))
           end
      from generate_series(0, ${turns - 1}) g
     cross join generate_series(1, ${4 + workerRowsPerTurn}) k
     where k <> 4 or g % 5 = 0
     order by g, k`;
  await sql`
    insert into dispatch.user_messages (message_id, project_id, event_id, seq, text, delivered_at, delivered_to)
    select e.message_id, e.project_id, e.event_id, e.seq, e.payload->>'text', e.created_at, d.session_id
      from dispatch.events e join dispatch.events d on d.message_id = e.message_id and d.event_type = 'user_message.delivered'
     where e.project_id = ${project} and e.event_type = 'user_message'`;
  await sql`analyze dispatch.events`;
  const [n] = await sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where project_id = ${project}`;
  return { project, turns, rows: n!.n };
}
