// The glance header's money line: today's spend and tokens (the picked project's, and all
// projects'), the 14-day spend chart, and the account's quota when it is rate limited
// ("rate limited until 14:05 (3 tasks waiting)"). Figures are the CLI's own estimates.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { UsageController } from '../controllers/usage-controller.ts';
import { money, tokens, tokensOf, usageState } from '../usage-state.ts';
import './pd-usage-chart.ts';

/** A time as the person reads it: 14:05 today, else with its day. */
function clock(iso: string): string {
  const t = new Date(iso);
  const sameDay = t.toDateString() === new Date().toDateString();
  const hm = t.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return sameDay ? hm : `${t.toLocaleDateString([], { month: 'short', day: 'numeric' })} ${hm}`;
}

@customElement('pd-usage-glance')
export class PdUsageGlance extends LitElement {
  /** The picked project (all projects when empty). */
  @property() project = '';

  constructor() {
    super();
    new UsageController(this);
  }

  static override styles = css`
    :host { display: flex; flex-wrap: wrap; align-items: center; gap: 0.35rem 0.6rem; font-size: 0.8rem; color: var(--pd-muted); }
    .spend { font-variant-numeric: tabular-nums; }
    .spend strong { color: var(--pd-fg); }
    /* On a phone the line says "all $0.42": with "projects" spelled out the chart took a line of its own in the sticky header. */
    @media (max-width: 640px) { .long { display: none; } }
    .quota { color: #fff; background: var(--pd-stalled); border-radius: 999px; padding: 0.1rem 0.55rem; font-weight: 700; }
  `;

  override render() {
    const q = usageState.quota;
    const mine = usageState.todayOf(this.project);
    const all = usageState.todayAll;
    return html`
      <span class="spend" data-testid="usage-today" title="today (UTC), the CLI's own estimate">
        today <strong>${money(mine.cost_usd)}</strong> · ${tokens(tokensOf(mine))}
      </span>
      ${this.project ? html`<span class="spend" data-testid="usage-all" title="today, all projects">all<span class="long"> projects</span> <strong>${money(all.cost_usd)}</strong></span>` : nothing}
      <pd-usage-chart .project=${this.project} data-testid="usage-chart"></pd-usage-chart>
      ${q?.limited && q.until
        ? html`<span class="quota" role="status" data-testid="quota" title=${q.reason ?? ''}>
            rate limited until ${clock(q.until)}${q.waiting_tasks ? ` (${q.waiting_tasks} task${q.waiting_tasks === 1 ? '' : 's'} waiting)` : ''}
          </span>`
        : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-usage-glance': PdUsageGlance;
  }
}
