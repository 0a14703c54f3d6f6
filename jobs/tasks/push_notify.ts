// push_notify {event_id}: one push per device whose preferences include the moment — a task
// stalled, failed or finished, an extractor or orchestrator turn stalled, or the orchestrator's loop
// stopped. A subscription the push service
// calls gone (404/410) is removed; a delivery is recorded so a retried job never sends twice.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import type { JobContext } from '../context.ts';
import { ensureVapid, sendPush, type PushMessage, type Subscription } from '../../core/push.ts';

const payload = z.object({ event_id: z.string().uuid() });

interface Row {
  event_type: string;
  project_id: string | null;
  task_id: string | null;
  session_id?: string | null;
  /** The role of the event's session (session.stalled). */
  session_role?: string | null;
  payload: {
    status?: string; reason?: string; stop?: { where: string; why: string }; turn_status?: string; last_message?: string | null; per_day_usd?: number; spent_usd?: number;
    gate_id?: string; tool?: string; subject?: string | null; category?: string; kind?: string; silent_for_ms?: number;
  };
  brief: string | null;
  project_name?: string | null;
}

export function message(e: Row, eventId: string): PushMessage | null {
  if (e.event_type === 'task.status_changed' && e.payload.status) {
    const status = e.payload.status;
    const what = status === 'success' ? 'finished' : status.replace('_', ' ');
    return {
      title: `Task ${what}`,
      body: `${(e.brief ?? '').slice(0, 120)}${e.payload.reason && status !== 'success' ? ` — ${e.payload.reason}` : ''}`,
      tag: `task:${e.task_id}`,
      url: `/#/task/${e.task_id}`,
      task_id: e.task_id,
      status,
    };
  }
  if (e.event_type === 'gate.requested' && e.payload.gate_id) {
    // What will run, where, and why it waits: enough to decide from the lock screen.
    const what = e.payload.kind === 'spawn' ? 'Start a worker' : (e.payload.tool ?? 'Tool call');
    return {
      title: `Approve? ${what}: ${(e.payload.subject ?? '').split('\n')[0]!.slice(0, 80)}`,
      body: [`${e.payload.category ?? 'gate'}: ${e.payload.reason ?? ''}`, e.brief ? `Task: ${e.brief.slice(0, 100)}` : null,
             e.project_name ? `Project: ${e.project_name}` : null].filter(Boolean).join('\n'),
      tag: `gate:${e.payload.gate_id}`,
      url: e.task_id ? `/#/task/${e.task_id}` : '/#/tasks',
      task_id: e.task_id,
      status: 'gate_requested',
      gate_id: e.payload.gate_id,
      actions: [{ action: 'approve', title: 'Approve' }, { action: 'deny', title: 'Deny' }],
    };
  }
  if (e.event_type === 'session.stalled' && e.session_role) {
    // A worker's stall is pushed as its task's status; this is the extractor's or a turn's. Tagged
    // by session: a later stall of the same session replaces the notification instead of stacking.
    const who = e.session_role === 'orchestrator' ? 'Orchestrator turn' : `${e.session_role[0]!.toUpperCase()}${e.session_role.slice(1)}`;
    return {
      title: `${who} stalled`,
      body: [`No output for ${Math.round(Number(e.payload.silent_for_ms ?? 0) / 1000)} s`, e.brief ? `Task: ${e.brief.slice(0, 100)}` : null,
             e.project_name ? `Project: ${e.project_name}` : null].filter(Boolean).join('\n'),
      tag: `session:${e.session_id}`,
      url: e.task_id ? `/#/task/${e.task_id}` : '/#/working-set',
      task_id: e.task_id,
      status: 'stalled',
    };
  }
  if (e.event_type === 'budget.reached') {
    return {
      title: 'Daily budget reached',
      body: `$${Number(e.payload.spent_usd ?? 0).toFixed(2)} of $${Number(e.payload.per_day_usd ?? 0).toFixed(2)} spent today: new workers wait until the budget is raised or the day ends.`,
      tag: `budget:${e.project_id}`,
      url: '/#/tasks',
      task_id: null,
      status: 'budget_reached',
    };
  }
  if (e.event_type === 'orchestrator.working_set' && e.payload.stop) {
    // Said the way Needs you says it (dispatch.loop_finished / loop_asks): done, a question, or a stop.
    const done = (e.payload.turn_status ?? 'success') === 'success' && ['finished', 'orchestrator'].includes(e.payload.stop.where);
    const asks = done && (e.payload.last_message ?? '').trim().endsWith('?');
    return {
      title: asks ? 'The orchestrator asks you' : done ? `Done${e.project_name ? `: ${e.project_name}` : ''}` : 'The orchestrator stopped',
      body: (asks ? (e.payload.last_message ?? '').trim().slice(-200) : done ? 'The work is done: nothing is left to run.' : e.payload.stop.why).slice(0, 200),
      tag: `loop:${e.project_id}:${eventId}`,
      url: '/#/working-set',
      task_id: null,
      status: 'loop_stopped',
    };
  }
  return null;
}

export function pushNotify(ctx: JobContext): Task {
  return async (raw) => {
    const { event_id } = payload.parse(raw);
    const [e] = await ctx.sql<Row[]>`
      select e.event_type, e.project_id, e.task_id, e.session_id, s.role as session_role, e.payload, t.brief, p.name as project_name
        from dispatch.events e left join dispatch.tasks t on t.id = e.task_id
        left join dispatch.projects p on p.id = e.project_id
        left join dispatch.sessions s on s.id = e.session_id where e.event_id = ${event_id}`;
    if (!e) return;
    const msg = message(e, event_id);
    if (!msg) return;
    const vapid = await ensureVapid(ctx.sql);
    const subs = await ctx.sql<Subscription[]>`
      select s.id, s.endpoint, s.p256dh, s.auth from dispatch.push_subscriptions s
       where ${msg.status} = any(s.statuses)
         and not exists (select 1 from dispatch.push_deliveries d where d.subscription_id = s.id and d.event_id = ${event_id})`;
    const failures: string[] = [];
    for (const sub of subs) {
      let status: number;
      try {
        status = await sendPush(vapid, sub, msg);
      } catch (err) {
        failures.push(`${sub.endpoint}: ${(err as Error).message}`);
        continue;
      }
      if (status === 404 || status === 410) {
        await ctx.sql`select dispatch.remove_push_subscription(${sub.id}, ${status})`;
      } else if (status >= 200 && status < 300) {
        await ctx.sql`insert into dispatch.push_deliveries (subscription_id, event_id, status) values (${sub.id}, ${event_id}, ${status})
                      on conflict do nothing`;
        await ctx.sql`update dispatch.push_subscriptions set last_sent_at = now(), failures = 0 where id = ${sub.id}`;
      } else {
        await ctx.sql`update dispatch.push_subscriptions set failures = failures + 1 where id = ${sub.id}`;
        failures.push(`${sub.endpoint}: HTTP ${status}`);
      }
    }
    if (failures.length) throw new Error(`push failed for ${failures.length} device(s): ${failures.join('; ')}`);
  };
}
