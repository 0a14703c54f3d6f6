// A status badge: colour, icon and word, so a stalled or failed task stands out without reading.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';

const ICON: Record<string, string> = {
  queued: '○', running: '◐', stalled: '⚠', success: '✓', failed: '✕', crashed: '✕', cancelled: '⊘',
  rate_limited: '◷', partial: '◑', skipped: '↷', gated: '‖', extraction_failed: '⚠',
};

@customElement('pd-status')
export class PdStatus extends LitElement {
  /** One of the task/session statuses. */
  @property() status = 'queued';

  static override styles = css`
    :host { display: inline-flex; }
    .badge { display: inline-flex; align-items: center; gap: 0.3em; padding: 0.1em 0.55em; border-radius: 999px;
      font-size: 0.8rem; font-weight: 600; white-space: nowrap; border: 1px solid currentColor; }
    .queued, .cancelled, .skipped { color: var(--pd-queued); }
    .running { color: var(--pd-running); }
    .stalled, .partial { color: var(--pd-stalled); background: color-mix(in srgb, var(--pd-stalled) 14%, transparent); }
    .failed, .crashed, .rate_limited, .gated, .extraction_failed { color: var(--pd-failed); background: color-mix(in srgb, var(--pd-failed) 12%, transparent); }
    .success { color: var(--pd-success); }
  `;

  override render() {
    return html`<span class="badge ${this.status}" data-status=${this.status}><span aria-hidden="true">${ICON[this.status] ?? '•'}</span>${this.status.replace('_', ' ')}</span>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-status': PdStatus;
  }
}
