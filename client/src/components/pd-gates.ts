// "Needs you": the open gates, newest first — the exact command or path, the rule's category, the
// task and project — each decided with one tap. Self-contained (its own state module), so it can be
// embedded in any view; it renders nothing when no gate is open.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { gatesState, type Gate } from '../gates-state.ts';
import { fold } from '../needs-you-fold.ts';
import { store } from '../store.ts';

@customElement('pd-gates')
export class PdGates extends LitElement {
  /** Only the gates of this project (all projects when empty). */
  @property({ attribute: 'project-id' }) projectId = '';
  /** Only the gates of this task (on a task's own page, where other gates would push it off the screen). */
  @property({ attribute: 'task-id' }) taskId = '';
  @state() private _busy = new Set<string>();
  @state() private _error = '';
  /** The list's load count when the error was taken: a later load (back online) clears it. */
  private _errorAt = -1;
  private _detach: (() => void) | null = null;
  private readonly _onChange = () => this.requestUpdate();

  static override styles = css`
    :host { display: block; }
    section { border: 2px solid var(--pd-stalled, #b7791f); border-radius: 12px; padding: 0.6rem 0.75rem; margin-bottom: 0.75rem; background: var(--pd-card, #fff); }
    h2 { font-size: 1rem; margin: 0 0 0.4rem; }
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.6rem; }
    li { border-top: 1px solid var(--pd-line, #ddd); padding-top: 0.5rem; }
    li:first-child { border-top: none; padding-top: 0; }
    code { display: block; white-space: pre-wrap; word-break: break-all; font-size: 0.9rem; padding: 0.35rem 0.5rem; border-radius: 6px; background: var(--pd-bg, #f6f6f6); }
    .meta { font-size: 0.85rem; color: var(--pd-muted, #666); margin: 0.25rem 0; }
    .cat { font-weight: 700; color: var(--pd-fg, #111); }
    .actions { display: flex; gap: 0.5rem; }
    button { min-height: 44px; min-width: 6rem; border-radius: 8px; border: 1px solid var(--pd-line, #ccc); font: inherit; font-weight: 700; cursor: pointer; }
    button.approve { background: var(--pd-success, #2f855a); color: #fff; border-color: transparent; }
    button.deny { background: var(--pd-bg, #fff); color: var(--pd-failed, #c53030); }
    button:disabled { opacity: 0.5; cursor: default; }
    button:focus-visible { outline: 2px solid var(--pd-accent, #4c6ef5); outline-offset: 2px; }
    .error { color: var(--pd-failed, #c53030); font-size: 0.85rem; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    gatesState.addEventListener('change', this._onChange);
    fold.addEventListener('change', this._onChange);
    this._detach = gatesState.attach(store);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    gatesState.removeEventListener('change', this._onChange);
    fold.removeEventListener('change', this._onChange);
    this._detach?.();
    this._detach = null;
  }

  private async _decide(g: Gate, decision: 'approve' | 'deny'): Promise<void> {
    this._busy = new Set([...this._busy, g.id]);
    try {
      await gatesState.decide(g.id, decision);
      this._error = '';
    } catch (err) {
      this._error = (err as Error).message;
      this._errorAt = gatesState.loaded;
    } finally {
      const next = new Set(this._busy);
      next.delete(g.id);
      this._busy = next;
    }
  }

  override render() {
    // On a phone's Chat view the gates fold with Needs you (which counts them) into its one line.
    if (!this.taskId && fold.folded) return nothing;
    const error = gatesState.loaded === this._errorAt ? this._error : '';
    const gates = gatesState.gates.filter((g) => (!this.projectId || g.project_id === this.projectId) && (!this.taskId || g.task_id === this.taskId));
    if (!gates.length) return error ? html`<p class="error" role="alert">${error}</p>` : nothing;
    return html`<section aria-label="Needs you">
      <h2>Approve or deny · ${gates.length} waiting</h2>
      ${error ? html`<p class="error" role="alert">${error}</p>` : nothing}
      <ul>
        ${gates.map(
          (g) => html`<li data-gate=${g.id}>
            <div class="meta"><span class="cat">${g.category.replace(/_/g, ' ')}</span> · ${g.kind === 'spawn' ? 'start a worker' : g.tool}
              · ${new Date(g.created_at).toLocaleTimeString()}</div>
            <code>${g.subject ?? JSON.stringify(g.input)}</code>
            <div class="meta">${g.reason}</div>
            <div class="meta">${g.task_brief ? html`Task: ${g.task_brief.split('\n')[0]}` : nothing}${g.project_name ? html` · ${g.project_name}` : nothing}</div>
            <div class="actions">
              <button class="approve" ?disabled=${this._busy.has(g.id)} aria-label=${`Approve ${g.subject ?? g.tool}`} @click=${() => this._decide(g, 'approve')}>Approve</button>
              <button class="deny" ?disabled=${this._busy.has(g.id)} aria-label=${`Deny ${g.subject ?? g.tool}`} @click=${() => this._decide(g, 'deny')}>Deny</button>
            </div>
          </li>`,
        )}
      </ul>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-gates': PdGates;
  }
}
