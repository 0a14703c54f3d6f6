// orchestrator_turn {project_id}: one turn of the project's orchestrator — one substrate run that
// resumes the project's conversation, loads the dispatch MCP server scoped to the project, and is
// given (verbatim) the pending messages, new handoffs and not-clean statuses. Turn boundary = exit.
// One turn at a time per project (a named queue); afterwards the working set is journalled.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { parseProjectConfig } from '../../core/contracts/project-config.ts';
import type { WorkingSet } from '../../core/contracts/working-set.ts';
import type { JobContext } from '../context.ts';
import { orchestratorIntent, projectCwd } from '../intents.ts';
import { orchestratorPrompt, turnInputSchema, type BudgetState, type TrellisAtTurn, type TurnInput } from '../orchestrator-prompt.ts';
import { readLiveThread, trellisOptions } from '../../core/trellis.ts';
import { superviseSession, type Outcome } from '../supervisor.ts';

const payload = z.object({ project_id: z.string().uuid() });

interface ProjectRow {
  id: string;
  name: string;
  config: unknown;
}

export function orchestratorTurn(ctx: JobContext): Task {
  return async (raw, helpers) => {
    const { project_id } = payload.parse(raw);
    const [project] = await ctx.sql<ProjectRow[]>`select id, name, config from dispatch.projects where id = ${project_id}`;
    if (!project) return;
    const pc = parseProjectConfig(project.config);
    const mode = pc.mode ?? 'autonomous';

    // A turn claimed earlier whose runner went away is finished first (started → adopt, else start).
    const [open] = await ctx.sql<{ id: string; pid: number | null; host: string | null; spool_path: string | null; started_at: Date | null; stalled: boolean }[]>`
      select id, pid, host, spool_path, started_at, stalled from dispatch.sessions
       where project_id = ${project_id} and role = 'orchestrator' and ended_at is null order by created_at desc limit 1`;
    let input: TurnInput;
    if (open) {
      const [ev] = await ctx.sql<{ payload: unknown }[]>`
        select payload from dispatch.events where session_id = ${open.id} and event_type = 'orchestrator.turn_input' limit 1`;
      input = turnInputSchema.parse(ev!.payload);
    } else {
      const [claim] = await ctx.sql<{ input: unknown }[]>`select dispatch.claim_orchestrator_turn(${project_id}) as input`;
      if (!claim?.input) return; // nothing new since the last turn
      input = turnInputSchema.parse(claim.input);
    }
    const sessionId = input.session_id;
    const spec = { sessionId, projectId: project_id, taskId: null, role: 'orchestrator' };

    const [cause] = await ctx.sql<{ event_id: string }[]>`
      select event_id from dispatch.events where session_id = ${sessionId} and event_type = 'orchestrator.turn_input' limit 1`;
    let trellis: TrellisAtTurn | undefined;
    const outcome = await superviseSession(ctx, { ...spec, causeEventId: cause?.event_id ?? null }, open, async () => {
      const [tok] = await ctx.sql<{ t: string }[]>`select dispatch.issue_mcp_token(${project_id}, ${sessionId}) as t`;
      // The live thread, named in the prompt; Trellis down costs the turn at most its 1 s budget.
      const topts = trellisOptions(ctx.config);
      if (topts.url) trellis = await readLiveThread(topts);
      const [budget] = await ctx.sql<{ b: BudgetState }[]>`select dispatch.budget_state(${project_id}) as b`;
      const turn = {
        prompt: orchestratorPrompt(project.name, mode, input, trellis, budget?.b),
        resume: input.resume,
        mcpUrl: ctx.mcpUrl,
        mcpToken: tok!.t,
        trellis: Boolean(topts.url),
      };
      return orchestratorIntent(turn, pc, projectCwd(ctx.dataDir, project_id, pc));
    }, helpers.abortSignal);
    await ctx.sql`update dispatch.mcp_tokens set revoked_at = now() where session_id = ${sessionId} and revoked_at is null`;
    await journalWorkingSet(ctx, project_id, mode, input, outcome, trellis);
    await ctx.sql`select dispatch.wake_if_waiting(${project_id})`; // messages that came in during the turn
  };
}

/** The orchestrator's working set after a turn (FR-006), derived from the journal. */
async function journalWorkingSet(ctx: JobContext, projectId: string, mode: string, input: TurnInput, outcome: Outcome, trellis?: TrellisAtTurn): Promise<void> {
  const sessionId = input.session_id;
  const inFlight = await ctx.sql<{ task_id: string; status: string; attempt: number; brief: string; approach: string | null }[]>`
    select id as task_id, status, attempt, left(brief, 200) as brief, approach from dispatch.tasks
     where project_id = ${projectId} and ended_at is null order by created_at`;
  const spawned = await ctx.sql<{ id: string }[]>`select id from dispatch.tasks where spawned_by_session = ${sessionId} order by created_at`;
  const refused = await ctx.sql<{ approach: string }[]>`
    select payload->>'approach' as approach from dispatch.events where session_id = ${sessionId} and event_type = 'spawn.refused' order by seq`;
  const backingOff = await ctx.sql<{ id: string; status_reason: string }[]>`
    select id, status_reason from dispatch.tasks where project_id = ${projectId} and ended_at is null and status = 'queued' and attempt > 1`;
  const needsUser = await ctx.sql<{ id: string; status: string; status_reason: string | null }[]>`
    select t.id, t.status, t.status_reason from dispatch.tasks t join dispatch.statuses s on s.name = t.status
     where t.project_id = ${projectId} and s.needs_user order by t.ended_at desc limit 5`;
  const lastMessage = outcome.facts.resultText ?? null;

  // Where and why the loop stopped, when it did (SC-4's note): a diagnosable stop, not a silence.
  let stop: { where: string; why: string } | null = null;
  if (outcome.status !== 'success') {
    stop = { where: 'orchestrator', why: `the orchestrator turn ended ${outcome.status}: ${outcome.reason}` };
  } else if (backingOff.length) {
    stop = { where: 'rate_limit', why: `backing off: ${backingOff.map((t) => t.status_reason).join('; ')}` };
  } else if (inFlight.length === 0) {
    if (refused.length && spawned.length === 0) stop = { where: 'spawn_refused', why: `spawn refused for: ${refused.map((r) => r.approach).join('; ')}` };
    else if (needsUser.length && input.not_clean.some((n) => n.status === 'extraction_failed'))
      stop = { where: 'extractor', why: `extraction failed: ${needsUser[0]!.status_reason ?? ''}` };
    else if (input.not_clean.length && spawned.length === 0)
      stop = { where: 'worker', why: `a worker ended ${input.not_clean.at(-1)!.status}: ${input.not_clean.at(-1)!.reason ?? ''}` };
    // The turn ended clean with nothing left to run: the work is done (finished, not Needs you).
    else stop = { where: 'finished', why: 'the work is done: the orchestrator ended its turn with nothing left to run' };
  }

  const workingSet: WorkingSet = {
    session_id: sessionId,
    turn_status: outcome.status,
    turn_reason: outcome.reason,
    mode,
    in_flight: [...inFlight],
    spawned: spawned.map((s) => s.id),
    refused: refused.map((r) => r.approach),
    handoffs_given: input.handoffs.map((h) => h.handoff_id),
    messages_delivered: input.messages.map((m) => m.message_id),
    focus: input.focus,
    live_thread: (trellis?.available ? trellis.live_thread?.id : undefined) ?? input.focus?.thread_id ?? null,
    last_message: lastMessage ? lastMessage.slice(0, 4000) : null,
    needs_user: [...needsUser],
    stop,
  };
  await ctx.sql`select dispatch.journal_working_set(${projectId}, ${sessionId}, ${JSON.stringify(workingSet)}::text::jsonb)`;
}
