// What every route handler gets through the context: the database, the configuration, the logger
// and the journal hub. Kept apart from app.ts so the route modules never import the app itself.
import type { Config } from '../core/config.ts';
import type { Sql } from '../core/db/client.ts';
import type { Logger } from '../core/log.ts';
import type { AuthVariables } from './middleware/auth.ts';
import type { JournalHub } from './stream/hub.ts';

export interface Deps {
  sql: Sql;
  config: Config;
  log: Logger;
  hub: JournalHub;
  /** A new client with one connection of its own, for a read's second try after its pooled connection was lost. */
  freshSql?: () => Sql;
  /** The built client to serve (default client/dist). */
  clientDir?: string;
}

export type AppEnv = { Variables: { deps: Deps } & AuthVariables };
