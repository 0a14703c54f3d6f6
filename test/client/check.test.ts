// The project's check on a phone (390×844), the real CLI against the scripted model: a task of a
// project without a check reads "unverified"; the project form adds a check; a worker that claimed
// success without the work reads "check passed ✓ N s" with its history (attempt 1 failed → attempt 2
// passed) and its handoff's evidence names the file it claimed but never wrote; a worker whose fix
// changed nothing reads "stuck" with the check's output (inert) one tap away and is in Needs you,
// its Merge is refused as not verified and Merge anyway merges.
import type { Browser, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { launch, open, shot } from '../helpers/browser.ts';
import { eventsOf, startLoop, type Loop } from '../helpers/loop.ts';
import { makeRepo, type TestRepo } from '../helpers/repo.ts';

const text = (t: string) => ({ text: t, chunks: 1, delay_ms: 0 });
const handoff = (marker: string, extra: Record<string, unknown> = {}): Scenario['conversations'][number] => ({
  match: marker,
  steps: [text(JSON.stringify({ goal: 'g', current_state: 'done', ruled_out: [], ...extra }))],
});
const xss = '<img src=x onerror=window.__xss=1>';
const scenarios: Scenario[] = [
  {
    name: 'phone-check',
    description: '',
    conversations: [
      handoff('PLAIN-DONE'),
      handoff('FIXED-DONE', { artifacts: [{ kind: 'file', ref: 'done.txt' }, { kind: 'file', ref: 'never-written.txt' }] }),
      { match: 'Plain task', steps: [{ tool_use: { name: 'Write', input: { file_path: 'plain.txt', content: 'plain\n' } } }, text('PLAIN-DONE: written.')] },
      {
        match: 'Create the done file',
        steps: [text('All done, every test passes.'), { tool_use: { name: 'Write', input: { file_path: 'done.txt', content: 'done\n' } } }, text('FIXED-DONE: created it.')],
      },
      {
        match: 'Stubborn task',
        steps: [{ tool_use: { name: 'Write', input: { file_path: 'stub.txt', content: 'stub\n' } } }, text('Done.'), text('Fixed it, honestly.')],
      },
    ],
  },
];

let loop: Loop;
let browser: Browser;
let repo: TestRepo;
beforeAll(async () => {
  loop = await startLoop({ scenarios, serve: true });
  browser = await launch();
  repo = makeRepo({ 'README.md': '# check\n' });
});

const checkLine = (page: Page) => page.locator('pd-task-detail pd-check [data-testid=check]');

describe('the check of a task on a phone', () => {
  it('reads unverified, then passed with its history, stuck with its output, and Merge waits for green until Merge anyway', async () => {
    const p = await loop.project('phone check', { repo: repo.dir, allowed_tools: ['Write', 'Read'] });
    const plain = await loop.submit(p, 'Plain task: write plain.txt.');
    await loop.waitTask(plain, 'success');

    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    // A refused merge (409) is logged by Chromium as a failed resource: the only error allowed here.
    const { page, errors } = await open(ctx, `${loop.url}/#/task/${plain}`, { allowErrors: true });
    await checkLine(page).filter({ hasText: 'unverified' }).waitFor({ timeout: 15_000 });

    // The project form adds the check: a command line read as words, its timeout and fixes.
    await page.locator('select#project').selectOption(p);
    await page.getByTestId('project-settings').click();
    const form = page.locator('pd-project-form');
    await form.locator('input[name=verify]').fill(`sh -c "test -f done.txt || { echo 'CHECK-OUTPUT ${xss}'; exit 3; }"`);
    await form.getByLabel('Check timeout (s)').fill('30');
    await form.getByLabel('Fixes allowed').fill('2');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.waitFor({ state: 'detached' });
    const [row] = await loop.db.sql<{ config: Record<string, unknown> }[]>`select config from dispatch.projects where id = ${p}`;
    expect(row!.config.verify).toEqual({ command: ['sh', '-c', `test -f done.txt || { echo 'CHECK-OUTPUT ${xss}'; exit 3; }`], timeout_s: 30, max_fix_attempts: 2 });
    // Opened again, the form shows the check as it was typed.
    await page.getByTestId('project-settings').click();
    expect(await form.locator('input[name=verify]').inputValue()).toBe(`sh -c "test -f done.txt || { echo 'CHECK-OUTPUT ${xss}'; exit 3; }"`);
    await form.getByRole('button', { name: 'Close' }).click();

    // A worker that claims success without the work: sent back, fixes it, passes.
    const claims = await loop.submit(p, 'Create the done file.');
    await loop.waitTask(claims, 'success');
    await page.goto(`${loop.url}/#/task/${claims}`);
    await checkLine(page).filter({ hasText: /check passed ✓ \d+ s/ }).waitFor({ timeout: 15_000 });
    expect(await page.locator('pd-check [data-testid=check-history]').innerText()).toBe('attempt 1 failed → attempt 2 passed');
    expect(await page.locator('pd-check [data-testid=check-output]').count()).toBe(0);
    // The handoff's evidence is the system's: the verdict, the change, a claimed file it lacks.
    await page.getByTestId('evidence').waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('evidence').innerText()).toMatch(/^check passed · 1 file \+1 −0\s+claimed, not in the change: never-written\.txt$/);

    // A stubborn worker: its fix changes nothing → stuck, the output one tap away, as text.
    const stubborn = await loop.submit(p, 'Stubborn task: create the done file.');
    const done = await loop.waitTask(stubborn, ['failed', 'success']);
    expect(done).toMatchObject({ status: 'failed', status_reason: 'stuck: the fix changed nothing' });
    await page.goto(`${loop.url}/#/task/${stubborn}`);
    await checkLine(page).filter({ hasText: 'check failed (exit 3)' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('pd-check [data-testid=stuck]').innerText()).toBe('stuck');
    expect(await page.locator('pd-check [data-testid=check-history]').innerText()).toBe('attempt 1 failed → attempt 2 failed');
    await page.locator('pd-check summary').click();
    const output = page.locator('pd-check [data-testid=check-output]');
    await output.waitFor();
    expect(await output.innerText()).toContain(`CHECK-OUTPUT ${xss}`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    // It is a person's to look at: Needs you counts it.
    await page.locator('[data-chip=needs-you]').filter({ hasText: '1 needs you' }).waitFor({ timeout: 15_000 });
    await shot(page, 'phone-check-stuck');

    // Merge waits for green: refused with the reason, then Merge anyway (journalled as forced).
    await page.locator('pd-diff button[data-action=merge]').click();
    await page.getByTestId('diff-refusal').filter({ hasText: 'the last check failed (exit 3)' }).waitFor();
    await page.locator('pd-diff button[data-action=force-merge]').click();
    await page.getByTestId('diff-state').filter({ hasText: 'merged' }).waitFor({ timeout: 20_000 });
    const [req] = (await eventsOf(loop.db, stubborn)).filter((e) => e.event_type === 'workspace.merge_requested').map((e) => e.payload);
    expect(req).toMatchObject({ forced: true, verify: { passed: false, exit_code: 3 } });
    expect(repo.read('stub.txt')).toBe('stub\n');
    expect(errors.filter((e) => !/status of 409/.test(e))).toEqual([]);
  }, 360_000);
});
