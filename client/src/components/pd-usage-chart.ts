// Spend per UTC day over the last 14 days, as small bars (today last), for one project or all.
import { LitElement, css, html } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { UsageController } from '../controllers/usage-controller.ts';
import { money, usageState } from '../usage-state.ts';

@customElement('pd-usage-chart')
export class PdUsageChart extends LitElement {
  /** The project to chart (all projects when empty). */
  @property() project = '';

  constructor() {
    super();
    new UsageController(this);
  }

  static override styles = css`
    :host { display: inline-flex; align-items: flex-end; gap: 2px; height: 1.6rem; }
    .bar { width: 5px; min-height: 1px; background: var(--pd-accent); border-radius: 1px 1px 0 0; opacity: 0.85; }
    .bar.zero { background: var(--pd-line); }
    .bar.today { opacity: 1; outline: 1px solid var(--pd-fg); }
  `;

  override willUpdate(): void {
    if (usageState.chartProject !== this.project) {
      usageState.chartProject = this.project;
      void usageState.load();
    }
  }

  override render() {
    const days = usageState.days.get(this.project) ?? [];
    const max = Math.max(...days.map((d) => d.cost_usd), 0);
    const total = days.reduce((a, d) => a + d.cost_usd, 0);
    return html`<div role="img" aria-label=${`spend per day, last 14 days: ${money(total)} in all`} style="display:contents">
      ${days.map(
        (d, i) => html`<span
          class="bar ${d.cost_usd ? '' : 'zero'} ${i === days.length - 1 ? 'today' : ''}"
          data-day=${d.day}
          data-cost=${d.cost_usd}
          title=${`${d.day}: ${money(d.cost_usd)}`}
          style=${`height:${max ? Math.max(4, Math.round((d.cost_usd / max) * 100)) : 4}%`}
        ></span>`,
      )}
    </div>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-usage-chart': PdUsageChart;
  }
}
