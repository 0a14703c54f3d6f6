// A Web Push service on loopback for tests (the web-push-testing package): devices subscribe to it,
// it accepts encrypted pushes, decrypts them for the test to read, and can expire a subscription.
import { createRequire } from 'node:module';
import { defer } from './teardown.ts';

const require = createRequire(import.meta.url);

export interface TestSubscription {
  endpoint: string;
  keys: { p256dh: string; auth: string };
  clientHash: string;
}

export interface PushService {
  url: string;
  subscribe(applicationServerKey: string): Promise<TestSubscription>;
  messages(clientHash: string): Promise<unknown[]>;
  expire(clientHash: string): Promise<void>;
}

export async function startPushService(): Promise<PushService> {
  const Server = require('web-push-testing/src/server.js') as new (model: unknown, port: number) => {
    startServer(): void;
    _server: { close(cb: () => void): void; once(e: string, cb: () => void): void; closeAllConnections?: () => void };
  };
  const { PushApiModel } = require('web-push-testing/src/PushApiModel.js') as { PushApiModel: new () => { notifyUrl: string } };
  const log = console.log;
  console.log = () => {}; // it announces itself on stdout
  // Port 0: the OS picks a free one, read back below (no port chosen beforehand, so no race; the
  // package exits the process on EADDRINUSE).
  const model = new PushApiModel();
  const server = new Server(model, 0);
  server.startServer();
  await new Promise<void>((r) => server._server.once('listening', () => r()));
  console.log = log;
  const port = (server._server as unknown as { address(): { port: number } }).address().port;
  model.notifyUrl = `http://localhost:${port}/notify/`; // it wrote the port it was given (0) into its endpoints
  defer(async () => {
    server._server.closeAllConnections?.();
    await new Promise<void>((r) => server._server.close(() => r()));
  }, 'close the push service');
  const url = `http://localhost:${port}`;
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) });
    const text = await res.text();
    if (!res.ok) throw new Error(`push service ${path}: HTTP ${res.status} ${text}`);
    try {
      return JSON.parse(text) as { data: unknown };
    } catch {
      return { data: null }; // some answers are plain "OK"
    }
  };
  return {
    url,
    async subscribe(applicationServerKey) {
      return (await post('/subscribe', { userVisibleOnly: 'true', applicationServerKey })).data as TestSubscription; // it wants the string
    },
    async messages(clientHash) {
      return ((await post('/get-notifications', { clientHash })).data as { messages: unknown[] }).messages;
    },
    async expire(clientHash) {
      await post(`/expire-subscription/${clientHash}`, {});
    },
  };
}
