// A task's cost in a task row ("$0.03"), nothing before any of its sessions has ended.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { UsageController } from '../controllers/usage-controller.ts';
import { money, tokens, tokensOf, usageState } from '../usage-state.ts';

@customElement('pd-usage-cost')
export class PdUsageCost extends LitElement {
  /** The task whose cost to show. */
  @property() task = '';

  constructor() {
    super();
    new UsageController(this);
  }

  static override styles = css`
    :host { font-variant-numeric: tabular-nums; }
  `;

  override render() {
    const u = usageState.tasks.get(this.task);
    if (!u) return nothing;
    return html`<span data-testid="task-cost" title=${`${tokens(tokensOf(u))} in ${u.sessions} session${u.sessions === 1 ? '' : 's'}`}>${money(u.cost_usd)}</span>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-usage-cost': PdUsageCost;
  }
}
