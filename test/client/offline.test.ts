// Losing the connection on a phone: one banner says so — "Offline" when the device has no network
// (navigator.onLine, context.setOffline), "Cannot reach the server" when the server is down (the
// event stream's state) — actions that fail meanwhile add one line to it instead of stacking error
// toasts, and the banner goes once the stream is live again, with the view caught up.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { listen } from '../helpers/app.ts';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});

const toasts = (page: Page) => page.locator('pd-toast [role=alert]');

describe('the connection banner', () => {
  it('says offline while the device has no network and the server is unreachable while it is down, without stacking toasts', async () => {
    const sql = t.db.sql;
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('trains and tunnels') as id`;
    const [task] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Read the timetable') as id`;
    const ctx = await t.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), p!.id);
    const { page } = await open(ctx, `http://127.0.0.1:${t.port}`);
    const card = page.locator(`li[data-task="${task!.id}"]`);
    await card.waitFor();
    const banner = page.getByTestId('connection');
    expect(await banner.count()).toBe(0);

    // No network: the banner says so at once.
    await ctx.setOffline(true);
    await banner.and(page.locator('[data-state="offline"]')).waitFor({ timeout: 5000 });
    expect(await banner.innerText()).toMatch(/^Offline — no network/);
    // Two taps that cannot reach the server: one line in the banner, no toasts.
    await card.getByRole('button', { name: 'focus this task' }).click();
    await page.getByTestId('unsent').waitFor();
    await card.getByRole('button', { name: 'focus this task' }).click();
    await shot(page, 'phone-offline');
    expect(await toasts(page).count()).toBe(0);
    expect(await page.getByTestId('unsent').count()).toBe(1);
    // Work goes on meanwhile; back online the banner goes and the view catches up.
    const [later] = await sql<{ id: string }[]>`select dispatch.submit_task(${p!.id}, 'Buy the tickets') as id`;
    await ctx.setOffline(false);
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    await page.locator(`li[data-task="${later!.id}"]`).waitFor({ timeout: 30_000 });

    // The server stops (the network is fine): the banner says the server cannot be reached.
    await t.server.close();
    await banner.and(page.locator('[data-state="reconnecting"]')).waitFor({ timeout: 15_000 });
    expect(await banner.innerText()).toMatch(/^Cannot reach the server/);
    await card.getByRole('button', { name: 'focus this task' }).click();
    await page.getByTestId('unsent').waitFor();
    expect(await toasts(page).count()).toBe(0);
    await shot(page, 'phone-server-down');
    await listen(t, t.port);
    await banner.waitFor({ state: 'detached', timeout: 20_000 });
    // Nothing was focused from the phone while it could not reach the server.
    const [focus] = await sql`select 1 from dispatch.events where event_type = 'focus.changed'`;
    expect(focus).toBeUndefined();
    await ctx.close();
  });
});
