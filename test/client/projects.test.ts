// A new user on a phone: creates a project and edits its config from the client (validated on both
// sides), starts a task, and sees the worker run to success — the real CLI against the scripted model.
import type { Browser } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Scenario } from '../../fixtures/scripted-model/server.ts';
import { launch, open, shot } from '../helpers/browser.ts';
import { startLoop, type Loop } from '../helpers/loop.ts';

const say = (text: string, chunks = 1, delay_ms = 0) => ({ text, chunks, delay_ms });
const scenario: Scenario = {
  name: 'phone-projects',
  description: '',
  conversations: [
    { match: 'handoff extractor of petal-dispatch', steps: [say(JSON.stringify({ goal: 'Say hello', current_state: 'Said hello', next_step: 'Rest', ruled_out: [] }))] },
    { match: 'Say hello from the phone', steps: [say('Hello from the worker, started on a phone.', 6, 250)] },
  ],
};

let loop: Loop;
let browser: Browser;
beforeAll(async () => {
  loop = await startLoop({ scenarios: [scenario], serve: true });
  browser = await launch();
});

describe('projects and tasks from the phone', () => {
  it('creates a project, edits its config, starts a task and sees the worker run to success', async () => {
    const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const { page, errors } = await open(ctx, loop.url!, { allowErrors: true });
    await page.getByTestId('new-project').click();
    const form = page.locator('pd-project-form form');
    // Refused in the client: no name, a tool name that is not one.
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByTestId('project-error').filter({ hasText: 'Name' }).waitFor();
    await form.getByLabel('Name').fill('phone project');
    await form.getByLabel('Allowed tools').fill('Bash, <script>');
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByTestId('project-error').filter({ hasText: 'Allowed tools' }).waitFor();
    // Refused by the server: a repository that is not one (the input stays).
    await form.getByLabel('Allowed tools').fill('');
    await form.getByLabel('Git repository').fill('/nonexistent/repo');
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.getByTestId('project-error').waitFor();
    expect(await form.getByLabel('Name').inputValue()).toBe('phone project');
    await form.getByLabel('Git repository').fill('');
    await form.getByRole('button', { name: 'Create project' }).click();
    await page.locator('pd-project-form').waitFor({ state: 'detached' });
    const [p] = await loop.db.sql<{ id: string; config: Record<string, unknown> }[]>`select id, config from dispatch.projects where name = 'phone project'`;
    expect(p!.config).toEqual({ allowed_tools: [], mode: 'interactive' });
    // The picker now shows the new project, and every view is scoped to it.
    await page.locator(`select#project option[value="${p!.id}"]`).waitFor({ state: 'attached' });
    expect(await page.locator('select#project').inputValue()).toBe(p!.id);

    // Edit its config: the model, and back to the list.
    await page.getByTestId('project-settings').click();
    await page.locator('pd-project-form').getByLabel('Model').fill('sonnet');
    await page.locator('pd-project-form').getByRole('button', { name: 'Save' }).click();
    await page.locator('pd-project-form').waitFor({ state: 'detached' });
    const [edited] = await loop.db.sql<{ config: Record<string, unknown> }[]>`select config from dispatch.projects where id = ${p!.id}`;
    expect(edited!.config).toEqual({ allowed_tools: [], mode: 'interactive', model: 'sonnet' });
    const [journalled] = await loop.db.sql`select 1 from dispatch.events where project_id = ${p!.id} and event_type = 'project.updated'`;
    expect(journalled).toBeTruthy();
    // The scripted model answers whatever model is asked for; drop it again so the CLI does not pick a real one.
    await page.getByTestId('project-settings').click();
    await page.locator('pd-project-form').getByLabel('Model').fill('');
    await page.locator('pd-project-form').getByRole('button', { name: 'Save' }).click();
    await page.locator('pd-project-form').waitFor({ state: 'detached' });

    // Start a task: an empty brief is refused, then the worker runs to success.
    await page.getByTestId('new-task').click();
    const task = page.locator('pd-new-task form');
    await task.getByRole('button', { name: 'Start task' }).click();
    await page.getByTestId('task-error').waitFor();
    await task.getByLabel('Brief').fill('Say hello from the phone.');
    await shot(page, 'phone-new-task');
    await task.getByRole('button', { name: 'Start task' }).click();
    await page.locator('pd-new-task').waitFor({ state: 'detached' });
    const [t] = await loop.db.sql<{ id: string }[]>`select id from dispatch.tasks where project_id = ${p!.id}`;
    const card = page.locator(`li[data-task="${t!.id}"]`);
    await card.locator('[data-status="running"], [data-status="success"]').first().waitFor({ timeout: 30_000 });
    await card.locator('[data-status="success"]').waitFor({ timeout: 60_000 });
    await card.locator('button.open').click();
    await page.locator('pd-task-detail pd-journal-line', { hasText: 'Hello from the worker' }).first().waitFor({ timeout: 30_000 });
    await shot(page, 'phone-task-from-phone');
    // The refused repository answered 400 on purpose; a task without a repository has no workspace (404).
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
    await ctx.close();
  });
});
