// Create a project, or edit one: name, working directory or git repository, mode, allowed tools,
// model and the project's check (config.verify: a command line read as its words, its timeout and
// how many fixes a failing check gets), checked with the client side of the config contract before sending and by the
// server after (its 4xx message is shown next to the form, the input kept).
import * as v from 'valibot';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { api, ApiError } from '../api.ts';
import { fire } from '../events.ts';
import { ProjectConfigSchema, ProjectSchema } from '../schemas.ts';
import { store } from '../store.ts';
import { textOf, wordsOf } from '../command-words.ts';

const NameSchema = v.pipe(v.string(), v.trim(), v.minLength(1, 'a name is needed'), v.maxLength(200, 'at most 200 characters'));
const ToolSchema = v.pipe(v.string(), v.regex(/^[A-Za-z0-9_*().:\-\s/]+$/, 'tool names are letters, digits and _ * ( ) . : - /'));

/**
 * @fires pd-project-saved - the project was created or changed (detail: its id)
 * @fires pd-close - the person closed the form
 */
@customElement('pd-project-form')
export class PdProjectForm extends LitElement {
  /** The project to edit; empty to create one. */
  @property() project = '';
  @state() private _error = '';
  @state() private _busy = false;

  static override styles = css`
    :host { display: block; }
    form { display: grid; gap: 0.55rem; background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 10px; padding: 0.75rem; }
    h2 { margin: 0; font-size: 1rem; }
    label { display: grid; gap: 0.2rem; font-size: 0.85rem; font-weight: 600; }
    .hint { font-weight: 400; color: var(--pd-muted); font-size: 0.8rem; }
    input, select { min-height: 44px; box-sizing: border-box; font: inherit; padding: 0 0.5rem; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); width: 100%; }
    .row { display: flex; gap: 0.5rem; flex-wrap: wrap; }
    button { min-height: 44px; padding: 0 1rem; border-radius: 10px; font: inherit; font-weight: 700; cursor: pointer; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); }
    button[type='submit'] { background: var(--pd-accent-strong, var(--pd-accent)); color: var(--pd-on-color, #fff); border: none; }
    .error { color: var(--pd-failed-text, var(--pd-failed)); font-weight: 600; }
  `;

  override render() {
    const p = this.project ? store.projects.get(this.project) : undefined;
    const c = (p?.config ?? {}) as v.InferOutput<typeof ProjectConfigSchema>;
    return html`<form @submit=${this.submit} aria-label=${p ? `settings of project ${p.name}` : 'new project'} novalidate>
      <h2>${p ? `Project “${p.name}”` : 'New project'}</h2>
      <label>Name <input name="name" required maxlength="200" .value=${p?.name ?? ''} autocomplete="off" /></label>
      <label>Working directory <span class="hint">where workers run (a path on the server)</span>
        <input name="cwd" .value=${c.cwd ?? ''} autocomplete="off" placeholder="/home/me/code/app" /></label>
      <label>Git repository <span class="hint">optional: each task then works in its own worktree</span>
        <input name="repo" .value=${c.repo ?? ''} autocomplete="off" /></label>
      <label>Mode <select name="mode">
        ${['interactive', 'autonomous'].map((m) => html`<option value=${m} ?selected=${(c.mode ?? 'interactive') === m}>${m}</option>`)}
      </select></label>
      <label>Allowed tools <span class="hint">comma-separated, e.g. Bash, Read, Edit; empty: none</span>
        <input name="allowed_tools" .value=${(c.allowed_tools ?? []).join(', ')} autocomplete="off" /></label>
      <label>Model <span class="hint">optional, e.g. sonnet</span><input name="model" .value=${c.model ?? ''} autocomplete="off" /></label>
      <label>Check <span class="hint">optional: the command that says the work is done, run after every worker, e.g. npm test (words split on spaces, "quoted words" kept whole; sh -c "…" for a shell)</span>
        <input name="verify" .value=${c.verify ? textOf(c.verify.command) : ''} autocomplete="off" spellcheck="false" /></label>
      <div class="row">
        <label>Check timeout (s) <input name="verify_timeout" type="number" inputmode="numeric" min="1" .value=${String(c.verify?.timeout_s ?? '')} placeholder="600" /></label>
        <label>Fixes allowed <input name="verify_fixes" type="number" inputmode="numeric" min="0" max="10" .value=${String(c.verify?.max_fix_attempts ?? '')} placeholder="2" /></label>
      </div>
      ${this._error ? html`<p class="error" role="alert" data-testid="project-error">${this._error}</p>` : nothing}
      <div class="row">
        <button type="submit" ?disabled=${this._busy}>${p ? 'Save' : 'Create project'}</button>
        <button type="button" @click=${() => fire(this, 'pd-close')}>Close</button>
      </div>
    </form>`;
  }

  private async submit(e: Event): Promise<void> {
    e.preventDefault();
    const f = new FormData(e.target as HTMLFormElement);
    const text = (k: string) => String(f.get(k) ?? '').trim();
    const name = v.safeParse(NameSchema, text('name'));
    if (!name.success) return void (this._error = `Name: ${name.issues[0].message}`);
    const tools = text('allowed_tools') ? text('allowed_tools').split(',').map((t) => t.trim()).filter(Boolean) : [];
    for (const t of tools) {
      const ok = v.safeParse(ToolSchema, t);
      if (!ok.success) return void (this._error = `Allowed tools: ${ok.issues[0].message}`);
    }
    const existing = this.project ? store.projects.get(this.project)?.config ?? {} : {};
    const config: Record<string, unknown> = { ...existing, allowed_tools: tools, mode: text('mode') || 'interactive' };
    for (const k of ['cwd', 'repo', 'model'] as const) {
      if (text(k)) config[k] = text(k);
      else delete config[k];
    }
    if (text('verify')) {
      let command: string[];
      try {
        command = wordsOf(text('verify'));
      } catch (err) {
        return void (this._error = `Check: ${(err as Error).message}`);
      }
      const verify: Record<string, unknown> = { command };
      for (const [k, field] of [['verify_timeout', 'timeout_s'], ['verify_fixes', 'max_fix_attempts']] as const) {
        if (text(k)) verify[field] = Number(text(k));
      }
      config.verify = verify;
    } else {
      delete config.verify;
    }
    const checked = v.safeParse(ProjectConfigSchema, config);
    if (!checked.success) return void (this._error = `Config: ${checked.issues[0].message}`);
    this._error = '';
    this._busy = true;
    try {
      const saved = this.project
        ? await api(ProjectSchema, `/api/projects/${this.project}`, { method: 'PATCH', body: { name: name.output, config } })
        : await api(ProjectSchema, '/api/projects', { method: 'POST', body: { name: name.output, config } });
      fire(this, 'pd-project-saved', saved.id);
    } catch (err) {
      this._error = err instanceof ApiError ? err.message : String(err);
    } finally {
      this._busy = false;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-project-form': PdProjectForm;
  }
}
