// A picture of sessions over time: one row per task, a bar per session coloured by status, with
// its duration — for people who would rather look than read.
import { LitElement, css, html, svg } from 'lit';
import { customElement, property, state } from 'lit/decorators.js';
import { ClockController } from '../controllers/clock-controller.ts';
import { StoreController } from '../controllers/store-controller.ts';
import { clip, duration } from '../format.ts';
import { store } from '../store.ts';

const COLOR: Record<string, string> = {
  running: 'var(--pd-running)', stalled: 'var(--pd-stalled)', success: 'var(--pd-success)', queued: 'var(--pd-queued)',
  cancelled: 'var(--pd-queued)',
};

@customElement('pd-timeline')
export class PdTimeline extends LitElement {
  /** Limit to one project (all when empty). */
  @property() project = '';
  /** Limit to one task. */
  @property() task = '';

  /** The drawing's width in CSS pixels, so 12-unit labels are 12 px on a phone too. */
  @state() private _w = 1000;
  private _ro = new ResizeObserver(([e]) => {
    const w = Math.round(e?.contentRect.width ?? 0);
    if (w > 0 && w !== this._w) this._w = w;
  });

  constructor() {
    super();
    new StoreController(this);
    new ClockController(this);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this._ro.observe(this);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    this._ro.disconnect();
  }

  static override styles = css`
    :host { display: block; overflow-x: auto; }
    svg { width: 100%; font-family: var(--pd-font); }
    text { fill: var(--pd-fg); font-size: 12px; }
    .muted { fill: var(--pd-muted); }
    .empty { color: var(--pd-muted); font-size: 0.85rem; }
  `;

  override render() {
    const now = store.now();
    const tasks = [...store.tasks.values()]
      .filter((t) => (!this.project || t.project_id === this.project) && (!this.task || t.id === this.task))
      .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at))
      .slice(-20);
    const rows = tasks.map((t) => ({
      task: t,
      sessions: [...store.sessions.values()].filter((s) => s.task_id === t.id && s.started_at),
    }));
    const starts = rows.flatMap((r) => r.sessions.map((s) => Date.parse(s.started_at!)));
    if (!starts.length) return html`<p class="empty">No sessions to draw yet.</p>`;
    const t0 = Math.min(...starts);
    // The axis fits the sessions shown: it runs to now only while one of them still runs.
    const t1 = Math.max(t0 + 1000, ...rows.flatMap((r) => r.sessions.map((s) => (s.ended_at ? Date.parse(s.ended_at) : now))));
    const W = Math.max(320, this._w);
    const label = Math.min(260, Math.round(W * 0.36));
    const chars = Math.max(10, Math.floor(label / 7));
    const rowH = 26;
    const x = (t: number) => label + ((t - t0) / Math.max(1, t1 - t0)) * (W - label - 10);
    return html`<svg viewBox="0 0 ${W} ${rows.length * rowH + 20}" role="img" aria-label="timeline of sessions by task">
      ${rows.map((r, i) => {
        const y = i * rowH + 4;
        return svg`<text x="4" y=${y + 15}><title>${r.task.brief}</title>${clip(r.task.brief, chars)}</text>
          ${r.sessions.map((s) => {
            const a = Date.parse(s.started_at!);
            const b = s.ended_at ? Date.parse(s.ended_at) : now;
            const fill = COLOR[s.status] ?? 'var(--pd-failed)';
            return svg`<rect x=${x(a)} y=${y + 3} width=${Math.max(3, x(b) - x(a))} height=${rowH - 10} rx="3" fill=${fill}
                opacity=${s.role === 'worker' ? 1 : 0.55} data-session=${s.id}><title>${s.role} ${s.status} ${duration(b - a)}</title></rect>`;
          })}`;
      })}
      <text class="muted" x=${label} y=${rows.length * rowH + 16}>${new Date(t0).toLocaleTimeString()}</text>
      <text class="muted" x=${W - 8} text-anchor="end" y=${rows.length * rowH + 16}>${duration(t1 - t0)}</text>
    </svg>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-timeline': PdTimeline;
  }
}
