// The schedules of the project in view (all projects when none): each with its cron expression, its
// next run in this device's time, and Pause / Resume. Refetched when a schedule.* row arrives on the
// journal stream, so a firing or a pause made elsewhere shows here. Nothing when there are none.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { api } from '../api.ts';
import { ScheduleListSchema, ScheduleSchema, type Schedule } from '../../../core/contracts/schedule.valibot.ts';
import { store } from '../store.ts';

@customElement('pd-schedules')
export class PdSchedules extends LitElement {
  /** Only this project's schedules (all when empty). */
  @property() project = '';
  @state() private _schedules: Schedule[] = [];
  @state() private _busy = new Set<string>();
  @state() private _error = '';
  private _seen = 0;
  private _loaded = '';
  private readonly _onStore = () => this.onStore();

  static override styles = css`
    :host { display: block; }
    section { border: 1px solid var(--pd-line, #ddd); border-radius: 12px; padding: 0.5rem 0.75rem; margin-bottom: 0.75rem; background: var(--pd-card, #fff); }
    h2 { font-size: 1rem; margin: 0 0 0.3rem; }
    ul { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.4rem; }
    li { display: flex; align-items: center; gap: 0.5rem; justify-content: space-between; }
    .brief { font-weight: 600; }
    .meta { font-size: 0.85rem; color: var(--pd-muted, #666); }
    code { font-size: 0.85rem; }
    button { min-height: 44px; min-width: 5.5rem; border-radius: 8px; border: 1px solid var(--pd-line, #ccc); font: inherit; cursor: pointer; }
    button:disabled { opacity: 0.5; }
    .error { color: var(--pd-failed, #c53030); font-size: 0.85rem; }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    store.addEventListener('change', this._onStore);
    void this.load();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    store.removeEventListener('change', this._onStore);
  }

  override updated(): void {
    if (this._loaded !== this.project) void this.load();
  }

  private onStore(): void {
    const rows = store.events;
    let touched = false;
    for (let i = rows.length - 1; i >= 0 && rows[i]!.seq > this._seen; i--) if (rows[i]!.event_type.startsWith('schedule.')) touched = true;
    if (rows.length) this._seen = Math.max(this._seen, rows[rows.length - 1]!.seq);
    if (touched) void this.load();
  }

  private async load(): Promise<void> {
    this._loaded = this.project;
    const q = this.project ? `?project_id=${encodeURIComponent(this.project)}` : '';
    const r = await api(ScheduleListSchema, `/api/schedules${q}`).catch(() => null);
    if (r) this._schedules = r.schedules;
  }

  private async toggle(s: Schedule): Promise<void> {
    this._busy = new Set([...this._busy, s.id]);
    try {
      const next = await api(ScheduleSchema, `/api/schedules/${s.id}/${s.paused ? 'resume' : 'pause'}`, { method: 'POST' });
      this._schedules = this._schedules.map((x) => (x.id === next.id ? next : x));
      this._error = '';
    } catch (err) {
      this._error = (err as Error).message;
    } finally {
      this._busy = new Set([...this._busy].filter((id) => id !== s.id));
    }
  }

  override render() {
    if (!this._schedules.length) return nothing;
    return html`<section aria-label="schedules">
      <h2>Schedules</h2>
      <ul>
        ${this._schedules.map((s) => html`<li data-schedule=${s.id} data-paused=${s.paused ? 'true' : 'false'}>
          <div>
            <div class="brief">${s.brief.split('\n')[0]!.slice(0, 100)}</div>
            <div class="meta"><code>${s.cron}</code>${s.time_zone ? ` ${s.time_zone}` : ''} ·
              <span data-testid="next-run">${s.paused ? 'paused' : s.next_run_at ? `next ${new Date(s.next_run_at).toLocaleString()}` : 'next run being computed'}</span>
              ${s.last_task_status ? html` · last run ${s.last_task_status}` : nothing}</div>
          </div>
          <button ?disabled=${this._busy.has(s.id)} @click=${() => this.toggle(s)} data-testid="toggle-schedule"
            aria-label=${`${s.paused ? 'resume' : 'pause'} the schedule ${s.brief.slice(0, 40)}`}>${s.paused ? 'Resume' : 'Pause'}</button>
        </li>`)}
      </ul>
      ${this._error ? html`<p class="error" role="alert">${this._error}</p>` : nothing}
    </section>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-schedules': PdSchedules;
  }
}
