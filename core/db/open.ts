// Resolves the database: DATABASE_URL when set, otherwise the embedded Postgres in the data folder.
import type { Config } from '../config.ts';
import { createSql } from './client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded.ts';

export interface Database {
  url: string;
  embedded?: EmbeddedPostgres;
  /** Stops the embedded cluster, if this process started one. */
  close(): Promise<void>;
}

const DB_NAME = 'dispatch';

/** `signal` aborted while the embedded Postgres starts: it is stopped again and signal.reason thrown. */
export async function openDatabase(config: Config, log: (l: string) => void, signal?: AbortSignal): Promise<Database> {
  if (config.DATABASE_URL) return { url: config.DATABASE_URL, close: async () => {} };

  const embedded = await startEmbeddedPostgres({ dataDir: config.dataDir, log, signal });
  try {
    const admin = createSql(embedded.url, { max: 1 });
    try {
      const [exists] = await admin`select 1 as one from pg_database where datname = ${DB_NAME}`;
      if (!exists) await admin.unsafe(`create database ${DB_NAME}`);
    } finally {
      await admin.end();
    }
    signal?.throwIfAborted();
  } catch (err) {
    await embedded.stop();
    if (signal?.aborted) log('embedded Postgres stopped');
    throw err;
  }
  const url = embedded.url.replace(/\/postgres$/, `/${DB_NAME}`);
  return { url, embedded, close: () => embedded.stop() };
}
