// Small builders for journal tests: a project, a session, a running task, and reading a session's rows back.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Sql } from '../../core/db/client.ts';
import { JournalWriter, type SessionRef } from '../../jobs/journal-writer.ts';

export const fixturesDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/runs');

export function fixtureStdout(name: string, file = 'stdout.jsonl'): Buffer {
  return fs.readFileSync(path.join(fixturesDir, name, file));
}

export async function makeSession(sql: Sql, projectName: string, role = 'worker'): Promise<SessionRef> {
  const [p] = await sql<{ id: string }[]>`select dispatch.create_project(${projectName}) as id`;
  const [s] = await sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, role, status) values (${p!.id}, ${role}, 'running') returning id`;
  return { projectId: p!.id, sessionId: s!.id };
}

/** A running task of the project, its worker session, and a journal writer for that session's lines. */
export async function runningTask(sql: Sql, projectId: string, brief: string): Promise<{ task: string; session: string; writer: JournalWriter }> {
  const [t] = await sql<{ id: string }[]>`select dispatch.submit_task(${projectId}, ${brief}) as id`;
  await sql`select dispatch.set_task_status(${t!.id}, 'running', 'started')`;
  const [s] = await sql<{ id: string }[]>`
    insert into dispatch.sessions (project_id, task_id, role, status, started_at) values (${projectId}, ${t!.id}, 'worker', 'running', now()) returning id`;
  return { task: t!.id, session: s!.id, writer: new JournalWriter(sql, { projectId, sessionId: s!.id, taskId: t!.id }) };
}

export interface JournalRow {
  seq: number;
  line_no: number;
  event_type: string;
  payload: Record<string, unknown>;
}

export function sessionRows(sql: Sql, sessionId: string): Promise<JournalRow[]> {
  return sql<JournalRow[]>`
    select seq, line_no, event_type, payload from dispatch.events
     where session_id = ${sessionId} and line_no is not null order by seq`;
}
