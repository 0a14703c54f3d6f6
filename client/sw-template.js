// petal-dispatch service worker (generated at build from client/sw-template.js): caches the app
// shell, serves an offline page when the server is unreachable, never caches /api or the stream,
// shows pushed notifications and opens the right task when one is tapped; a gate's notification
// decides it from the lock screen (its Approve and Deny actions post the decision).
const VERSION = '__VERSION__';
const SHELL = __SHELL__;
const CACHE = `pd-shell-${VERSION}`;
const NEVER = ['/api/', '/mcp', '/healthz', '/.well-known/'];

self.addEventListener('install', (event) => {
  event.waitUntil(caches.open(CACHE).then((c) => c.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  // A new version replaces the old shell cleanly: drop every other cache, take over open pages.
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('pd-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener('fetch', (event) => {
  const req = event.request;
  const url = new URL(req.url);
  if (req.method !== 'GET' || url.origin !== self.location.origin) return;
  if (NEVER.some((p) => url.pathname.startsWith(p))) return; // network only, never cached
  if (req.mode === 'navigate') {
    event.respondWith(
      fetch(req).catch(() => caches.open(CACHE).then((c) => c.match('/offline.html'))),
    );
    return;
  }
  event.respondWith(caches.open(CACHE).then((c) => c.match(req).then((hit) => hit || fetch(req))));
});

self.addEventListener('push', (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch (e) {
    data = { title: 'petal-dispatch', body: event.data ? event.data.text() : '' };
  }
  const title = data.title || 'petal-dispatch';
  event.waitUntil(
    self.registration.showNotification(title, {
      body: data.body || '',
      tag: data.tag,
      icon: '/icons/icon-192.png',
      badge: '/icons/icon-192.png',
      data: Object.assign({ url: data.url || '/', task_id: data.task_id || null }, data.gate_id ? { gate_id: data.gate_id } : {}),
      actions: Array.isArray(data.actions) ? data.actions.slice(0, 2) : undefined,
      requireInteraction: !!data.gate_id,
    }),
  );
});

// The page hands over its API token (the service worker has no localStorage), kept in a cache entry.
const AUTH_CACHE = 'pd-auth';
const TOKEN_URL = '/__pd/token';
self.addEventListener('message', (event) => {
  const m = event.data || {};
  if (m.type !== 'pd-token') return;
  event.waitUntil(
    m.token ? caches.open(AUTH_CACHE).then((c) => c.put(TOKEN_URL, new Response(m.token))) : caches.delete(AUTH_CACHE),
  );
});

async function savedToken() {
  const hit = await (await caches.open(AUTH_CACHE)).match(TOKEN_URL);
  return hit ? hit.text() : null;
}

/** Posts a gate decision; true when it was recorded (or someone decided first). */
async function decideGate(gateId, decision) {
  const token = await savedToken();
  const headers = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  try {
    const res = await fetch(`/api/gates/${encodeURIComponent(gateId)}/decision`, {
      method: 'POST',
      headers,
      credentials: 'same-origin',
      body: JSON.stringify({ decision, via: 'push' }),
    });
    return res.ok || res.status === 409;
  } catch (e) {
    return false;
  }
}

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const gateId = event.notification.data && event.notification.data.gate_id;
  if (gateId && (event.action === 'approve' || event.action === 'deny')) {
    // Decided from the lock screen; if it cannot be recorded, open the app where the gate waits.
    const decision = event.action;
    event.waitUntil(
      decideGate(gateId, decision).then((ok) =>
        ok ? undefined : self.clients.openWindow(new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin).href),
      ),
    );
    return;
  }
  const target = new URL((event.notification.data && event.notification.data.url) || '/', self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: 'window', includeUncontrolled: true }).then((wins) => {
      for (const w of wins) {
        if ('focus' in w) return w.navigate(target).then((c) => (c || w).focus());
      }
      return self.clients.openWindow(target);
    }),
  );
});
