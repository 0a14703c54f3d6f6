// A process's start and clean stop, journalled (SC-2): server.started when it starts, carrying
// whether the previous start of the same instance stopped cleanly (no server.stopped for it = an
// unclean stop: kill -9, a crash, power loss), and server.stopped when it stops cleanly.
import fs from 'node:fs';
import os from 'node:os';
import type { Config } from './config.ts';
import type { Sql } from './db/client.ts';

/** The app's version (package.json). */
export const APP_VERSION: string = (JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

export interface PreviousStart {
  event_id: string;
  started_at: string;
  pid: number | null;
  stop: 'clean' | 'unclean';
}

export interface Started {
  event_id: string;
  previous: PreviousStart | null;
}

/**
 * One process slot: host, mode, port and data folder. A restart of the same command on the same
 * machine is the same instance; two processes sharing one database are not.
 */
export function instanceName(config: Pick<Config, 'PORT' | 'dataDir'>, mode: string): string {
  return `${process.env.RUNNER_HOST_ID || os.hostname()}:${mode}:${config.PORT}:${config.dataDir}`;
}

export async function journalStart(sql: Sql, instance: string, mode: string): Promise<Started> {
  const [row] = await sql<{ s: Started }[]>`
    select dispatch.server_started(${instance}, ${process.pid}, ${os.hostname()}, ${mode}, ${APP_VERSION}) as s`;
  return row!.s;
}

export async function journalStop(sql: Sql, started: Started, reason: string): Promise<void> {
  await sql`select dispatch.server_stopped(${started.event_id}, ${reason})`;
}
