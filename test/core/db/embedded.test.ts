// The embedded Postgres on a port that another process holds at the moment it starts: it waits for
// the port (a restart must come back where its clients reconnect) instead of failing the start.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { startEmbeddedPostgres } from '../../../core/db/embedded.ts';
import { defer, tempDir } from '../../helpers/teardown.ts';

describe('the embedded Postgres asked for a port that is taken', () => {
  it('tries again and starts on that port once it is released', async () => {
    const holder = net.createServer();
    await new Promise<void>((r) => holder.listen(0, '127.0.0.1', () => r()));
    const { port } = holder.address() as net.AddressInfo;
    const logs: string[] = [];
    const log = (l: string) => {
      logs.push(l);
      // Postgres has met the taken port once: now let it go.
      if (l.includes('port taken')) holder.close();
    };
    const dir = tempDir('pd-embedded-port-');
    fs.chmodSync(dir, 0o755); // the postgres user runs the server when we are root
    const pg = await startEmbeddedPostgres({ dataDir: path.join(dir, 'db'), fast: true, port, log });
    defer(() => pg.stop(), 'stop the embedded Postgres');
    expect(logs.filter((l) => l.includes('port taken'))).toHaveLength(1);
    expect(pg.port).toBe(port);
    const sql = postgres(pg.url, { max: 1, onnotice: () => {} });
    defer(() => sql.end({ timeout: 1 }), 'close the connection');
    expect(await sql`select 1 as one`).toEqual([{ one: 1 }]);
  }, 180_000); // initdb alone can take a minute on a loaded 2-core machine
});
