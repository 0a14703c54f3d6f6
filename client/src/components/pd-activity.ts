// The Activity feed: the journal rows of the picked project (or all), newest at the bottom and
// pinned there, virtualised; each row says what it is (its type) on a phone too. Older rows page
// in from the server when the person scrolls to the top.
import { LitElement, css, html } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { clip } from '../format.ts';
import type { EventRow } from '../schemas.ts';
import { store } from '../store.ts';
import { activityOf } from '../store/selectors.ts';
import './pd-feed.ts';

/** What a row says, in a few words: its summary for a stdout line, else its payload's gist. */
export function gist(e: EventRow): string {
  const s = e.summary;
  if (s) return s.kind === 'tool_use' ? `→ ${s.tool ?? ''} ${s.input_summary ?? ''}` : (s.text ?? s.kind);
  const p = (e.payload ?? {}) as Record<string, unknown>;
  if (typeof p.text === 'string') return p.text;
  if (typeof p.status === 'string') return `${p.status}${p.reason ? `: ${String(p.reason)}` : ''}`;
  if (typeof p.brief === 'string') return p.brief;
  if (typeof p.name === 'string') return p.name;
  return '';
}

@customElement('pd-activity')
export class PdActivity extends LitElement {
  /** Only this project's rows (all when empty). */
  @property() project = '';
  @state() private _loading = false;

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: block; --pd-feed-height: calc(100dvh - var(--pd-header, 10rem) - var(--pd-bottom-bar, 0px) - 2rem); }
    .row { display: grid; grid-template-columns: 4.5rem 10rem 1fr; gap: 0.5rem; width: 100%; box-sizing: border-box; padding: 0.3rem 0.6rem;
      border-bottom: 1px solid var(--pd-line); font-size: 0.82rem; min-height: 1.9rem; align-items: center; }
    .seq { color: var(--pd-muted); font-variant-numeric: tabular-nums; }
    .type { color: var(--pd-accent-text, var(--pd-accent)); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; font-weight: 600; }
    .text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    @media (max-width: 600px) {
      .row { grid-template-columns: auto 1fr; grid-template-rows: auto auto; row-gap: 0.1rem; }
      .text { grid-column: 1 / -1; }
    }
    .count { color: var(--pd-muted); font-size: 0.8rem; margin: 0 0 0.3rem; }
  `;

  private older = () => {
    this._loading = true;
    store.loadOlder().finally(() => (this._loading = false));
  };

  override render() {
    const rows = activityOf(store.journal, store.journal.version, this.project);
    return html`<p class="count" data-testid="activity-count" data-floor=${store.journal.floor}>${rows.length} events</p>
      <pd-feed label="activity" .items=${rows} .keyFunction=${(e: EventRow) => e.event_id} ?hasOlder=${store.hasOlder()} ?loading=${this._loading}
        @pd-older=${this.older}
        .renderItem=${(e: EventRow) => html`<div class="row" role="listitem" data-seq=${e.seq}>
          <span class="seq">#${e.seq}</span><span class="type">${e.event_type}</span><span class="text">${clip(gist(e), 200)}</span>
        </div>`}></pd-feed>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-activity': PdActivity;
  }
}
