// The Health view (SC-2): crashes and restarts per day for the last two weeks, from
// GET /api/health/daily — client crashes (journalled client.error) plus unclean server stops,
// against the plan's budget of at most 5 crashes a day.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { api } from '../api.ts';
import { HealthDailySchema, type HealthDaily } from '../../../core/contracts/diagnostics.valibot.ts';

/** SC-2: at most this many crashes a day. */
const CRASH_BUDGET = 5;

@customElement('pd-diagnostics')
export class PdDiagnostics extends LitElement {
  @state() private _days: HealthDaily['days'] | null = null;
  @state() private _error = '';

  static override styles = css`
    :host { display: block; padding: 0.75rem; }
    h2 { font-size: 1rem; margin: 0 0 0.5rem; }
    p { color: var(--pd-muted); font-size: 0.85rem; margin: 0 0 0.75rem; }
    table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; font-size: 0.9rem; }
    th, td { text-align: right; padding: 0.3rem 0.4rem; border-bottom: 1px solid var(--pd-line); }
    th:first-child, td:first-child { text-align: left; }
    tr.over td { color: var(--pd-failed); font-weight: 700; }
    button { font: inherit; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    void this.load();
  }

  private async load(): Promise<void> {
    try {
      this._days = (await api(HealthDailySchema, '/api/health/daily?days=14')).days;
      this._error = '';
    } catch (err) {
      this._error = (err as Error).message;
    }
  }

  override render() {
    const days = this._days;
    return html`
      <h2>Crashes and restarts</h2>
      <p>
        Per UTC day: client crashes (uncaught errors, unhandled rejections, a stream that would not reconnect) plus server
        stops that were not clean; the plan allows at most ${CRASH_BUDGET} a day.
        <button @click=${() => void this.load()} aria-label="Refresh">↻</button>
      </p>
      ${this._error ? html`<p role="alert">${this._error}</p>` : nothing}
      ${days === null
        ? html`<p>Loading…</p>`
        : html`<table data-testid="health-daily">
            <thead><tr><th>Day</th><th>Crashes</th><th>Client</th><th>Unclean stops</th><th>Restarts</th></tr></thead>
            <tbody>
              ${days.map(
                (d) => html`<tr class=${d.crashes > CRASH_BUDGET ? 'over' : ''} data-day=${d.day}>
                  <td>${d.day}</td><td data-col="crashes">${d.crashes}</td><td data-col="client">${d.client_crashes}</td>
                  <td data-col="unclean">${d.unclean_stops}</td><td data-col="restarts">${d.restarts}</td>
                </tr>`,
              )}
            </tbody>
          </table>`}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-diagnostics': PdDiagnostics;
  }
}
