// The Activity view: the chronological feed of journal rows, virtualised so that a hundred thousand
// rows scroll smoothly (only the visible ones exist in the DOM).
import '@lit-labs/virtualizer';
// The layout is imported here, not left to the virtualizer's lazy import, so the feed never needs
// the network to render (a lazy chunk would fail while the server is down).
import { flow } from '@lit-labs/virtualizer/layouts/flow.js';
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { clip } from '../format.ts';
import type { EventRow } from '../schemas.ts';
import { store } from '../store.ts';

function summary(e: EventRow): string {
  const p = (e.payload ?? {}) as Record<string, unknown>;
  if (e.event_type === 'claude.assistant') {
    const c = (p.message as { content?: { type?: string; text?: string; name?: string }[] } | undefined)?.content ?? [];
    return c.map((b) => (b.type === 'text' ? b.text : b.type === 'tool_use' ? `→ ${b.name}` : b.type)).join(' ');
  }
  if (typeof p.text === 'string') return p.text;
  if (typeof p.status === 'string') return `${p.status}${p.reason ? `: ${String(p.reason)}` : ''}`;
  if (typeof p.brief === 'string') return p.brief;
  if (typeof p.result === 'string') return p.result;
  return '';
}

const LAYOUT = flow({});

@customElement('pd-activity')
export class PdActivity extends LitElement {
  /** Only this project's rows (all when empty). */
  @property() project = '';

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: block; }
    lit-virtualizer { height: 70vh; border: 1px solid var(--pd-line); border-radius: 10px; background: var(--pd-card); }
    .row { display: grid; grid-template-columns: 5.5rem 11rem 1fr; gap: 0.5rem; width: 100%; box-sizing: border-box; padding: 0.3rem 0.6rem;
      border-bottom: 1px solid var(--pd-line); font-size: 0.82rem; height: 1.9rem; align-items: center; }
    .seq { color: var(--pd-muted); font-variant-numeric: tabular-nums; }
    .type { color: var(--pd-accent); overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .text { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    @media (max-width: 600px) { .row { grid-template-columns: 4rem 1fr; } .type { display: none; } }
    .count { color: var(--pd-muted); font-size: 0.8rem; margin: 0 0 0.3rem; }
  `;

  override render() {
    const rows = this.project ? store.events.filter((e) => e.project_id === this.project) : store.events.slice();
    return html`<p class="count" data-testid="activity-count">${rows.length} events</p>
      <lit-virtualizer scroller .layout=${LAYOUT} .items=${rows} .keyFunction=${(e: EventRow) => e.event_id}
        .renderItem=${(e: EventRow) => html`<div class="row" data-seq=${e.seq}>
          <span class="seq">#${e.seq}</span><span class="type">${e.event_type}</span><span class="text">${clip(summary(e), 200)}</span>
        </div>`}></lit-virtualizer>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-activity': PdActivity;
  }
}
