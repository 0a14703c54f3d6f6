// "Needs you": everything waiting for the person in the picked project (or all), first on the
// phone — gated and escalated tasks, stalled sessions of any role, messages the server never
// recorded, the orchestrator's needs_user items and a stopped loop with its reason — each with a
// one-tap way to it. Open gates themselves (Approve/Deny) are pd-gates, shown next to this. The
// count also goes on the app's icon (Badging API) where the platform has one.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { fire } from '../events.ts';
import { clip } from '../format.ts';
import { store } from '../store.ts';
import { needsYouOf, type NeedsYouItem } from '../store/selectors.ts';

const GLYPH: Record<NeedsYouItem['kind'], string> = { task: '!', stalled_session: '‖', orphaned_message: '↻', needs_user: '?', loop_stopped: '■' };

/** Puts the count on the installed app's icon; a browser without the Badging API is left alone. */
export function setBadge(n: number): void {
  const nav = navigator as Navigator & { setAppBadge?: (n?: number) => Promise<void>; clearAppBadge?: () => Promise<void> };
  if (n > 0) void nav.setAppBadge?.(n).catch(() => {});
  else void nav.clearAppBadge?.().catch(() => {});
}

/**
 * @fires open-task - the person tapped an item about a task (detail: task id)
 */
@customElement('pd-needs-you')
export class PdNeedsYou extends LitElement {
  /** Only this project's items (all when empty). */
  @property() project = '';
  private _badged = -1;

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: block; }
    section { border: 2px solid var(--pd-accent-strong, var(--pd-accent)); border-radius: 10px; background: var(--pd-card); padding: 0.5rem 0.7rem; margin-bottom: 0.75rem; }
    h2 { font-size: 0.95rem; margin: 0 0 0.35rem; }
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.35rem; }
    li { display: grid; grid-template-columns: 1.5rem 1fr auto; gap: 0.5rem; align-items: center; }
    .glyph { font-weight: 800; text-align: center; color: var(--pd-accent-text, var(--pd-accent)); }
    .title { font-weight: 600; overflow-wrap: anywhere; }
    .detail { color: var(--pd-muted); font-size: 0.8rem; overflow-wrap: anywhere; }
    .acts { display: flex; gap: 0.35rem; }
    button { min-height: 44px; min-width: 44px; padding: 0 0.7rem; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); font: inherit; font-weight: 600; cursor: pointer; }
  `;

  override render() {
    const items = needsYouOf(store.model, store.messages, this.project);
    if (items.length !== this._badged) {
      this._badged = items.length;
      setBadge(items.length);
    }
    if (!items.length) return nothing;
    return html`<section aria-labelledby="needs-you-h" data-testid="needs-you">
      <h2 id="needs-you-h">Needs you (${items.length})</h2>
      <ul>
        ${items.map((it) => html`<li data-kind=${it.kind} data-key=${it.key}>
          <span class="glyph" aria-hidden="true">${GLYPH[it.kind]}</span>
          <div><div class="title">${clip(it.title, 140)}</div>${it.detail ? html`<div class="detail">${clip(it.detail, 200)}</div>` : nothing}</div>
          ${this.action(it)}
        </li>`)}
      </ul>
    </section>`;
  }

  private action(it: NeedsYouItem) {
    if (it.kind === 'orphaned_message' && it.message_id) {
      const id = it.message_id;
      return html`<button @click=${() => void store.retry(id).catch((e: Error) => fire(this, 'pd-error', e.message))} aria-label="retry the message">Retry</button>`;
    }
    if (it.task_id) {
      const id = it.task_id;
      const open = html`<button @click=${() => fire(this, 'open-task', id)} aria-label="open the task">Open</button>`;
      // A task that ended waiting for the person (extraction_failed, escalated) can run again; a
      // gated one is decided in the gates list instead.
      if (it.kind !== 'task' || it.status === 'gated') return open;
      return html`<span class="acts">${open}<button @click=${() => void store.retryTask(id).catch((e: Error) => fire(this, 'pd-error', e.message))}
        aria-label="retry the task">Retry</button></span>`;
    }
    if (it.kind === 'stalled_session' && it.role === 'orchestrator') {
      const project = it.project_id;
      // The turn's messages are given back for the next turn, as for any turn that did not end clean.
      return html`<button @click=${() => void store.cancelTurn(project).catch((e: Error) => fire(this, 'pd-error', e.message))}
        aria-label="stop the orchestrator turn">Stop</button>`;
    }
    return html`<button @click=${() => (location.hash = '#/working-set')} aria-label="see why the loop stopped">Why</button>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-needs-you': PdNeedsYou;
  }
}
