// The task open on screen, left open on a worker that prints all day: while the person follows its
// newest rows the client holds a bounded window of them (older ones page back in from the moved
// floor); while they read older rows nothing is taken from under them; the model is never trimmed.
import { describe, expect, it } from 'vitest';
import { Journal, TASK_CAP } from '../../../client/src/store/journal.ts';
import { Store } from '../../../client/src/store.ts';
import type { EventRow } from '../../../client/src/schemas.ts';

const P = '00000000-0000-4000-8000-000000000001';
const T = '00000000-0000-4000-8000-0000000000a1';
const OTHER = '00000000-0000-4000-8000-0000000000a2';
let n = 0;
function row(seq: number, over: Partial<EventRow> = {}): EventRow {
  return {
    event_id: `00000000-0000-4000-9000-${String(++n).padStart(12, '0')}`, seq, project_id: P, session_id: null, task_id: T, parent_id: null,
    thread_id: null, message_id: null, event_type: 'claude.assistant', tier: 'raw', payload: {}, summary: null, line_no: seq,
    created_at: new Date(1_700_000_000_000 + seq * 20).toISOString(), ...over,
  };
}
/** Streams `count` rows of the task from seq `from` on, 50 at a time (as the stream delivers them). */
function stream(add: (rows: EventRow[]) => unknown, from: number, count: number): number {
  for (let i = 0; i < count; i += 50) add(Array.from({ length: Math.min(50, count - i) }, (_, k) => row(from + i + k)));
  return from + count;
}

describe('the task open on screen', () => {
  it('holds a bounded window of its newest rows while followed, and its floor moves so the older ones page back in', () => {
    const j = new Journal();
    j.keep(T);
    const end = stream((r) => j.add(r), 1, 30_000);
    const held = j.task(T);
    expect(held.length).toBeGreaterThanOrEqual(TASK_CAP);
    expect(held.length).toBeLessThanOrEqual(TASK_CAP + 1000);
    expect(j.size).toBe(held.length);
    expect(held.at(-1)!.seq).toBe(end - 1);
    // Complete from the floor on: older rows exist on the server, paged by before=floor.
    expect(j.taskFloor(T)).toBe(held[0]!.seq);
    expect(j.taskFloor(T)).toBeGreaterThan(1);
    // A page of the older rows, as loadOlder brings them: held again, the floor lower.
    const floor = j.taskFloor(T);
    j.follow(false);
    expect(j.add(Array.from({ length: 300 }, (_, k) => row(floor - 300 + k))).length).toBe(300);
    j.setTaskFloor(T, floor - 300);
    expect(j.task(T)[0]!.seq).toBe(floor - 300);
  });

  it('keeps every row while the person reads older ones, and trims to the window once they are back at the newest', () => {
    const j = new Journal();
    j.keep(T);
    let seq = stream((r) => j.add(r), 1, 8_000);
    const floor = j.taskFloor(T);
    const first = j.task(T)[0]!;
    j.follow(false);
    seq = stream((r) => j.add(r), seq, 20_000);
    // Nothing went from under the reader: the row at the top is still there, the floor has not moved.
    expect(j.task(T)[0]).toBe(first);
    expect(j.taskFloor(T)).toBe(floor);
    expect(j.task(T).length).toBeGreaterThan(20_000);
    // Back at the bottom: the window again, at once (not with the next row).
    j.follow(true);
    expect(j.task(T).length).toBe(TASK_CAP);
    expect(j.task(T).at(-1)!.seq).toBe(seq - 1);
    expect(j.taskFloor(T)).toBe(seq - TASK_CAP);
    expect(j.has(first.event_id)).toBe(false);
  });

  it('keeps a quiet open task’s rows while other tasks stream past the scope’s cap', () => {
    const j = new Journal(1000);
    j.keep(T);
    j.add([row(1), row(2), row(3)]);
    for (let s = 10; s < 5_000; s += 100) j.add(Array.from({ length: 100 }, (_, k) => row(s + k, { task_id: OTHER })));
    expect(j.task(T).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(j.taskFloor(T)).toBe(0);
    expect(j.size).toBeLessThanOrEqual(3000 + 3);
  });

  it('in the store: bounded while followed, kept while scrolled up, with statuses and the handoff untouched', () => {
    const s = new Store();
    void s.showTask(T);
    s.apply([row(1, { event_type: 'task.submitted', payload: { brief: 'print all day' } }), row(2, { event_type: 'handoff', tier: 'derived', payload: { goal: 'g' } })]);
    s.apply([row(3, { event_type: 'task.status_changed', payload: { status: 'running' } })]);
    let seq = stream((r) => s.apply(r), 4, 30_000);
    expect(s.journal.task(T).length).toBeLessThanOrEqual(TASK_CAP + 1000);
    expect(s.hasOlder(T)).toBe(true);
    expect(s.tasks.get(T)).toMatchObject({ status: 'running', brief: 'print all day' });
    expect(s.handoffs.get(T)!.seq).toBe(2);
    s.followTask(false);
    const top = s.journal.task(T)[0];
    seq = stream((r) => s.apply(r), seq, 10_000);
    expect(s.journal.task(T)[0]).toBe(top);
    s.followTask(true);
    expect(s.journal.task(T).length).toBe(TASK_CAP);
    expect(s.journal.task(T).at(-1)!.seq).toBe(seq - 1);
    expect(s.model.seq).toBe(seq - 1);
    expect(s.handoffs.get(T)!.seq).toBe(2);
  });
});
