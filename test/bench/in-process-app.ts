// The app served from the bench's own process on a loopback port the system picks, with its journal
// hub started — for the browser sections, whose measurements are in the page, not the server.
import { serve } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '../../core/config.ts';
import type { Sql } from '../../core/db/client.ts';
import type { Logger } from '../../core/log.ts';
import { buildApp } from '../../functions/app.ts';
import { JournalHub } from '../../functions/stream/hub.ts';

const quiet: Logger = { debug() {}, info() {}, warn() {}, error() {} };

export async function serveInProcess(sql: Sql, dbUrl: string): Promise<{ url: string; close(): Promise<void> }> {
  const hub = new JournalHub(sql, quiet, {});
  await hub.start();
  const app = buildApp({ sql, config: loadConfig({ DATABASE_URL: dbUrl }), log: quiet, hub });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => server.once('listening', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await hub.stop();
      (server as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
