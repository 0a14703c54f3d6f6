// User input is delivered exactly once even when a turn fails (real CLI, scripted model): a turn
// that ends in an error result, and a turn killed with SIGKILL mid-run, give their claimed messages
// back (pending again, user_message.returned); the next turn delivers each once and succeeds.
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';
import { defer } from '../helpers/teardown.ts';

const ERROR_TEXT = 'Please list the open questions (error case).';
const KILL_TEXT = 'Please list the open questions (kill case).';
const again = (text: string) => `given_before="1">\n${text}`;

const scenario: Scenario = {
  name: 'returned-messages',
  description: 'a failed turn gives its messages back; the next one delivers them once',
  conversations: [
    { match: again(ERROR_TEXT), steps: [{ text: 'Two open questions, listed.', chunks: 1, delay_ms: 0 }] },
    { match: ERROR_TEXT, steps: [{ error: { status: 400, type: 'invalid_request_error', message: 'scripted: this turn fails' } }] },
    { match: again(KILL_TEXT), steps: [{ text: 'Listed after the restart of the turn.', chunks: 1, delay_ms: 0 }] },
    // Held by the model until the test has killed the turn.
    { match: KILL_TEXT, steps: [{ text: 'never sent', chunks: 1, delay_ms: 0, gate: 'held-turn' }] },
  ],
};

let loop: Loop;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], serve: true });
  defer(() => loop.model.release('held-turn'), 'release the held turn');
});

interface Turn {
  id: string;
  status: string;
  status_reason: string | null;
}
const turns = (projectId: string) =>
  loop.db.sql<Turn[]>`select id, status, status_reason from dispatch.sessions where project_id = ${projectId} and role = 'orchestrator' order by created_at`;

/** What a person sees of the message: the journal rows about it, in order, and whether it is pending. */
async function story(messageId: string) {
  const rows = await loop.db.sql<{ event_type: string; session_id: string | null; payload: Record<string, unknown> }[]>`
    select event_type, session_id, payload from dispatch.events where message_id = ${messageId} order by seq`;
  return rows.map((r) => ({ ...r }));
}

async function settleTwoTurns(projectId: string) {
  return waitFor(
    async () => {
      const t = await turns(projectId);
      const [ws] = await loop.db.sql<{ n: number }[]>`
        select count(*)::int as n from dispatch.events where project_id = ${projectId} and event_type = 'orchestrator.working_set'`;
      return { t, sets: ws!.n };
    },
    (r) => r.t.length >= 2 && r.t.every((t) => t.status !== 'running' && t.status !== 'queued') && r.sets >= 2,
    { timeout: 90_000, what: 'two orchestrator turns to end' },
  );
}

async function expectDeliveredOnce(projectId: string, messageId: string, text: string, failedTurn: string, failedStatus: string) {
  const { t } = await settleTwoTurns(projectId);
  expect(t.map((x) => x.status)).toEqual([failedStatus, 'success']);
  expect(t[0]!.id).toBe(failedTurn);

  // Delivered to the failed turn, given back (visible as such), delivered to the next turn: once.
  const rows = await story(messageId);
  expect(rows.map((r) => [r.event_type, r.session_id])).toEqual([
    ['user_message', null],
    ['user_message.delivered', t[0]!.id],
    ['user_message.returned', t[0]!.id],
    ['user_message.delivered', t[1]!.id],
  ]);
  expect(rows[2]!.payload).toMatchObject({ failed_turns: 1, will_retry: true });
  const [m] = await loop.db.sql<{ delivered_to: string | null; failed_turns: number }[]>`
    select delivered_to, failed_turns from dispatch.user_messages where message_id = ${messageId}`;
  expect(m).toEqual({ delivered_to: t[1]!.id, failed_turns: 1 });

  // The model saw the text once in the successful turn's request, marked as given before.
  const seen = loop.model.requests.filter((r) => r.userText.includes(again(text)));
  expect(seen.length).toBeGreaterThan(0);
  for (const r of seen) expect(r.userText.split(text)).toHaveLength(2);
  // No third turn was started for it.
  expect((await turns(projectId)).length).toBe(2);
}

describe('a failed orchestrator turn', () => {
  it('that ends in an error result gives its messages back; the next turn delivers them once', async () => {
    const p = await loop.project('error result');
    const id = await loop.message(p, ERROR_TEXT);
    const [first] = await waitFor(() => turns(p), (t) => t.length >= 1 && t[0]!.status === 'failed', { timeout: 60_000, what: 'the first turn to fail' });
    await expectDeliveredOnce(p, id, ERROR_TEXT, first!.id, 'failed');
  }, 120_000);

  it('that is killed mid-run gives its messages back; the next turn delivers them once', async () => {
    const p = await loop.project('killed turn');
    const id = await loop.message(p, KILL_TEXT);
    await loop.model.atGate('held-turn');
    const [running] = await waitFor(
      () => loop.db.sql<{ id: string; pid: number | null }[]>`
        select id, pid from dispatch.sessions where project_id = ${p} and role = 'orchestrator' and ended_at is null`,
      (r) => r.length === 1 && r[0]!.pid !== null,
      { what: 'the held turn to have a pid' },
    );
    // Mid-run: the message is delivered to this turn, not pending.
    expect((await story(id)).map((r) => r.event_type)).toEqual(['user_message', 'user_message.delivered']);
    process.kill(running!.pid!, 'SIGKILL');
    await expectDeliveredOnce(p, id, KILL_TEXT, running!.id, 'crashed');
  }, 120_000);
});
