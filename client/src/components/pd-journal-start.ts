// A task's journal read from its first row on, a page at a time as the person scrolls down: the
// live feed holds only the newest rows (and pages back from there), so the start of a long worker
// session — how it began, what it tried first — would otherwise be hundreds of pages up. Read
// apart from the store's journal (nothing here is live, nothing here is folded into the model), and
// bounded: past READER_CAP rows it stops and points back to the newest ones.
import '@lit-labs/virtualizer';
import { flow } from '@lit-labs/virtualizer/layouts/flow.js';
import { LitElement, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import type { EventRow } from '../schemas.ts';
import { READER_CAP, store } from '../store.ts';
import './pd-journal-line.ts';

const LAYOUT = flow({});
/** Rows before the last one held at which the next page is asked for. */
const NEAR_END_ROWS = 30;

/**
 * @fires pd-newest - the person asked for the newest rows (the live feed) instead
 */
@customElement('pd-journal-start')
export class PdJournalStart extends LitElement {
  /** The task whose journal is read. */
  @property() task = '';
  @state() private _rows: EventRow[] = [];
  @state() private _loading = false;
  /** The last page was short: every row the server had then is here. */
  @state() private _end = false;
  @state() private _error = '';
  /** Which task the rows are of (a new task starts again from its first row). */
  private _of = '';

  // Drawn in the host's shadow root (as pd-feed is), so the host's row styles reach the rows.
  override createRenderRoot() {
    return this;
  }

  static readonly css = `
    pd-journal-start { display: block; }
    pd-journal-start > lit-virtualizer { height: var(--pd-feed-height, 70vh); border: 1px solid var(--pd-line); border-radius: 10px; background: var(--pd-card); }
    pd-journal-start > .edge { display: flex; gap: 0.5rem; align-items: center; justify-content: center; flex-wrap: wrap; color: var(--pd-muted); font-size: 0.8rem; padding: 0.2rem; min-height: 36px; box-sizing: border-box; text-align: center; }
    pd-journal-start > .edge button { font: inherit; color: var(--pd-fg); background: var(--pd-bg); border: 1px solid var(--pd-line); border-radius: 999px; min-height: 32px; padding: 0 0.8rem; cursor: pointer; }
  `;

  override willUpdate(changed: Map<string, unknown>): void {
    if (changed.has('task') && this.task !== this._of) {
      this._of = this.task;
      this._rows = [];
      this._end = false;
      this._error = '';
      this._loading = false; // a page still coming for the previous task is dropped when it lands
      if (this.task) void this.more();
    }
  }

  /** The next page: the rows after the last one held. */
  private async more(): Promise<void> {
    if (this._loading || this._end || this._rows.length >= READER_CAP) return;
    const task = this.task;
    this._loading = true;
    this._error = '';
    try {
      const { rows, more } = await store.taskRowsAfter(task, this._rows.at(-1)?.seq ?? 0);
      if (task !== this.task) return;
      this._rows = [...this._rows, ...rows].slice(0, READER_CAP);
      this._end = !more;
    } catch (err) {
      if (task === this.task) this._error = (err as Error).message;
    } finally {
      if (task === this.task) this._loading = false;
    }
  }

  /**
   * Near the last row held (a screen or so before it): the next page, without a tap, so it is
   * usually there before the person reaches the end.
   */
  private onVisible = (e: Event) => {
    const { last } = e as Event & { last: number };
    if (last >= this._rows.length - NEAR_END_ROWS && !this._error) void this.more();
  };

  /** The same by distance (the list's height grows as rows are measured: an index alone can fall short). */
  private onScroll = (e: Event) => {
    const v = e.currentTarget as HTMLElement;
    if (v.scrollHeight - v.scrollTop - v.clientHeight < v.clientHeight && !this._error) void this.more();
  };

  private newest(): void {
    this.dispatchEvent(new CustomEvent('pd-newest', { bubbles: true, composed: true }));
  }

  private bottom() {
    if (this._loading) return html`Loading newer rows…`;
    if (this._error) return html`${this._error} <button @click=${() => void this.more()} data-testid="reader-retry">Try again</button>`;
    const toNewest = html`<button @click=${() => this.newest()}>Newest rows</button>`;
    if (this._rows.length >= READER_CAP) return html`The first ${READER_CAP.toLocaleString('en')} rows are shown here. ${toNewest}`;
    if (this._end) return html`No newer rows yet. ${toNewest}`;
    return html`<button @click=${() => void this.more()} data-testid="reader-newer">Newer rows</button>`;
  }

  override render() {
    return html`
      <style>${PdJournalStart.css}</style>
      <div class="edge">${this._rows.length ? 'Start of the journal' : nothing}</div>
      <lit-virtualizer scroller role="list" aria-label="journal from the start" data-testid="reader" .layout=${LAYOUT} .items=${this._rows}
        .keyFunction=${(r: EventRow) => r.event_id} .renderItem=${(r: EventRow) => html`<pd-journal-line role="listitem" data-seq=${r.seq} .row=${r}></pd-journal-line>`}
        @visibilityChanged=${this.onVisible} @scroll=${this.onScroll}></lit-virtualizer>
      <div class="edge" aria-live="polite">${this.bottom()}</div>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-journal-start': PdJournalStart;
  }
}
