// A gate reaches the person everywhere: a Web Push per gate (through a loopback push service) whose
// notification offers Approve and Deny; the Approve action, triggered inside the service worker,
// records the decision and the worker resumes; the "Needs you" list of a second open client follows
// live, without a reload.
import fs from 'node:fs';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { ARGS, CHROMIUM, SHOWS_NOTIFICATIONS, launch, open, shot } from '../helpers/browser.ts';
import { waitFor } from '../helpers/db.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';
import { startPushService, type PushService } from '../helpers/push-service.ts';
import { tempDir } from '../helpers/teardown.ts';

const scenario: Scenario = {
  name: 'gates-client',
  description: '',
  conversations: [
    { match: 'ENV-DONE', steps: [{ text: JSON.stringify({ goal: 'write the env file', current_state: 'written', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    {
      match: 'Write the env file',
      steps: [
        { text: 'Writing it.', tool_use: { name: 'Bash', input: { command: 'echo API_KEY=placeholder > .env', description: 'write .env' } } },
        { text: 'ENV-DONE: the env file is written.', chunks: 1, delay_ms: 0 },
      ],
    },
  ],
};

let loop: Loop;
let push: PushService;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario] });
  push = await startPushService();
});

interface Pushed {
  title: string;
  body: string;
  tag: string;
  url: string;
  gate_id: string;
  status: string;
  actions: { action: string; title: string }[];
}

describe('a gate on the phone', () => {
  it('is pushed with Approve and Deny; Approve from the notification resumes the worker; a second client\'s list follows live', async () => {
    const url = loop.url!;
    // A device subscribed to gates (the push service stands in for the browser vendor's).
    const key = ((await (await fetch(`${url}/api/push/key`)).json()) as { public_key: string }).public_key;
    const sub = await push.subscribe(key);
    const res = await fetch(`${url}/api/push/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ subscription: { endpoint: sub.endpoint, keys: sub.keys }, statuses: ['gate_requested'], device: 'test phone' }),
    });
    expect(res.status).toBe(201);

    // The phone: a persistent profile, so the service worker is installed and controls the page.
    const profile = tempDir('pd-chromium-');
    const phone = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, args: ARGS, headless: true, viewport: { width: 390, height: 844 } });
    // The second client: another browser, open on the app the whole time.
    const browser = await launch();
    const desk = await open(await browser.newContext(), `${url}/`);
    try {
      await phone.grantPermissions(['notifications'], { origin: url });
      const page = phone.pages()[0] ?? (await phone.newPage());
      const cdp = await phone.newCDPSession(page);
      const registration = new Promise<string>((resolve) => {
        cdp.on('ServiceWorker.workerRegistrationUpdated', (e: { registrations: { registrationId: string; scopeURL: string }[] }) => {
          const r = e.registrations.find((x) => x.scopeURL.startsWith(url));
          if (r) resolve(r.registrationId);
        });
      });
      await cdp.send('ServiceWorker.enable');
      await page.goto(`${url}/`);
      await page.evaluate(async () => {
        await navigator.serviceWorker.ready;
      });
      const registrationId = await registration;
      const worker = await waitFor(() => phone.serviceWorkers().find((w) => w.url().startsWith(url)), Boolean, { what: 'the service worker' });
      await worker!.evaluate(() => {
        const sw = self as unknown as {
          __shown: unknown[];
          __platform: string[];
          registration: { showNotification: (t: string, o: NotificationOptions) => Promise<void> };
        };
        sw.__shown = [];
        sw.__platform = [];
        const real = sw.registration.showNotification.bind(sw.registration);
        sw.registration.showNotification = async (title: string, o: NotificationOptions & { actions?: unknown }) => {
          sw.__shown.push({ title, body: o.body, tag: o.tag, data: o.data as unknown, actions: o.actions, requireInteraction: o.requireInteraction });
          // What the platform answered: 'shown', or why it refused (the headless shell has no
          // notification platform, so there a refusal is expected).
          await real(title, o).then(() => sw.__platform.push('shown'), (e: unknown) => sw.__platform.push(`refused: ${String(e)}`));
        };
      });

      const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('phone gates', '{"allowed_tools":["Bash"]}') as id`;
      const taskId = await loop.submit(p!.id, 'Write the env file with a placeholder key.');
      await loop.waitTask(taskId, 'gated', 60_000);

      // The push arrives, naming what will run, the category, the task and the project.
      const [raw] = await waitFor(() => push.messages(sub.clientHash), (m) => m.length >= 1, { timeout: 30_000, what: 'the gate push' });
      const pushed = JSON.parse(raw as string) as Pushed;
      expect(pushed.title).toBe('Approve? Bash: echo API_KEY=placeholder > .env');
      expect(pushed.body).toContain('secrets');
      expect(pushed.body).toContain('Task: Write the env file');
      expect(pushed.body).toContain('Project: phone gates');
      expect(pushed.actions).toEqual([{ action: 'approve', title: 'Approve' }, { action: 'deny', title: 'Deny' }]);

      // Both clients show it under "Approve or deny" (not a second "Needs you" box), with the exact command.
      for (const pg of [page, desk.page]) {
        await pg.locator('pd-gates li').filter({ hasText: 'echo API_KEY=placeholder > .env' }).waitFor({ timeout: 20_000 });
        expect(await pg.locator('pd-gates h2').innerText()).toBe('Approve or deny · 1 waiting');
      }
      await shot(page, 'phone-needs-you');

      // The service worker shows it with its two actions.
      await cdp.send('ServiceWorker.deliverPushMessage', { origin: new URL(url).origin, registrationId, data: raw as string });
      const [shown] = await waitFor(() => worker!.evaluate(() => (self as unknown as { __shown: unknown[] }).__shown), (l) => l.length > 0, {
        what: 'the notification',
      });
      expect(shown).toMatchObject({
        title: pushed.title,
        tag: `gate:${pushed.gate_id}`,
        data: { gate_id: pushed.gate_id },
        actions: [{ action: 'approve', title: 'Approve' }, { action: 'deny', title: 'Deny' }],
        requireInteraction: true,
      });
      if (SHOWS_NOTIFICATIONS) {
        // The platform took it: showNotification resolved. (Reading it back with getNotifications()
        // is not used: in headless Chromium the list is sometimes still empty seconds after the
        // platform accepted the notification, a browser race the app cannot act on.)
        const [answer] = await waitFor(() => worker!.evaluate(() => (self as unknown as { __platform: string[] }).__platform), (l) => l.length > 0, {
          what: "the platform's answer to showNotification",
        });
        expect(answer).toBe('shown');
      }

      // Approve, as a tap on the lock screen's button would: a notificationclick with action "approve".
      await worker!.evaluate((data) => {
        const Extendable = (self as unknown as { ExtendableEvent: typeof Event }).ExtendableEvent;
        const e = new Extendable('notificationclick');
        Object.defineProperty(e, 'action', { value: 'approve' });
        Object.defineProperty(e, 'notification', { value: { data, close() {} } });
        self.dispatchEvent(e);
      }, { gate_id: pushed.gate_id, url: pushed.url });

      const [gate] = await waitFor(
        () => loop.db.sql<{ status: string; decided_via: string }[]>`select status, decided_via from dispatch.gates where id = ${pushed.gate_id}`,
        (r) => r[0]?.status !== 'open',
        { what: 'the decision from the notification' },
      );
      expect(gate).toEqual({ status: 'approved', decided_via: 'push' });

      // The second client's list empties live; the worker resumes and the task ends with its handoff.
      await desk.page.locator('pd-gates li').waitFor({ state: 'detached', timeout: 20_000 });
      await loop.waitTask(taskId, 'success', 60_000);
      const decided = await loop.db.sql`select 1 from dispatch.events where event_type = 'gate.decided' and payload->>'gate_id' = ${pushed.gate_id}`;
      expect(decided).toHaveLength(1);
    } finally {
      await phone.close();
      fs.rmSync(profile, { recursive: true, force: true });
    }
  });
});
