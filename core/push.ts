// Web Push: VAPID keys made on first start and kept in Postgres; notifications built with web-push
// (whose own sender speaks only HTTPS, so requests are built with generateRequestDetails and sent
// with fetch, which also reaches a loopback push service in tests).
import webpush from 'web-push';
import type { Sql } from './db/client.ts';

export interface Vapid {
  publicKey: string;
  privateKey: string;
}

export const PUSH_SUBJECT = 'mailto:petal-dispatch@localhost';

/** The server's VAPID keys, generated once (the first process to start wins the race). */
export async function ensureVapid(sql: Sql): Promise<Vapid> {
  const [row] = await sql<{ public_key: string; private_key: string }[]>`select public_key, private_key from dispatch.push_config`;
  if (row) return { publicKey: row.public_key, privateKey: row.private_key };
  const keys = webpush.generateVAPIDKeys();
  await sql`insert into dispatch.push_config (id, public_key, private_key) values (1, ${keys.publicKey}, ${keys.privateKey})
            on conflict (id) do nothing`;
  return ensureVapid(sql);
}

export interface PushMessage {
  title: string;
  body: string;
  tag: string;
  url: string;
  task_id: string | null;
  status: string;
  /** A gate waiting for a decision: the notification offers Approve and Deny. */
  gate_id?: string;
  actions?: { action: string; title: string }[];
}

export interface Subscription {
  id: string;
  endpoint: string;
  p256dh: string;
  auth: string;
}

/** Sends one encrypted notification; returns the push service's HTTP status. */
export async function sendPush(vapid: Vapid, sub: Subscription, message: PushMessage): Promise<number> {
  const details = webpush.generateRequestDetails(
    { endpoint: sub.endpoint, keys: { p256dh: sub.p256dh, auth: sub.auth } },
    JSON.stringify(message),
    { vapidDetails: { subject: PUSH_SUBJECT, publicKey: vapid.publicKey, privateKey: vapid.privateKey }, TTL: 3600, contentEncoding: 'aes128gcm' },
  );
  const res = await fetch(details.endpoint, {
    method: details.method,
    headers: details.headers as Record<string, string>,
    body: details.body ? new Uint8Array(details.body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer().catch(() => {});
  return res.status;
}
