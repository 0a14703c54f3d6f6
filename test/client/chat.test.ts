// The Chat view on a phone over a long conversation: only the bubbles on screen exist, the newest
// is at the bottom and stays in view as messages arrive, scrolling up holds the view still and
// counts what arrived ("↓ N new" jumps back), and Send always scrolls to the new message.
import { randomUUID } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { startBrowserApp, type BrowserApp } from '../helpers/browser-app.ts';
import { open, shot } from '../helpers/browser.ts';

let t: BrowserApp;
beforeAll(async () => {
  t = await startBrowserApp();
});

/** Whether the element is on screen, inside its scrolling list (an IntersectionObserver's answer). */
async function inView(l: Locator): Promise<boolean> {
  if (!(await l.count())) return false;
  return l.first().evaluate(
    (el) =>
      new Promise<boolean>((resolve) => {
        const io = new IntersectionObserver(([e]) => {
          io.disconnect();
          resolve(e!.intersectionRatio > 0.5);
        });
        io.observe(el);
      }),
  );
}

const bubble = (page: Page, text: string) => page.locator('pd-chat li.user', { hasText: new RegExp(`^${text}(?!\\d)`) });

describe('the chat', () => {
  it('over 400 messages draws only what is on screen, pinned to the newest; scrolled up it counts new ones, and Send jumps to the sent one', async () => {
    const sql = t.db.sql;
    const [p] = await sql<{ id: string }[]>`select dispatch.create_project('long talk') as id`;
    for (let i = 0; i < 400; i++) await sql`select * from dispatch.post_user_message(${p!.id}, ${`note ${i}`}, ${randomUUID()})`;

    const ctx = await t.browser.newContext({ viewport: { width: 390, height: 844 } });
    await ctx.addInitScript((id) => localStorage.setItem('pd.project', id), p!.id);
    const { page } = await open(ctx, `${t.url}/#/chat`);
    await expect.poll(() => inView(bubble(page, 'note 399')), { timeout: 30_000 }).toBe(true);
    // Virtualised: a few dozen bubbles exist, not 400.
    const drawn = await page.locator('pd-chat li.user').count();
    expect(drawn).toBeGreaterThan(3);
    expect(drawn).toBeLessThan(80);

    // Scrolled up, the view holds still while messages arrive, and says how many.
    await page.locator('pd-chat lit-virtualizer').hover();
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -600);
    await expect.poll(() => inView(bubble(page, 'note 399'))).toBe(false);
    for (let i = 400; i < 403; i++) await sql`select * from dispatch.post_user_message(${p!.id}, ${`note ${i}`}, ${randomUUID()})`;
    const jump = page.getByTestId('jump-new');
    await jump.filter({ hasText: '↓ 3 new' }).waitFor({ timeout: 30_000 });
    expect(await inView(bubble(page, 'note 402'))).toBe(false);
    await shot(page, 'phone-chat-new');
    await jump.click();
    await expect.poll(() => inView(bubble(page, 'note 402'))).toBe(true);
    await jump.waitFor({ state: 'detached' });

    // Pinned again: the next message comes into view by itself.
    await sql`select * from dispatch.post_user_message(${p!.id}, ${'note 403'}, ${randomUUID()})`;
    await expect.poll(() => inView(bubble(page, 'note 403'))).toBe(true);

    // Scrolled up again, Send brings the sent message into view.
    await page.locator('pd-chat lit-virtualizer').hover();
    for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -600);
    await expect.poll(() => inView(bubble(page, 'note 403'))).toBe(false);
    await page.locator('textarea').fill('note 404 from the phone');
    await page.getByRole('button', { name: 'send message' }).click();
    await expect.poll(() => inView(bubble(page, 'note 404'))).toBe(true);
    await bubble(page, 'note 404').and(page.locator('[data-state="pending"]')).waitFor({ timeout: 30_000 });
    expect(await jump.count()).toBe(0);
    await ctx.close();
  });
});
