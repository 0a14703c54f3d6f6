// What one task cost, broken down by session role (worker, extractor, and the orchestrator turn's
// share) and by model, from GET /api/tasks/:id/usage; reloaded when the task's cost changes.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { api } from '../api.ts';
import { UsageController } from '../controllers/usage-controller.ts';
import { TaskUsageSchema, type TaskUsage, type UsageRow } from '../schemas.ts';
import { money, tokens, tokensOf, usageState } from '../usage-state.ts';

@customElement('pd-usage-breakdown')
export class PdUsageBreakdown extends LitElement {
  /** The task to break down. */
  @property() task = '';
  @state() private _usage: TaskUsage | null = null;
  private _seen = '';

  constructor() {
    super();
    new UsageController(this);
  }

  static override styles = css`
    :host { display: block; }
    table { border-collapse: collapse; width: 100%; font-size: 0.85rem; font-variant-numeric: tabular-nums; }
    th, td { text-align: left; padding: 0.15rem 0.4rem 0.15rem 0; }
    td.n { text-align: right; }
    tr.share td { color: var(--pd-muted); font-style: italic; }
    th[scope='rowgroup'] { color: var(--pd-muted); font-weight: 600; padding-top: 0.4rem; }
  `;

  override willUpdate(): void {
    // Reload when the task changes or its total moved (a session of it ended).
    const u = usageState.tasks.get(this.task);
    const key = `${this.task}|${u?.cost_usd ?? ''}|${u?.sessions ?? ''}`;
    if (key === this._seen || !this.task) return;
    this._seen = key;
    const task = this.task;
    void api(TaskUsageSchema, `/api/tasks/${task}/usage`).then(
      (r) => {
        if (task === this.task) this._usage = r;
      },
      () => {},
    );
  }

  override render() {
    const u = this._usage;
    if (!u || u.task_id !== this.task || (!u.total.sessions && u.by_role.length === 0)) return nothing;
    const row = (r: UsageRow, share = false) => html`<tr class=${share ? 'share' : ''} data-key=${r.key}>
      <td>${share ? `${r.key} (its share of the turn that started it)` : r.key}</td>
      <td class="n">${money(r.cost_usd)}</td>
      <td class="n">${tokens(tokensOf(r))}</td>
    </tr>`;
    return html`<section data-testid="usage-breakdown">
      <h3>Cost <span data-testid="task-total">${money(u.total.cost_usd)}</span></h3>
      <table>
        <tbody>
          <tr><th scope="rowgroup" colspan="3">by session</th></tr>
          ${u.by_role.map((r) => row(r, r.key === 'orchestrator'))}
          <tr><th scope="rowgroup" colspan="3">by model</th></tr>
          ${u.by_model.map((r) => row(r))}
        </tbody>
      </table>
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-usage-breakdown': PdUsageBreakdown;
  }
}
