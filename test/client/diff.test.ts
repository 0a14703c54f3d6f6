// The diff of a task in a real browser at a phone viewport (390×844): readable (files with +/-,
// the patch as inert text, nothing wider than the screen), Merge works, and a second client sees
// the merge — and the glance header's "changes waiting" count drop — without a reload. The chip
// opens the tasks with a change waiting, their cards mark it, and Discard asks for a second tap.
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { listen, startTestApp } from '../helpers/app.ts';
import { launch, open, shot } from '../helpers/browser.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo, numbered, type TestRepo } from '../helpers/repo.ts';

const html = `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`;
const scenario: Scenario = {
  name: 'diff',
  description: '',
  conversations: [
    { match: 'handoff extractor', steps: [{ text: JSON.stringify({ goal: 'edit', current_state: 'edited', ruled_out: [] }), chunks: 1, delay_ms: 0 }] },
    {
      match: 'Touch up the notes',
      steps: [
        { tool_use: { name: 'Bash', input: { command: `sed -i 's/^line 3$/line 3, touched up/' notes.txt && printf '%s\\n' '${html}' >> notes.txt`, description: 'edit' } } },
        { text: 'Touched up the notes.', chunks: 1, delay_ms: 0 },
      ],
    },
  ],
};

let loop: Loop;
let url: string;
let repo: TestRepo;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario] });
  url = (await listen(await startTestApp({}, loop.db))).url;
  repo = makeRepo({ 'notes.txt': numbered(5) });
});

const changes = (page: Page) => page.locator('[data-chip=changes]');

describe('the diff of a task on a phone', () => {
  it('is readable, Merge works, and a second client sees the merge without reload', async () => {
    const config = JSON.stringify({ repo: repo.dir, allowed_tools: ['Bash'] });
    const [p] = await loop.db.sql<{ id: string }[]>`select dispatch.create_project('diff', ${config}::text::jsonb) as id`;
    const taskId = await loop.submit(p!.id, 'Touch up the notes.');
    await loop.waitTask(taskId, 'success');

    const browser = await launch();
    const phone = { viewport: { width: 390, height: 844 } };
    const a = await open(await browser.newContext(phone), `${url}/#/task/${taskId}`);
    const b = await open(await browser.newContext(phone), `${url}/#/task/${taskId}`);

    for (const { page } of [a, b]) {
      await page.getByTestId('diff-state').filter({ hasText: 'waiting for you' }).waitFor({ timeout: 15_000 });
      await changes(page).filter({ hasText: '1 change waiting' }).waitFor();
    }
    const page = a.page;
    expect(await page.getByTestId('diff-summary').innerText()).toBe('1 file · +2 −1');
    expect(await page.locator('li[data-file="notes.txt"]').innerText()).toContain('+2');
    const patch = page.getByTestId('patch');
    await patch.locator('.l.add', { hasText: 'line 3, touched up' }).waitFor();
    // The worker's HTML is shown as the text it is, never run.
    expect(await patch.locator('.l.add', { hasText: '<img src=x' }).innerText()).toBe(`+${html}`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    // Readable on the phone: nothing scrolls sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot(page, 'phone-diff');

    // Discard asks for a second tap, like Cancel: one tap only arms it, and it disarms by itself.
    const discard = page.locator('pd-diff button[data-action=discard]');
    await discard.click();
    await discard.filter({ hasText: 'Tap again to discard' }).waitFor();
    await discard.filter({ hasText: /^Discard$/ }).waitFor({ timeout: 10_000 });
    await page.getByTestId('diff-state').filter({ hasText: 'waiting for you' }).waitFor();

    // The chip opens the list of tasks with a change waiting; the task's card marks it.
    await b.page.goto(`${url}/#/tasks`);
    await b.page.locator(`pd-task-list li[data-task="${taskId}"]`).getByTestId('change-waiting').waitFor();
    await changes(b.page).click();
    await b.page.getByTestId('changes-list').locator(`li[data-task="${taskId}"]`, { hasText: 'Touch up the notes.' }).click();
    await b.page.getByTestId('diff-state').filter({ hasText: 'waiting for you' }).waitFor();

    await page.locator('pd-diff button[data-action=merge]').click();
    for (const { page: p } of [a, b]) {
      await p.getByTestId('diff-state').filter({ hasText: 'merged' }).waitFor({ timeout: 20_000 });
      await changes(p).waitFor({ state: 'detached' });
    }
    expect(await b.page.locator('pd-diff button[data-action=merge]').count()).toBe(0);
    expect(repo.read('notes.txt')).toContain('line 3, touched up');
    await shot(b.page, 'phone-diff-merged');
    expect([...a.errors, ...b.errors]).toEqual([]);
  });
});
