// One operator CLI command's shape and what it runs with (bin/cli/commands.ts holds the table).
import type { Sql } from '../../core/db/client.ts';

export interface CliContext {
  /** The database in use, connected on first use. */
  sql(): Sql;
  /** Its URL (DATABASE_URL, or the running embedded cluster's). */
  url(): string;
  print(line: string): void;
  write(text: string): void;
  warn(line: string): void;
  env: NodeJS.ProcessEnv;
}

export interface Command {
  /** The words that name it: `task add`. */
  words: string[];
  /** Its arguments as --help shows them. */
  args?: string;
  summary: string;
  /** With fewer arguments after its words it is not this command (and --help is shown). */
  minArgs?: number;
  /** Runs it; the exit code (default 0). */
  run(c: CliContext, args: string[]): Promise<number | void>;
}
