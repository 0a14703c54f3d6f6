// The journal writer turns a worker's stdout into typed raw rows: in order, batched, idempotent,
// and never dropping a line however malformed.
import { beforeAll, describe, expect, it } from 'vitest';
import { JournalWriter, appendLines, type SessionRef } from '../../jobs/journal-writer.ts';
import { LineSplitter } from '../../jobs/session/line-splitter.ts';
import { OVERSIZED_BYTES } from '../../jobs/substrate/stream-json.ts';
import { createTestDb, waitFor, type TestDb } from '../helpers/db.ts';
import { fixtureStdout, makeSession, sessionRows } from '../helpers/journal.ts';

let db: TestDb;
beforeAll(async () => {
  db = await createTestDb();
});

async function journal(ref: SessionRef, bytes: Buffer, chunk = 4096): Promise<JournalWriter> {
  const writer = new JournalWriter(db.sql, ref);
  const splitter = new LineSplitter((l) => writer.push(l));
  for (let i = 0; i < bytes.length; i += chunk) splitter.push(bytes.subarray(i, i + chunk));
  splitter.end();
  await writer.flush();
  return writer;
}

const expected: Record<string, string[]> = {
  'text-only': ['claude.init', 'claude.assistant', 'claude.result'],
  'bash-tool': ['claude.init', 'claude.assistant', 'claude.assistant', 'claude.tool_result', 'claude.assistant', 'claude.result'],
  'multi-turn': ['claude.init', 'claude.assistant', 'claude.result'],
  'api-error-500': ['claude.init', 'claude.api_retry', 'claude.assistant', 'claude.result'],
  'sigterm-mid-turn': ['claude.init'],
  'rate-limit-429': ['claude.init', 'claude.api_retry', 'claude.api_retry', 'claude.assistant', 'claude.result'],
  'auth-401': ['claude.init', 'claude.api_retry', 'claude.api_retry', 'claude.assistant', 'claude.result'],
};

describe('journalling the Phase 0 dump', () => {
  for (const [name, types] of Object.entries(expected)) {
    it(`types every line of the ${name} run, in order`, async () => {
      const ref = await makeSession(db.sql, `fixture ${name}`);
      const stdout = fixtureStdout(name);
      await journal(ref, stdout, 97); // odd chunk size: lines straddle chunks
      const rows = await sessionRows(db.sql, ref.sessionId);
      expect(rows.map((r) => r.event_type)).toEqual(types);
      expect(rows.map((r) => r.line_no)).toEqual(types.map((_, i) => i));
      // The substrate's ids stay in the payload; the envelope carries ours.
      const claudeSession = JSON.parse(stdout.toString('utf8').split('\n')[0]!).session_id as string;
      expect(rows[0]!.payload.session_id).toBe(claudeSession);
      expect(claudeSession).not.toBe(ref.sessionId);
    });
  }

  it('keeps the api_retry status and the result error flags for status derivation', async () => {
    const ref = await makeSession(db.sql, 'fixture 429 details');
    await journal(ref, fixtureStdout('rate-limit-429'));
    const rows = await sessionRows(db.sql, ref.sessionId);
    expect(rows.find((r) => r.event_type === 'claude.api_retry')!.payload).toMatchObject({ error_status: 429, error: 'rate_limit' });
    expect(rows.at(-1)!.payload).toMatchObject({ type: 'result', is_error: true, api_error_status: 429 });
  });

  it('records the session output time and line count', async () => {
    const ref = await makeSession(db.sql, 'fixture counters');
    await journal(ref, fixtureStdout('bash-tool'));
    const [s] = await db.sql<{ lines_written: number; last_output_at: Date | null }[]>`
      select lines_written, last_output_at from dispatch.sessions where id = ${ref.sessionId}`;
    expect(s!.lines_written).toBe(6);
    expect(s!.last_output_at).toBeInstanceOf(Date);
  });
});

describe('replaying a spooled stdout', () => {
  it('adds nothing twice when the same lines are appended again', async () => {
    const ref = await makeSession(db.sql, 'replay');
    const stdout = fixtureStdout('bash-tool');
    await journal(ref, stdout);
    const before = await sessionRows(db.sql, ref.sessionId);
    // A restarted runner replays the whole spool file, then the writer continues where it was.
    await journal(ref, stdout);
    const lines = stdout.toString('utf8').split('\n').filter(Boolean);
    const r = await appendLines(db.sql, ref, lines.map((l, i) => ({ lineNo: i, line: Buffer.from(l) })));
    expect(r.inserted).toBe(0);
    const after = await sessionRows(db.sql, ref.sessionId);
    expect(after).toEqual(before);
  });

  it('appends only the lines past the last journalled one', async () => {
    const ref = await makeSession(db.sql, 'replay partial');
    const lines = fixtureStdout('bash-tool').toString('utf8').split('\n').filter(Boolean);
    await appendLines(db.sql, ref, lines.slice(0, 3).map((l, i) => ({ lineNo: i, line: Buffer.from(l) })));
    const r = await appendLines(db.sql, ref, lines.map((l, i) => ({ lineNo: i, line: Buffer.from(l) })));
    expect(r.inserted).toBe(3);
    const rows = await sessionRows(db.sql, ref.sessionId);
    expect(rows.map((x) => x.line_no)).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('malformed stdout', () => {
  const cases: [string, Buffer, string, (p: Record<string, unknown>) => void][] = [
    ['a plain text line', Buffer.from('Warning: something odd'), 'stdout.non_json', (p) => expect(p.text).toBe('Warning: something odd')],
    ['truncated JSON', Buffer.from('{"type":"assistant","message":{"id":"m'), 'stdout.truncated_json', (p) =>
      expect(p.text).toBe('{"type":"assistant","message":{"id":"m')],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), 'stdout.binary', (p) =>
      expect(Buffer.from(p.base64 as string, 'base64')).toEqual(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))],
    ['a NUL byte', Buffer.from('abc\u0000def'), 'stdout.binary', (p) => expect(p.reason).toBe('nul_byte')],
    ['a JSON \\u0000 escape', Buffer.from('{"type":"assistant","x":"a\\u0000b"}'), 'stdout.rejected', (p) =>
      expect(p.text).toBe('{"type":"assistant","x":"a\\u0000b"}')],
    ['a lone surrogate escape', Buffer.from('{"type":"assistant","x":"\\ud800"}'), 'stdout.rejected', (p) =>
      expect(p.text).toBe('{"type":"assistant","x":"\\ud800"}')],
    // Rows travel to Postgres joined by the record separator: one inside a line must not split it.
    ['a raw record separator', Buffer.from('{"type":"assistant","x":"a\u001eb"}'.replace('\\u001e', '\x1e')), 'stdout.truncated_json', (p) =>
      expect(p.text).toBe('{"type":"assistant","x":"a\x1eb"}')],
    ['an escaped record separator', Buffer.from('{"type":"telemetry","x":"a\\u001eb"}'), 'claude.unknown', (p) => expect(p.x).toBe('a\x1eb')],
    ['a JSON array', Buffer.from('[1,2,3]'), 'claude.unknown', (p) => expect(p.value).toEqual([1, 2, 3])],
    ['an unknown JSON type', Buffer.from('{"type":"telemetry","n":1}'), 'claude.unknown', (p) => expect(p.n).toBe(1)],
    ['deep nesting', Buffer.from('{"type":"x","v":' + '['.repeat(20000) + ']'.repeat(20000) + '}'), 'stdout.rejected', (p) =>
      expect((p.text as string).length).toBe(40000 + 17)],
  ];

  for (const [what, line, type, check] of cases) {
    it(`keeps ${what} as ${type}`, async () => {
      const ref = await makeSession(db.sql, `malformed ${what}`);
      const writer = new JournalWriter(db.sql, ref);
      writer.push(Buffer.from('{"type":"system","subtype":"init","session_id":"s"}'));
      writer.push(line);
      writer.push(Buffer.from('{"type":"result","is_error":false,"result":"ok"}'));
      await writer.flush();
      const rows = await sessionRows(db.sql, ref.sessionId);
      expect(rows.map((r) => r.event_type)).toEqual(['claude.init', type, 'claude.result']);
      check(rows[1]!.payload);
    });
  }

  it('keeps a line of 1 MiB or more whole, as stdout.oversized', async () => {
    const ref = await makeSession(db.sql, 'oversized');
    const big = JSON.stringify({ type: 'assistant', text: 'x'.repeat(OVERSIZED_BYTES + 10) });
    const splitter = new LineSplitter((l) => writer.push(l));
    const writer = new JournalWriter(db.sql, ref);
    const bytes = Buffer.from(`${big}\nafter\n`);
    for (let i = 0; i < bytes.length; i += 65536) splitter.push(bytes.subarray(i, i + 65536));
    splitter.end();
    await writer.flush();
    const rows = await sessionRows(db.sql, ref.sessionId);
    expect(rows.map((r) => r.event_type)).toEqual(['stdout.oversized', 'stdout.non_json']);
    expect(rows[0]!.payload.text).toBe(big);
    expect(rows[0]!.payload.bytes).toBe(Buffer.byteLength(big));
  });

  it('keeps a last line that has no newline', async () => {
    const ref = await makeSession(db.sql, 'no trailing newline');
    await journal(ref, Buffer.from('{"type":"system","subtype":"init"}\n{"type":"result","is_err'));
    const rows = await sessionRows(db.sql, ref.sessionId);
    expect(rows.map((r) => r.event_type)).toEqual(['claude.init', 'stdout.truncated_json']);
  });
});

describe('batching', () => {
  it('writes a burst in few INSERTs with one NOTIFY each, in line order', async () => {
    const ref = await makeSession(db.sql, 'burst');
    const notified: number[] = [];
    const listener = await db.sql.listen('dispatch_events', (p) => notified.push(Number(p)));
    const batches: number[] = [];
    const writer = new JournalWriter(db.sql, ref, { onBatch: (r) => batches.push(r.maxSeq!) });
    for (let i = 0; i < 5000; i++) writer.push(Buffer.from(JSON.stringify({ type: 'stream_event', i })));
    await writer.flush();
    await waitFor(() => notified.filter((n) => batches.includes(n)).length, (n) => n === batches.length, { what: 'notifications' });
    await listener.unlisten();

    const rows = await sessionRows(db.sql, ref.sessionId);
    expect(rows).toHaveLength(5000);
    expect(rows.map((r) => r.payload.i)).toEqual([...Array(5000).keys()]);
    expect(batches.length).toBeLessThan(20);
    expect(notified.filter((n) => batches.includes(n))).toEqual(batches);
  });
});
