// `npm run dispatch -- <command>`: a small operator CLI over the same SQL functions psql users call
// (the commands are a table in bin/cli/commands.ts; --help is made from it).
import path from 'node:path';
import fs from 'node:fs';
import { loadConfig } from '../core/config.ts';
import { createSql, type Sql } from '../core/db/client.ts';
import { COMMANDS, findCommand, type CliContext } from './cli/commands.ts';
import { helpText } from './cli/format.ts';

const FOOTER = 'Uses DATABASE_URL, or the embedded Postgres of a running npm start in DISPATCH_DATA_DIR.';

export const HELP = helpText(COMMANDS.map((c) => ({ usage: [...c.words, ...(c.args ? [c.args] : [])].join(' '), summary: c.summary })), FOOTER);

/** DATABASE_URL, or the running embedded cluster found through its postmaster.pid. */
export function resolveUrl(env: NodeJS.ProcessEnv = process.env): string {
  const config = loadConfig(env);
  if (config.DATABASE_URL) return config.DATABASE_URL;
  const pidFile = path.join(config.dataDir, 'pg', 'postmaster.pid');
  if (!fs.existsSync(pidFile)) {
    throw new Error(`no DATABASE_URL and no running embedded Postgres in ${config.dataDir}: start it with npm start`);
  }
  const port = fs.readFileSync(pidFile, 'utf8').split('\n')[3]?.trim();
  const password = fs.readFileSync(path.join(config.dataDir, 'pg.password'), 'utf8').trim();
  return `postgres://postgres:${encodeURIComponent(password)}@127.0.0.1:${port}/dispatch`;
}

/** Runs one command line; the exit code. */
export async function run(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const print = (s: string): void => void process.stdout.write(`${s}\n`);
  const found = findCommand(argv);
  if (!found) {
    print(HELP);
    return argv.length && !['--help', '-h', 'help'].includes(argv[0]!) ? 2 : 0;
  }
  let url: string | undefined;
  let sql: Sql | undefined;
  const ctx: CliContext = {
    url: () => (url ??= resolveUrl(env)),
    sql: () => (sql ??= createSql(ctx.url(), { max: 2, application: 'petal-dispatch cli' })),
    print,
    write: (text) => void process.stdout.write(text),
    warn: (s) => void process.stderr.write(`dispatch: ${s}\n`),
    env,
  };
  try {
    return (await found.command.run(ctx, [...found.args])) ?? 0;
  } finally {
    await sql?.end({ timeout: 2 });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]).endsWith(path.join('bin', 'cli.ts'))) {
  try {
    process.exitCode = await run(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`dispatch: ${(err as Error).message}\n`);
    process.exitCode = 2;
  }
}
