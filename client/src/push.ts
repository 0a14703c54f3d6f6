// Web Push on this device: subscribe through the service worker with the server's VAPID key and
// tell the server which moments should notify (per device). Needs a secure context (https or
// localhost), as the Push API does.
import * as v from 'valibot';
import { api } from './api.ts';

export const MOMENTS = ['stalled', 'failed', 'crashed', 'rate_limited', 'extraction_failed', 'success', 'loop_stopped', 'gate_requested', 'budget_reached'] as const;
export type Moment = (typeof MOMENTS)[number];
const PREFS = 'pd.push.statuses';

export function pushSupported(): boolean {
  return window.isSecureContext && 'serviceWorker' in navigator && 'PushManager' in window && typeof Notification !== 'undefined';
}

export function savedMoments(): Moment[] {
  try {
    const saved = JSON.parse(localStorage.getItem(PREFS) ?? 'null') as Moment[] | null;
    return saved ?? [...MOMENTS];
  } catch {
    return [...MOMENTS];
  }
}

function keyBytes(base64url: string): Uint8Array {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/').padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  return Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
}

/** Asks for permission if needed, subscribes, and saves this device's moments on the server. */
export async function enablePush(moments: Moment[] = savedMoments()): Promise<void> {
  if ((await Notification.requestPermission()) !== 'granted') throw new Error('Notifications are blocked for this site.');
  localStorage.setItem(PREFS, JSON.stringify(moments));
  if (!pushSupported()) return; // page notifications still work while the app is open
  const reg = await navigator.serviceWorker.ready;
  const { public_key } = await api(v.object({ public_key: v.string() }), '/api/push/key');
  const sub =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(public_key) as BufferSource }));
  const json = sub.toJSON() as { endpoint: string; keys: { p256dh: string; auth: string } };
  await api(v.looseObject({ id: v.string() }), '/api/push/subscriptions', {
    method: 'POST',
    body: { subscription: { endpoint: json.endpoint, keys: json.keys }, statuses: moments, device: navigator.userAgent.slice(0, 200) },
  });
}
