// Stopping an orchestrator turn (dispatch.cancel_turn, the Stop of Needs you) when its NOTIFY does
// not reach the runner that holds the turn (real CLI, scripted model): the runner's poll finds the
// journalled request; a runner that picks the turn up after a restart honours a request made while
// no runner held it, whether its process was running or not started yet. Each ends as a heard
// cancel does: the turn cancelled, its message given back, the next turn delivering it once.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const HEARD = 'Plan the week (cancel heard).';
const LOST = 'Plan the week (cancel lost).';
const ADOPTED = 'Plan the week (cancelled while no runner held it).';
const UNSTARTED = 'Plan the week (cancelled before it started).';
const again = (text: string) => `given_before="1">\n${text}`;

const scenario: Scenario = {
  name: 'turn-cancel',
  description: 'a turn held by the model until it is stopped; the next turn answers',
  conversations: [
    ...[HEARD, LOST, ADOPTED, UNSTARTED].map((text) => ({ match: again(text), steps: [{ text: 'Planned after the stop.', chunks: 1, delay_ms: 0 }] })),
    // Held by the model (never released): only a stop ends these turns.
    ...[HEARD, LOST, ADOPTED].map((text) => ({ match: text, steps: [{ text: 'never sent', chunks: 1, delay_ms: 0, gate: text }] })),
  ],
};

let loop: Loop;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario] });
});

async function stop(projectId: string): Promise<void> {
  const res = await fetch(`${loop.url}/api/projects/${projectId}/turn/cancel`, { method: 'POST' });
  expect(await res.json()).toEqual({ project_id: projectId, status: 'cancelling' });
}

/** The project's turn held by the model, once this runner follows its process. */
async function heldTurn(projectId: string, text: string): Promise<string> {
  await loop.model.atGate(text);
  const [turn] = await waitFor(
    () => loop.db.sql<{ id: string }[]>`
      select id from dispatch.sessions where project_id = ${projectId} and role = 'orchestrator' and ended_at is null and pid is not null`,
    (r) => r.length === 1 && loop.runner.context.live.has(r[0]!.id),
    { what: 'the held turn to be followed by the runner' },
  );
  return turn!.id;
}

interface Ending {
  turn: { status: string; status_reason: string | null; stalled: boolean };
  turn_status: unknown;
  story: [string, string][];
  next: string;
}

/** What a person sees once the stopped turn is over and the next one answered. */
async function ending(projectId: string, turnId: string, messageId: string): Promise<Ending> {
  const turns = await waitFor(
    () => loop.db.sql<{ id: string; status: string }[]>`
      select id, status from dispatch.sessions where project_id = ${projectId} and role = 'orchestrator' order by created_at`,
    (t) => t.length === 2 && t[1]!.status === 'success',
    { timeout: 60_000, what: 'the stopped turn to end and the next one to answer' },
  );
  expect(turns[0]!.id).toBe(turnId);
  const [turn] = await loop.db.sql<Ending['turn'][]>`select status, status_reason, stalled from dispatch.sessions where id = ${turnId}`;
  const [ws] = await loop.db.sql<{ s: unknown }[]>`
    select payload->'turn_status' as s from dispatch.events where session_id = ${turnId} and event_type = 'orchestrator.working_set'`;
  const rows = await loop.db.sql<{ event_type: string; session_id: string | null }[]>`
    select event_type, session_id from dispatch.events where message_id = ${messageId} order by seq`;
  const who = (id: string | null) => (id === turnId ? 'stopped' : id === turns[1]!.id ? 'next' : String(id));
  const [requested] = await loop.db.sql`select 1 from dispatch.events where session_id = ${turnId} and event_type = 'turn.cancel_requested'`;
  expect(requested).toBeDefined();
  return { turn: turn!, turn_status: ws?.s, story: rows.map((r) => [r.event_type, who(r.session_id)]), next: turns[1]!.status };
}

/** How a heard cancel ends a turn (the Stop of Needs you, its NOTIFY reaching the runner). */
const asHeard: Ending = {
  turn: { status: 'cancelled', status_reason: 'stopped by SIGTERM', stalled: false },
  turn_status: 'cancelled',
  story: [
    ['user_message', 'null'],
    ['user_message.delivered', 'stopped'],
    ['user_message.returned', 'stopped'],
    ['user_message.delivered', 'next'],
  ],
  next: 'success',
};

const exitOf = async (turnId: string) =>
  (await loop.db.sql<{ payload: { exit_code: number | null; signal: string | null; exit_known: boolean } }[]>`
    select payload from dispatch.events where session_id = ${turnId} and event_type = 'session.exited'`)[0]!.payload;

describe('stopping an orchestrator turn', () => {
  it('heard over NOTIFY: SIGTERM, exit 143, the turn ends cancelled and its message goes to the next turn', async () => {
    const p = await loop.project('cancel heard');
    const message = await loop.message(p, HEARD);
    const turn = await heldTurn(p, HEARD);
    await stop(p);
    expect(await ending(p, turn, message)).toEqual(asHeard);
    expect(await exitOf(turn)).toMatchObject({ exit_code: 143, exit_known: true });
  }, 120_000);

  it('whose NOTIFY was lost is found by the runner\'s poll and ends the same way', async () => {
    const p = await loop.project('cancel lost');
    const message = await loop.message(p, LOST);
    const turn = await heldTurn(p, LOST);
    // The request as dispatch.cancel_turn journals it, without its pg_notify: only the poll can see it.
    await loop.db.sql`
      insert into dispatch.events (project_id, session_id, event_type, payload)
      values (${p}, ${turn}, 'turn.cancel_requested', ${loop.db.sql.json({ stalled: false })})`;
    expect(await ending(p, turn, message)).toEqual(asHeard);
    expect(await exitOf(turn)).toMatchObject({ exit_code: 143, exit_known: true });
  }, 120_000);

  it('asked while no runner held it is honoured by the runner that adopts its process, and ends the same way', async () => {
    const p = await loop.project('cancel while restarting');
    const message = await loop.message(p, ADOPTED);
    const turn = await heldTurn(p, ADOPTED);
    await loop.runner.stop(); // as a restart does: the turn's process is left running for the next runner
    await stop(p);
    await loop.restart();
    expect(await ending(p, turn, message)).toEqual(asHeard);
    const [adopted] = await loop.db.sql`select 1 from dispatch.events where session_id = ${turn} and event_type = 'session.adopted'`;
    expect(adopted).toBeDefined();
    // The adopted process's exit status cannot be read; it ended on this runner's SIGTERM.
    expect(await exitOf(turn)).toMatchObject({ exit_code: null, signal: 'SIGTERM', exit_known: false });
  }, 120_000);

  it('asked after a runner claimed it and went away before starting it ends cancelled with no process; the next turn answers', async () => {
    await loop.runner.stop();
    const p = await loop.project('cancel before start');
    const message = await loop.message(p, UNSTARTED); // enqueues the turn; no runner runs it yet
    // The runner that claimed the turn went away before it started the process.
    await loop.db.sql`select dispatch.claim_orchestrator_turn(${p})`;
    const [claimed] = await loop.db.sql<{ id: string }[]>`select id from dispatch.sessions where project_id = ${p} and role = 'orchestrator'`;
    await stop(p);
    await loop.restart();
    expect(await ending(p, claimed!.id, message)).toEqual({ ...asHeard, turn: { ...asHeard.turn, status_reason: 'cancelled before it started' } });
    const spawned = await loop.db.sql`select 1 from dispatch.events where session_id = ${claimed!.id} and event_type = 'session.spawned'`;
    expect(spawned).toHaveLength(0);
    expect(loop.model.requests.filter((r) => r.userText.includes(UNSTARTED) && !r.userText.includes(again(UNSTARTED)))).toHaveLength(0);
  }, 120_000);
});
