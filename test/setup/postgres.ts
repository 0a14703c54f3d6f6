// Vitest global setup: one Postgres for the whole run (DATABASE_URL when set, else an embedded one
// in a temporary folder), with a migrated template database each test file clones.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { createSql } from '../../core/db/client.ts';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../../core/db/embedded.ts';
import { migrateAll } from '../../core/db/migrate.ts';
import { failRun } from './leaks.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgAdminUrl: string;
    pgTemplate: string;
  }
}

let embedded: EmbeddedPostgres | undefined;
let dataDir: string | undefined;

export async function setup(project: TestProject) {
  let adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pd-test-pg-'));
    fs.chmodSync(dataDir, 0o755);
    embedded = await startEmbeddedPostgres({ dataDir, fast: true });
    adminUrl = embedded.url;
  }
  const template = `pd_template_${project.getProvidedContext().pdRun}`;
  const admin = createSql(adminUrl, { max: 1 });
  try {
    await admin.unsafe(`drop database if exists ${template}`);
    await admin.unsafe(`create database ${template}`);
  } finally {
    await admin.end();
  }
  const tpl = createSql(withDatabase(adminUrl, template), { max: 1 });
  try {
    await migrateAll(tpl, withDatabase(adminUrl, template));
  } finally {
    await tpl.end();
  }
  project.provide('pgAdminUrl', adminUrl);
  project.provide('pgTemplate', template);

  const run = project.getProvidedContext().pdRun;
  return async () => {
    const a = createSql(adminUrl!, { max: 1 });
    let left: string[] = [];
    try {
      // Every database a test file made (test/helpers/db.ts names them pd_t_<run>_…) must be gone.
      left = (await a<{ datname: string }[]>`select datname from pg_database where datname like ${`pd_t_${run}_%`}`).map((r) => r.datname);
      for (const name of left) await a.unsafe(`drop database if exists ${name} with (force)`);
      await a.unsafe(`drop database if exists ${template} with (force)`);
    } finally {
      await a.end();
    }
    await embedded?.stop();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
    if (left.length) failRun([`databases left behind: ${left.join(', ')}`]);
  };
}

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}
