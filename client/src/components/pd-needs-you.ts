// "Needs you": what waits for an act of the person now, as the server's one definition lists it
// (dispatch.needs_you via needs-you-state.ts) — an open gate, a task awaiting a decision, a stalled
// session, a budget hold, an expired login, a question or a stop of the orchestrator — each with
// its one-tap act and "Seen" to dismiss it (journalled, so it leaves every client). On a phone's
// Chat view it folds to one line with its count, so the conversation keeps the screen.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { fire } from '../events.ts';
import { clip } from '../format.ts';
import { gatesState } from '../gates-state.ts';
import { fold } from '../needs-you-fold.ts';
import { needsYouState, type NeedsYouItem } from '../needs-you-state.ts';
import { store } from '../store.ts';

const GLYPH: Record<NeedsYouItem['kind'], string> = { gate: '?', task: '!', stalled: '‖', budget: '$', login: '⚿', question: '?', loop: '■' };

/** Puts the count on the installed app's icon; a browser without the Badging API is left alone. */
export function setBadge(n: number): void {
  const nav = navigator as Navigator & { setAppBadge?: (n?: number) => Promise<void>; clearAppBadge?: () => Promise<void> };
  if (n > 0) void nav.setAppBadge?.(n).catch(() => {});
  else void nav.clearAppBadge?.().catch(() => {});
}

/** Since when a session has been silent, as a time of day. */
function since(at: string): string {
  return new Date(at).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/**
 * @fires open-task - the person tapped an item about a task (detail: task id)
 */
@customElement('pd-needs-you')
export class PdNeedsYou extends LitElement {
  /** Only this project's items (all when empty). */
  @property() project = '';
  @state() private _busy = new Set<string>();
  private _badged = -1;
  private _detach: (() => void) | null = null;
  private readonly _onChange = () => this.requestUpdate();

  constructor() {
    super();
    new StoreController(this);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    needsYouState.addEventListener('change', this._onChange);
    fold.addEventListener('change', this._onChange);
    this._detach = needsYouState.use(store);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    needsYouState.removeEventListener('change', this._onChange);
    fold.removeEventListener('change', this._onChange);
    this._detach?.();
    this._detach = null;
  }

  static override styles = css`
    :host { display: block; }
    section { border: 2px solid var(--pd-accent-strong, var(--pd-accent)); border-radius: 10px; background: var(--pd-card); padding: 0.5rem 0.7rem; margin-bottom: 0.75rem; }
    h2 { font-size: 0.95rem; margin: 0 0 0.35rem; display: flex; align-items: center; gap: 0.5rem; }
    h2 .fold { margin-left: auto; min-height: 32px; }
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.35rem; }
    li { display: grid; grid-template-columns: 1.5rem 1fr; gap: 0.25rem 0.5rem; align-items: center; }
    .glyph { font-weight: 800; text-align: center; color: var(--pd-accent-text, var(--pd-accent)); }
    .title { font-weight: 600; overflow-wrap: anywhere; }
    .detail { color: var(--pd-muted); font-size: 0.8rem; overflow-wrap: anywhere; }
    .acts { grid-column: 2; display: flex; gap: 0.35rem; flex-wrap: wrap; }
    button { min-height: 44px; min-width: 44px; padding: 0 0.7rem; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); font: inherit; font-weight: 600; cursor: pointer; }
    button.seen { color: var(--pd-muted); font-weight: 500; }
    button:disabled { opacity: 0.5; cursor: default; }
    button.line { width: 100%; display: flex; align-items: center; gap: 0.5rem; border: 2px solid var(--pd-accent-strong, var(--pd-accent)); background: var(--pd-card); margin-bottom: 0.5rem; text-align: left; }
    button.line .more { margin-left: auto; color: var(--pd-muted); font-weight: 500; }
    @media (min-width: 1024px) { li { grid-template-columns: 1.5rem 1fr auto; } .acts { grid-column: 3; } }
  `;

  override render() {
    const items = needsYouState.of(this.project);
    const all = needsYouState.items.length;
    if (needsYouState.loaded && all !== this._badged) {
      this._badged = all;
      setBadge(all);
    }
    if (!items.length) return nothing;
    if (fold.folded) {
      return html`<button class="line" data-testid="needs-you-line" aria-expanded="false" @click=${() => fold.toggle()}>
        <span class="glyph" aria-hidden="true">!</span><span>Needs you (${items.length})</span><span class="more">${clip(items[0]!.title, 40)} ›</span>
      </button>`;
    }
    return html`<section aria-labelledby="needs-you-h" data-testid="needs-you">
      <h2 id="needs-you-h">Needs you (${items.length})
        ${fold.applies ? html`<button class="fold" aria-expanded="true" @click=${() => fold.toggle()}>Fold</button>` : nothing}</h2>
      <ul>
        ${items.map((it) => html`<li data-kind=${it.kind} data-key=${it.key}>
          <span class="glyph" aria-hidden="true">${GLYPH[it.kind]}</span>
          <div><div class="title">${clip(it.title, 140)}</div><div class="detail">${clip(this.detail(it), 200)}</div></div>
          <span class="acts">${this.acts(it)}<button class="seen" ?disabled=${this._busy.has(it.key)} @click=${() => this.run(it.key, () => needsYouState.dismiss(it.key))}
            aria-label="mark as seen">Seen</button></span>
        </li>`)}
      </ul>
    </section>`;
  }

  private detail(it: NeedsYouItem): string {
    if (it.kind === 'stalled') return `no output since ${since(it.since)}${it.detail ? ` — ${it.detail}` : ''}`;
    return it.detail;
  }

  /** Runs a tap's request once at a time per item; a refusal goes to the app's error toast. */
  private async run(key: string, act: () => Promise<unknown>): Promise<void> {
    this._busy = new Set([...this._busy, key]);
    try {
      await act();
    } catch (e) {
      fire(this, 'pd-error', (e as Error).message);
    } finally {
      const next = new Set(this._busy);
      next.delete(key);
      this._busy = next;
    }
  }

  private acts(it: NeedsYouItem) {
    const busy = this._busy.has(it.key);
    const open = it.task_id ? html`<button @click=${() => fire(this, 'open-task', it.task_id!)} aria-label="open the task">Open</button>` : nothing;
    switch (it.kind) {
      case 'gate':
        return html`<button ?disabled=${busy} @click=${() => this.run(it.key, () => gatesState.decide(it.gate_id!, 'approve'))} aria-label="approve">Approve</button>
          <button ?disabled=${busy} @click=${() => this.run(it.key, () => gatesState.decide(it.gate_id!, 'deny'))} aria-label="deny">Deny</button>${open}`;
      case 'task':
        return html`${open}<button ?disabled=${busy} @click=${() => this.run(it.key, () => store.retryTask(it.task_id!))} aria-label="retry the task">Retry</button>`;
      case 'stalled':
        // The turn's messages are given back for the next turn, as for any turn that did not end clean.
        return it.role === 'orchestrator' && it.project_id
          ? html`<button ?disabled=${busy} @click=${() => this.run(it.key, () => store.cancelTurn(it.project_id!))} aria-label="stop the orchestrator turn">Stop</button>`
          : open;
      case 'question':
        return html`<button @click=${() => (location.hash = '#/chat')} aria-label="answer in the chat">Answer</button>`;
      case 'loop':
        return html`<button @click=${() => (location.hash = '#/working-set')} aria-label="see why the loop stopped">Why</button>`;
      case 'budget':
        return html`<button @click=${() => (location.hash = '#/health')} aria-label="see the spend">Spend</button>`;
      default:
        return nothing;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-needs-you': PdNeedsYou;
  }
}
