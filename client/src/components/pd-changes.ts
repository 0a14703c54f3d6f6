// The glance header's count of changes waiting for a decision (merge, discard, continue); hidden
// when none wait. Kept live by client/src/workspaces.ts.
import { LitElement, css, html, nothing } from 'lit';
import { customElement } from 'lit/decorators.js';
import { workspaces } from '../workspaces.ts';

@customElement('pd-changes')
export class PdChanges extends LitElement {
  private readonly _onChange = () => this.requestUpdate();

  static override styles = css`
    :host { display: contents; }
    .chip { border-radius: 999px; padding: 0.15rem 0.6rem; font-size: 0.8rem; font-weight: 700; color: #fff;
      background: var(--pd-accent-strong, var(--pd-accent)); border: 1px solid transparent; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    workspaces.start();
    workspaces.addEventListener('change', this._onChange);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    workspaces.removeEventListener('change', this._onChange);
  }

  override render() {
    const n = workspaces.waiting;
    return n ? html`<span class="chip" data-chip="changes" role="status">${n} change${n === 1 ? '' : 's'} waiting</span>` : nothing;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-changes': PdChanges;
  }
}
