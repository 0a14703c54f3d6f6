// The glance header's count of changes waiting for a decision (merge, discard, continue), hidden
// when none wait. A tap opens the list of those tasks; a tap on one opens it (its change is on its
// page). Kept live by client/src/workspaces.ts.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { clip } from '../format.ts';
import { store } from '../store.ts';
import { workspaces } from '../workspaces.ts';

@customElement('pd-changes')
export class PdChanges extends LitElement {
  @state() private _open = false;
  private readonly _onChange = () => this.requestUpdate();
  private readonly _onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') this._open = false;
  };

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: inline-block; position: relative; }
    .chip { border-radius: 999px; padding: 0.15rem 0.6rem; font: inherit; font-size: 0.8rem; font-weight: 700; color: var(--pd-on-color, #fff);
      background: var(--pd-accent-strong, var(--pd-accent)); border: 1px solid transparent; cursor: pointer; }
    .chip:focus-visible { outline: 2px solid var(--pd-accent); outline-offset: 2px; }
    ul { position: absolute; right: 0; top: calc(100% + 0.3rem); z-index: 20; list-style: none; margin: 0; padding: 0.3rem; min-width: 16rem;
      max-width: min(24rem, 90vw); max-height: 60vh; overflow: auto; background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 10px;
      box-shadow: 0 6px 24px rgb(0 0 0 / 0.18); }
    li button { width: 100%; min-height: 44px; text-align: left; border: 0; border-radius: 8px; background: none; color: var(--pd-fg); font: inherit; padding: 0.3rem 0.5rem; cursor: pointer; }
    li button:hover, li button:focus-visible { background: var(--pd-bg); }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    workspaces.start();
    workspaces.addEventListener('change', this._onChange);
    document.addEventListener('keydown', this._onKey);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    workspaces.removeEventListener('change', this._onChange);
    document.removeEventListener('keydown', this._onKey);
  }

  override render() {
    const n = workspaces.waiting;
    if (!n) return nothing;
    return html`<button class="chip" data-chip="changes" aria-expanded=${this._open ? 'true' : 'false'} aria-controls="changes-list"
        title="show the tasks with a change waiting" @click=${() => (this._open = !this._open)}>${n} change${n === 1 ? '' : 's'} waiting</button>
      ${this._open
        ? html`<ul id="changes-list" aria-label="changes waiting" data-testid="changes-list">
            ${workspaces.waitingTasks.map((id) => html`<li data-task=${id}><button @click=${() => this.openTask(id)}>${clip(store.tasks.get(id)?.brief ?? 'a task', 90)}</button></li>`)}
          </ul>`
        : nothing}`;
  }

  private openTask(id: string): void {
    this._open = false;
    location.hash = `#/task/${id}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-changes': PdChanges;
  }
}
