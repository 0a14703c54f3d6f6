// Start a task from the client: a brief (and an optional approach) for one project, checked
// before sending; POST /api/tasks journals and enqueues it, and the Tasks view shows it run.
import * as v from 'valibot';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { api, ApiError } from '../api.ts';
import { fire } from '../events.ts';
import { TaskSchema } from '../schemas.ts';
import { store } from '../store.ts';

const BriefSchema = v.pipe(v.string(), v.trim(), v.minLength(1, 'say what the task is'), v.maxLength(100_000, 'at most 100 000 characters'));

/**
 * @fires pd-task-created - the task was submitted (detail: its id)
 * @fires pd-close - the person closed the form
 */
@customElement('pd-new-task')
export class PdNewTask extends LitElement {
  /** The project the task belongs to. */
  @property() project = '';
  @state() private _error = '';
  @state() private _busy = false;

  static override styles = css`
    :host { display: block; }
    form { display: grid; gap: 0.55rem; background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 10px; padding: 0.75rem; margin-bottom: 0.75rem; }
    h2 { margin: 0; font-size: 1rem; overflow-wrap: anywhere; }
    label { display: grid; gap: 0.2rem; font-size: 0.85rem; font-weight: 600; }
    textarea, input { box-sizing: border-box; width: 100%; font: inherit; padding: 0.5rem; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); }
    input { min-height: 44px; }
    textarea { min-height: 5rem; resize: vertical; }
    .row { display: flex; gap: 0.5rem; }
    button { min-height: 44px; padding: 0 1rem; border-radius: 10px; font: inherit; font-weight: 700; cursor: pointer; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); }
    button[type='submit'] { background: var(--pd-accent-strong, var(--pd-accent)); color: var(--pd-on-color, #fff); border: none; }
    .error { color: var(--pd-failed-text, var(--pd-failed)); font-weight: 600; }
  `;

  override render() {
    const p = store.projects.get(this.project);
    return html`<form @submit=${this.submit} aria-label="new task" novalidate>
      <h2>New task${p ? html` in <span title=${p.name}>${p.name}</span>` : nothing}</h2>
      <label>Brief <textarea name="brief" required placeholder="What should the worker do?"></textarea></label>
      <label>Approach <input name="approach" autocomplete="off" placeholder="optional: how" /></label>
      ${this._error ? html`<p class="error" role="alert" data-testid="task-error">${this._error}</p>` : nothing}
      <div class="row">
        <button type="submit" ?disabled=${this._busy || !p}>Start task</button>
        <button type="button" @click=${() => fire(this, 'pd-close')}>Close</button>
      </div>
    </form>`;
  }

  private async submit(e: Event): Promise<void> {
    e.preventDefault();
    const form = e.target as HTMLFormElement;
    const f = new FormData(form);
    const brief = v.safeParse(BriefSchema, String(f.get('brief') ?? ''));
    if (!brief.success) return void (this._error = `Brief: ${brief.issues[0].message}`);
    const approach = String(f.get('approach') ?? '').trim();
    this._error = '';
    this._busy = true;
    try {
      const task = await api(TaskSchema, '/api/tasks', {
        method: 'POST',
        body: { project_id: this.project, brief: brief.output, ...(approach ? { approach } : {}) },
      });
      form.reset();
      fire(this, 'pd-task-created', task.id);
    } catch (err) {
      this._error = err instanceof ApiError ? err.message : String(err);
    } finally {
      this._busy = false;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-new-task': PdNewTask;
  }
}
