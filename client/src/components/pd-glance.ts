// The glance header, on every view: the Trellis tile (pd-trellis: hidden without Trellis), chips
// for what needs the person (dispatch.needs_you, the badge's count) and the tasks of the picked
// project (or all) that run, stalled, failed or finished (a tap shows those tasks; "needs you" scrolls to its list), and the focused task with a
// ticking duration.
//
// @fires pd-chip - a chip was tapped (detail: its name: needs-you, running, stalled, failed, finished)
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { ClockController } from '../controllers/clock-controller.ts';
import { StoreController } from '../controllers/store-controller.ts';
import { duration, elapsed, clip } from '../format.ts';
import { store } from '../store.ts';
import { needsYouState } from '../needs-you-state.ts';
import { countsOf } from '../store/selectors.ts';
import './pd-changes.ts';
import './pd-status.ts';
import './pd-trellis.ts';
import './pd-usage-glance.ts';

@customElement('pd-glance')
export class PdGlance extends LitElement {
  /** Count only this project's tasks (all when empty). */
  @property() project = '';

  private _detach: (() => void) | null = null;
  private readonly _onNeeds = () => this.requestUpdate();

  constructor() {
    super();
    new StoreController(this);
    new ClockController(this);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    needsYouState.addEventListener('change', this._onNeeds);
    this._detach = needsYouState.use(store);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    needsYouState.removeEventListener('change', this._onNeeds);
    this._detach?.();
    this._detach = null;
  }

  static override styles = css`
    :host { display: block; background: var(--pd-card); border-bottom: 1px solid var(--pd-line); padding: 0.5rem 0.75rem; }
    .row { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
    .thread { flex: 1 1 14rem; }
    .chips { display: flex; gap: 0.4rem; flex-wrap: wrap; margin-left: auto; }
    .chip { border-radius: 999px; padding: 0.15rem 0.6rem; font: inherit; font-size: 0.8rem; font-weight: 700; border: 1px solid var(--pd-line);
      color: var(--pd-muted); background: none; cursor: pointer; }
    .chip:focus-visible { outline: 2px solid var(--pd-accent); outline-offset: 2px; }
    .chip.on.running { color: var(--pd-on-color, #fff); background: var(--pd-running); border-color: var(--pd-running); }
    .chip.on.stalled { color: var(--pd-on-color, #fff); background: var(--pd-stalled); border-color: var(--pd-stalled); animation: pulse 1.6s infinite; }
    .chip.on.failed { color: var(--pd-on-color, #fff); background: var(--pd-failed); border-color: var(--pd-failed); }
    .chip.on.needs-you { color: var(--pd-on-color, #fff); background: var(--pd-accent-strong, var(--pd-accent)); border-color: var(--pd-accent-strong, var(--pd-accent)); }
    .chip.on.finished { color: var(--pd-on-color, #fff); background: var(--pd-success); border-color: var(--pd-success); }
    .focus { width: 100%; display: flex; gap: 0.5rem; align-items: center; font-size: 0.9rem; margin-top: 0.35rem; }
    .focus .brief { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; flex: 1; min-width: 0; }
    .clock { font-variant-numeric: tabular-nums; font-weight: 700; }
    @keyframes pulse { 50% { opacity: 0.6; } }
    @media (prefers-reduced-motion: reduce) { .chip.on.stalled { animation: none; } }
  `;

  override render() {
    const c = countsOf(store.model, store.tasks, this.project);
    const chips = [
      ['needs-you', 'needs you', needsYouState.of(this.project).length],
      ['running', 'running', c.running],
      ['stalled', 'stalled', c.stalled],
      ['failed', 'failed', c.failed],
      ['finished', 'finished', c.finished],
    ] as const;
    const focused = store.focus?.task_id ? store.tasks.get(store.focus.task_id) : undefined;
    return html`
      <div class="row">
        <pd-trellis class="thread"></pd-trellis>
        <div class="chips" role="status" aria-label="workers">
          ${chips.map(([name, label, n]) => html`<button type="button" class="chip ${name} ${n ? 'on' : ''}" data-chip=${name}
            title=${name === 'needs-you' ? 'show what needs you' : `show the ${label} tasks`} @click=${() => this.pick(name)}>${n} ${label}</button>`)}
          <pd-changes></pd-changes>
        </div>
        <pd-usage-glance .project=${this.project}></pd-usage-glance>
        ${focused
          ? html`<div class="focus" data-testid="focused">
              <span aria-hidden="true">★</span><span class="brief">${clip(focused.brief, 120)}</span>
              <pd-status .status=${focused.status}></pd-status>
              <span class="clock" data-testid="focus-clock">${duration(elapsed(focused.started_at, focused.ended_at, store.now()))}</span>
            </div>`
          : nothing}
      </div>
    `;
  }

  private pick(name: string): void {
    this.dispatchEvent(new CustomEvent('pd-chip', { detail: name, bubbles: true, composed: true }));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-glance': PdGlance;
  }
}
