// One task: its status and live duration, its check, its handoff (goal, state, next step, ruled-out
// approaches, the system's evidence), a timeline of its sessions and its journal — virtualised, newest at the bottom and
// pinned there, older rows paged in when scrolled to the top, or read from its first row on —
// typed lines rendered readably.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { ClockController } from '../controllers/clock-controller.ts';
import { StoreController } from '../controllers/store-controller.ts';
import { duration, elapsed } from '../format.ts';
import type { EventRow } from '../schemas.ts';
import { store, TERMINAL } from '../store.ts';
import { taskRowsOf } from '../store/selectors.ts';
import './pd-diff.ts';
import './pd-usage-breakdown.ts';
import './pd-feed.ts';
import './pd-check.ts';
import './pd-journal-line.ts';
import './pd-journal-start.ts';
import './pd-status.ts';
import './pd-task-deps.ts';
import './pd-timeline.ts';

interface Handoff {
  goal?: string;
  current_state?: string;
  next_step?: string;
  ruled_out?: { approach?: string; reason?: string }[];
  /** Written by the system from the journal, never by the extractor (docs/execution-loop.md). */
  evidence?: {
    verify?: { passed?: boolean; exit_code?: number | null; reason?: string | null } | null;
    diff?: { files?: number; insertions?: number; deletions?: number } | null;
    unbacked_claims?: { ref?: string }[];
  };
}

/** The handoff's evidence in one line: the check's verdict and the change's size. */
function evidenceText(e: NonNullable<Handoff['evidence']>): string {
  const v = e.verify;
  const check = !v ? 'no check' : v.passed ? 'check passed' : `check failed (${v.exit_code != null ? `exit ${v.exit_code}` : (v.reason ?? 'no exit code')})`;
  const d = e.diff;
  return d ? `${check} · ${d.files ?? 0} file${d.files === 1 ? '' : 's'} +${d.insertions ?? 0} −${d.deletions ?? 0}` : check;
}

@customElement('pd-task-detail')
export class PdTaskDetail extends LitElement {
  /** The task to show. */
  @property() task = '';
  @state() private _loading = false;
  /** Cancel was tapped once: a second tap within a few seconds confirms. */
  @state() private _confirming = false;
  /** The journal is read from its first row on, instead of followed at its newest. */
  @state() private _fromStart = false;
  private _confirmTimer: ReturnType<typeof setTimeout> | undefined;

  constructor() {
    super();
    new StoreController(this);
    new ClockController(this);
  }

  static override styles = css`
    :host { display: block; }
    header { display: flex; gap: 0.5rem; align-items: center; flex-wrap: wrap; }
    h2 { font-size: 1.05rem; margin: 0; flex-basis: 100%; overflow-wrap: anywhere; }
    .clock { font-variant-numeric: tabular-nums; font-weight: 700; }
    button { min-height: 44px; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-card); color: var(--pd-fg); padding: 0 0.8rem; cursor: pointer; }
    section { background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 10px; padding: 0.6rem 0.8rem; margin-top: 0.75rem; }
    h3 { margin: 0 0 0.4rem; font-size: 0.9rem; color: var(--pd-muted); }
    dl { margin: 0; display: grid; grid-template-columns: max-content 1fr; gap: 0.25rem 0.75rem; }
    dt { color: var(--pd-muted); }
    dd { margin: 0; overflow-wrap: anywhere; }
    .reason { color: var(--pd-muted); font-size: 0.85rem; }
    /* Exactly the space between the sticky header and the bottom bar (pd-app measures both). */
    pd-feed, pd-journal-start { --pd-feed-height: calc(100dvh - var(--pd-header, 10rem) - var(--pd-bottom-bar, 0px) - 2rem); }
    .journal-head { display: flex; align-items: center; justify-content: space-between; gap: 0.5rem; margin-bottom: 0.4rem; }
    .journal-head h3 { margin: 0; }
    pd-journal-line { padding: 0.35rem 0.6rem; }
  `;

  /** The task whose rows were last asked for (so each task is shown once, however its id arrived). */
  private _shown = '';

  override connectedCallback(): void {
    super.connectedCallback();
    this._shown = '';
    if (this.task) this.show();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    void store.showTask(null);
  }

  // The element is a lazy chunk: the first time a task opens, its id was set before the element was
  // defined, and reaches it only at its first update (connectedCallback saw no task yet).
  override updated(): void {
    if (this.task && this.task !== this._shown) this.show();
  }

  private show(): void {
    this._shown = this.task;
    this._loading = true;
    this._fromStart = false;
    const shown = store.showTask(this.task);
    // Another task in the same view: the feed may have been left scrolled up.
    const feed = this.renderRoot.querySelector('pd-feed');
    if (feed) store.followTask(feed.pinned);
    shown
      .catch(() => {})
      .finally(() => (this._loading = false));
  }

  /** Cancel asks once more: the first tap arms it for 4 s, the second cancels. */
  private cancel(id: string): void {
    clearTimeout(this._confirmTimer);
    if (!this._confirming) {
      this._confirming = true;
      this._confirmTimer = setTimeout(() => (this._confirming = false), 4000);
      return;
    }
    this._confirming = false;
    store.cancel(id).catch((err: Error) => this.dispatchEvent(new CustomEvent('pd-error', { detail: err.message, bubbles: true, composed: true })));
  }

  private older = () => {
    this._loading = true;
    store
      .loadOlder(this.task)
      .catch(() => {})
      .finally(() => (this._loading = false));
  };

  /** Reads the journal from its first row (true), or back to following its newest rows (false). */
  private fromStart(on: boolean): void {
    this._fromStart = on;
    // Nobody reads the live rows meanwhile: the store keeps only the newest window of them.
    if (on) store.followTask(true);
  }

  override render() {
    const t = store.tasks.get(this.task);
    if (!t) return html`<p>Loading the task…</p>`;
    const h = store.handoffs.get(t.id)?.payload as Handoff | undefined;
    const rows = taskRowsOf(store.journal, store.journal.version, t.id);
    const older = store.hasOlder(t.id);
    return html`
      <header>
        <button @click=${() => this.dispatchEvent(new CustomEvent('close-task', { bubbles: true, composed: true }))} aria-label="back to tasks">← Tasks</button>
        <pd-status .status=${t.status}></pd-status>
        <span>attempt ${t.attempt}</span>
        <span class="clock" data-testid="detail-clock">${duration(elapsed(t.started_at, t.ended_at, store.now()))}</span>
        ${TERMINAL.has(t.status) ? nothing : html`<button @click=${() => this.cancel(t.id)} aria-label=${this._confirming ? 'confirm: cancel this task' : 'cancel this task'} data-testid="cancel">${this._confirming ? 'Tap again to cancel' : 'Cancel'}</button>`}
        <h2>${t.brief}</h2>
        ${t.status_reason ? html`<div class="reason">${t.status_reason}</div>` : nothing}
        <pd-check .task=${t.id} ?configured=${Boolean((store.projects.get(t.project_id)?.config as { verify?: unknown } | undefined)?.verify)}
          .reason=${t.status_reason} .version=${`${t.status}:${t.attempt}:${t.status_reason ?? ''}`}></pd-check>
        <pd-task-deps .task=${t.id}></pd-task-deps>
      </header>
      ${h
        ? html`<section data-testid="handoff"><h3>Handoff</h3><dl>
            <dt>Goal</dt><dd>${h.goal ?? '—'}</dd>
            <dt>State</dt><dd>${h.current_state ?? '—'}</dd>
            <dt>Next step</dt><dd>${h.next_step ?? '—'}</dd>
            <dt>Ruled out</dt><dd>${h.ruled_out?.length ? html`<ul>${h.ruled_out.map((r) => html`<li><b>${r.approach}</b> — ${r.reason}</li>`)}</ul>` : 'nothing'}</dd>
            ${h.evidence ? html`<dt>Evidence</dt><dd data-testid="evidence">${evidenceText(h.evidence)}${h.evidence.unbacked_claims?.length
              ? html`<div data-testid="unbacked">claimed, not in the change: ${h.evidence.unbacked_claims.map((c) => c.ref).join(', ')}</div>` : nothing}</dd>` : nothing}
          </dl></section>`
        : nothing}
      <pd-diff .task=${t.id} @pd-open-task=${(e: CustomEvent<string>) => (location.hash = `#/task/${e.detail}`)}></pd-diff>
      <pd-usage-breakdown .task=${t.id}></pd-usage-breakdown>
      <section><h3>Sessions</h3><pd-timeline .task=${t.id}></pd-timeline></section>
      <section data-testid="journal">${this._fromStart
        ? html`<div class="journal-head"><h3>Journal from the start</h3>
            <button @click=${() => this.fromStart(false)} data-testid="to-newest">Newest rows</button></div>
          <pd-journal-start .task=${t.id} @pd-newest=${() => this.fromStart(false)}></pd-journal-start>`
        : html`<div class="journal-head"><h3>Journal${older ? ` (newest ${rows.length})` : ` (${rows.length})`}</h3>
            ${older ? html`<button @click=${() => this.fromStart(true)} data-testid="from-start">From the start</button>` : nothing}</div>
        <pd-feed label="journal" .items=${rows} .keyFunction=${(e: EventRow) => e.event_id} ?hasOlder=${older} ?loading=${this._loading}
          @pd-older=${this.older} @pd-follow=${(e: CustomEvent<boolean>) => store.followTask(e.detail)} .renderItem=${(r: EventRow) => html`<pd-journal-line role="listitem" data-seq=${r.seq} .row=${r}></pd-journal-line>`}></pd-feed>`}
      </section>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-task-detail': PdTaskDetail;
  }
}
