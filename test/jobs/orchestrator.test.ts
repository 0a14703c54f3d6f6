// The orchestrator loop with the real CLI and the scripted model: one message, and the loop closes
// itself three times (SC-4); input sent while a worker runs waits and is delivered once (FR-007);
// two projects do not cross; a ruled-out approach is refused by code (SC-8).
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const spawn = (brief: string, approach: string) => ({ tool_use: { name: 'mcp__dispatch__spawn_worker', input: { brief, approach } } });
const say = (text: string, chunks = 1, delay_ms = 0) => ({ text, chunks, delay_ms });
const generic = { goal: 'Do the step', current_state: 'The step is done', next_step: 'The next step', ruled_out: [] };

const threeSteps: Scenario = {
  name: 'three-steps',
  description: 'SC-4: one instruction, three workers, the loop closes itself',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [say('```json\n' + JSON.stringify(generic) + '\n```')] },
    {
      match: 'orchestrator of project',
      steps: [
        spawn('Step one: outline the essay.', 'outline first'),
        say('Started step one.'),
        spawn('Step two: draft the essay.', 'draft from the outline'),
        say('Started step two.'),
        spawn('Step three: edit the essay.', 'one editing pass'),
        say('Started step three.'),
        say('All three steps are done.'),
      ],
    },
    { match: 'Step one:', steps: [say('Outline written.')] },
    // Held until the test has posted its message: the model, not the clock, keeps worker two running.
    { match: 'Step two:', steps: [{ ...say('Draft written, five paragraphs.'), gate: 'step-two' }] },
    { match: 'Step three:', steps: [say('Edited.')] },
  ],
};

interface Ev {
  seq: number;
  event_id: string;
  event_type: string;
  parent_id: string | null;
  session_id: string | null;
  task_id: string | null;
  message_id: string | null;
  payload: Record<string, unknown>;
}

let loop: Loop;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [threeSteps], serve: true });
});

async function settled(projectId: string, turns: number) {
  return waitFor(
    async () => {
      const [r] = await loop.db.sql<{ turns: number; open: number; sets: number }[]>`
        select (select count(*)::int from dispatch.sessions where project_id = ${projectId} and role = 'orchestrator' and ended_at is not null) as turns,
               (select count(*)::int from dispatch.tasks where project_id = ${projectId} and ended_at is null) as open,
               (select count(*)::int from dispatch.events where project_id = ${projectId} and event_type = 'orchestrator.working_set') as sets`;
      return r!;
    },
    (r) => r.turns >= turns && r.open === 0 && r.sets >= turns,
    { timeout: 90_000, what: `project ${projectId} to finish ${turns} turns` },
  );
}

const journal = (projectId: string) =>
  loop.db.sql<Ev[]>`select seq, event_id, event_type, parent_id, session_id, task_id, message_id, payload
                      from dispatch.events where project_id = ${projectId} order by seq`;

describe('SC-4 and FR-007, two projects at once', () => {
  it('one message closes the loop three times unattended; a message sent while a worker runs waits for the next turn', async () => {
    const [a] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('essay A') as id`;
    const [b] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('essay B') as id`;
    const A = a!.id;
    const B = b!.id;
    await loop.message(A, 'Write an essay in three steps.');
    await loop.message(B, 'Write an essay in three steps.');

    // FR-007 in project B: while its second worker runs, a message is pending, not delivered.
    await waitFor(
      () => loop.db.sql`select 1 from dispatch.sessions s join dispatch.tasks t on t.id = s.task_id
                         where t.project_id = ${B} and t.brief like 'Step two:%' and s.role = 'worker' and s.started_at is not null and s.ended_at is null`,
      (rows) => rows.length > 0,
      { timeout: 60_000, what: 'worker two of project B to run' },
    );
    const late = await loop.message(B, 'Also give it a title.');
    const state = (await (await fetch(`${loop.url}/api/state`)).json()) as { pending_messages: { message_id: string }[] };
    expect(state.pending_messages.map((m) => m.message_id)).toContain(late);
    // Worker two was still running when the message came (the model holds its answer): undelivered.
    expect(
      await loop.db.sql`select 1 from dispatch.sessions s join dispatch.tasks t on t.id = s.task_id
                         where t.project_id = ${B} and t.brief like 'Step two:%' and s.role = 'worker' and s.ended_at is null`,
    ).toHaveLength(1);
    loop.model.release('step-two');

    await settled(A, 4);
    await settled(B, 4);

    for (const project of [A, B]) {
      const ev = await journal(project);
      const tasks = await loop.db.sql<{ id: string; brief: string; status: string; spawned_by_session: string }[]>`
        select id, brief, status, spawned_by_session from dispatch.tasks where project_id = ${project} order by created_at`;
      expect(tasks.map((t) => [t.brief, t.status])).toEqual([
        ['Step one: outline the essay.', 'success'],
        ['Step two: draft the essay.', 'success'],
        ['Step three: edit the essay.', 'success'],
      ]);
      const turns = await loop.db.sql<{ id: string; status: string }[]>`
        select id, status from dispatch.sessions where project_id = ${project} and role = 'orchestrator' order by created_at`;
      expect(turns.map((t) => t.status)).toEqual(['success', 'success', 'success', 'success']);
      // Turn n spawned task n; every session and task belongs to this project.
      expect(tasks.map((t) => t.spawned_by_session)).toEqual(turns.slice(0, 3).map((t) => t.id));

      // Turns 2–4 resumed the first turn's Claude session.
      const spawnedTurns = ev.filter((e) => e.event_type === 'session.spawned' && turns.some((t) => t.id === e.session_id));
      expect(spawnedTurns.map((e) => (e.payload.argv as string[]).includes('--resume'))).toEqual([false, true, true, true]);

      // The causal chain through parent_id, and seq order matching causality.
      const byId = new Map(ev.map((e) => [e.event_id, e]));
      for (const [i, task] of tasks.entries()) {
        const submitted = ev.find((e) => e.task_id === task.id && e.event_type === 'task.submitted')!;
        const turnSpawned = spawnedTurns[i]!;
        expect(submitted.parent_id).toBe(turnSpawned.event_id);
        expect(submitted.seq).toBeGreaterThan(turnSpawned.seq);
        const workerSpawned = ev.find((e) => e.task_id === task.id && e.event_type === 'session.spawned')!;
        expect(workerSpawned.parent_id).toBe(submitted.event_id);
        const firstLine = ev.find((e) => e.session_id === workerSpawned.session_id && e.event_type.startsWith('claude.'))!;
        expect(firstLine.seq).toBeGreaterThan(workerSpawned.seq);
        const handoff = ev.find((e) => e.task_id === task.id && e.event_type === 'handoff')!;
        expect(byId.get(handoff.parent_id!)!.event_type).toBe('claude.result');
        // The next turn was caused by this handoff.
        const nextInput = ev.find((e) => e.event_type === 'orchestrator.turn_input' && e.session_id === turns[i + 1]!.id)!;
        expect(nextInput.parent_id).toBe(handoff.event_id);
        expect(spawnedTurns[i + 1]!.parent_id).toBe(nextInput.event_id);
      }

      // The orchestrator was given each handoff's fields verbatim.
      const turn2 = loop.model.requests.find((r) => r.userText.includes(`orchestrator of project "${project === A ? 'essay A' : 'essay B'}"`) && r.step === 2)!;
      for (const [k, v] of Object.entries(generic)) expect(turn2.userText).toContain(`"${k}": ${JSON.stringify(v)}`);

      // The last working set says where and why the loop stopped.
      const sets = ev.filter((e) => e.event_type === 'orchestrator.working_set');
      expect(sets.at(-1)!.payload).toMatchObject({
        mode: 'autonomous',
        turn_status: 'success',
        last_message: 'All three steps are done.',
        in_flight: [],
        stop: { where: 'finished', why: 'the work is done: the orchestrator ended its turn with nothing left to run' },
      });
      expect(sets[0]!.payload).toMatchObject({ stop: null, spawned: [tasks[0]!.id] });
    }

    // Project A had one message and no other input; each delivered exactly once, to turn 1.
    const aMessages = (await journal(A)).filter((e) => e.event_type.startsWith('user_message'));
    expect(aMessages.map((e) => e.event_type)).toEqual(['user_message', 'user_message.delivered']);

    // Project B's late message was delivered exactly once, at the turn after worker two's handoff.
    const bTurns = await loop.db.sql<{ id: string }[]>`
      select id from dispatch.sessions where project_id = ${B} and role = 'orchestrator' order by created_at`;
    const delivered = (await journal(B)).filter((e) => e.event_type === 'user_message.delivered' && e.message_id === late);
    expect(delivered.map((e) => e.session_id)).toEqual([bTurns[2]!.id]);
    const firstSeen = loop.model.requests.find((r) => r.userText.includes('Also give it a title.'))!;
    expect(firstSeen.step).toBe(4); // the first request of turn 3
    expect(firstSeen.userText.split('Also give it a title.')).toHaveLength(2);

    // Nothing crossed: no turn of A was given B's messages or handoffs.
    for (const e of (await journal(A)).filter((x) => x.event_type === 'orchestrator.turn_input')) {
      const p = e.payload as { messages: { message_id: string }[] };
      expect(p.messages.map((m) => m.message_id)).not.toContain(late);
    }
  }, 180_000); // about twenty real claude processes, one after another
});

const ruledOut: Scenario = {
  name: 'ruled-out',
  description: 'SC-8: a handoff rules an approach out; asking for it again is refused by code',
  conversations: [
    {
      match: 'Regex parsing failed',
      steps: [say(JSON.stringify({
        goal: 'Count the errors in the logs',
        current_state: 'The regex approach was abandoned',
        ruled_out: [{ approach: 'parse the logs with regular expressions', reason: 'the logs are nested JSON' }],
      }))],
    },
    { match: 'handoff extractor of petal-dispatch', steps: [say(JSON.stringify(generic))] },
    {
      match: 'orchestrator of project',
      steps: [
        spawn('Count the errors in the logs.', 'parse the logs with regular expressions'),
        say('Started.'),
        spawn('Count the errors in the logs, again.', 'parse the logs with regular expressions'),
        spawn('Count the errors in the logs, again.', 'Parsing logs with a regular expression'),
        spawn('Count the errors with jq.', 'use jq on the JSON logs'),
        say('Switched to jq.'),
        say('Done: the errors are counted.'),
      ],
    },
    { match: 'Count the errors in the logs.', steps: [say('Regex parsing failed: the logs are nested JSON.')] },
    { match: 'Count the errors with jq.', steps: [say('There are 42 errors.')] },
  ],
};

describe('SC-8: a ruled-out approach is never retried', () => {
  it('refuses the approach and its paraphrase with the rule-out, spawns nothing for them, accepts another', async () => {
    const l = await startLoop({ scenarios: [ruledOut], serve: true });
    const [p] = await l.db.sql<{ id: string }[]>`select dispatch.create_project('logs') as id`;
    const res = await fetch(`${l.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ project_id: p!.id, text: 'Count the errors in our logs.', message_id: randomUUID() }),
    });
    expect(res.status).toBe(201);
    await waitFor(
      () => l.db.sql<{ n: number }[]>`select count(*)::int as n from dispatch.events where project_id = ${p!.id} and event_type = 'orchestrator.working_set'`,
      (r) => r[0]!.n >= 3,
      { timeout: 90_000, what: 'three orchestrator turns' },
    );
    const tasks = await l.db.sql<{ approach: string; status: string }[]>`
      select approach, status from dispatch.tasks where project_id = ${p!.id} order by created_at`;
    expect(tasks).toEqual([
      { approach: 'parse the logs with regular expressions', status: 'success' },
      { approach: 'use jq on the JSON logs', status: 'success' },
    ]);
    const refused = await l.db.sql<{ payload: { approach: string; matches: { reason: string }[] } }[]>`
      select payload from dispatch.events where project_id = ${p!.id} and event_type = 'spawn.refused' order by seq`;
    expect(refused.map((r) => r.payload.approach)).toEqual(['parse the logs with regular expressions', 'Parsing logs with a regular expression']);
    expect(refused.every((r) => r.payload.matches[0]!.reason === 'the logs are nested JSON')).toBe(true);

    // The orchestrator was told why: the refusal (with the rule-out) is in its tool results.
    const results = await l.db.sql<{ payload: { message: { content: { content: unknown; is_error?: boolean }[] } } }[]>`
      select e.payload from dispatch.events e join dispatch.sessions s on s.id = e.session_id
       where s.project_id = ${p!.id} and s.role = 'orchestrator' and e.event_type = 'claude.tool_result' order by e.seq`;
    const refusals = results.map((r) => JSON.stringify(r.payload.message.content[0]!.content)).filter((t) => t.includes('refused'));
    expect(refusals).toHaveLength(2);
    for (const t of refusals) expect(t).toContain('the logs are nested JSON');
  }, 180_000); // about twenty real claude processes, one after another
});
