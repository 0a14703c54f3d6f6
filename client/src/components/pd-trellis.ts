// The Trellis tile: the live thread (identity, title, last activity) and the focused one in one
// line; opened, the recent threads — one tap focuses a thread on every client — and the recent
// context of the focused (else the live) thread. Hidden when the server has no TRELLIS_URL; says
// "unavailable" in place when Trellis is down. Trellis's words are rendered as text, never HTML.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, state } from 'lit/decorators.js';
import { ClockController } from '../controllers/clock-controller.ts';
import { StoreController } from '../controllers/store-controller.ts';
import { ago, clip } from '../format.ts';
import type { Trellis } from '../schemas.ts';
import { store } from '../store.ts';
import { sameThread, trellis, type ThreadId } from '../trellis-state.ts';

type Thread = Extract<Trellis, { available: true }>['threads'][number];

/** When a thread last changed, under whichever name Trellis uses for it. */
function lastActivity(t: Thread): string | null {
  for (const k of ['updated_at', 'last_activity_at', 'last_activity', 'updated']) {
    const v = (t as Record<string, unknown>)[k];
    if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return v;
  }
  return null;
}

/** One context entry as a line of text: "role: words", whatever its shape. */
function contextLine(entry: unknown): { who: string; text: string } {
  if (typeof entry === 'string') return { who: '', text: entry };
  if (entry && typeof entry === 'object') {
    const e = entry as Record<string, unknown>;
    const who = [e.role, e.author, e.who].find((x) => typeof x === 'string') as string | undefined;
    const text = [e.text, e.content, e.summary, e.body].find((x) => typeof x === 'string') as string | undefined;
    return { who: who ?? '', text: text ?? JSON.stringify(entry) };
  }
  return { who: '', text: String(entry) };
}

const name = (t: Thread) => t.title ?? `#${t.id}`;

@customElement('pd-trellis')
export class PdTrellis extends LitElement {
  @state() private _open = false;
  private readonly onChange = () => this.requestUpdate();

  constructor() {
    super();
    new StoreController(this);
    new ClockController(this);
  }

  static override styles = css`
    :host { display: block; font-size: 0.85rem; color: var(--pd-muted); min-width: 0; }
    :host([hidden]) { display: none; }
    .line { display: flex; gap: 0.4rem; align-items: center; flex-wrap: wrap; }
    .line b { color: var(--pd-fg); }
    .id { font-family: ui-monospace, monospace; font-size: 0.75rem; }
    button { font: inherit; color: inherit; background: none; border: 1px solid var(--pd-line); border-radius: 8px; padding: 0.15rem 0.5rem; cursor: pointer; }
    button.toggle { border: none; padding: 0.15rem 0.3rem; }
    .panel { margin-top: 0.4rem; display: grid; gap: 0.5rem; }
    ul { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.35rem; }
    .threads button[aria-pressed='true'] { color: var(--pd-fg); border-color: var(--pd-running); font-weight: 700; }
    .badge { font-size: 0.7rem; border-radius: 999px; padding: 0 0.4rem; border: 1px solid var(--pd-line); }
    .context li { display: block; width: 100%; color: var(--pd-fg); white-space: pre-wrap; overflow-wrap: anywhere; }
    .context .who { color: var(--pd-muted); font-weight: 700; margin-right: 0.3rem; }
    .unavailable { color: var(--pd-stalled); }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    trellis.addEventListener('change', this.onChange);
    trellis.attach();
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    trellis.removeEventListener('change', this.onChange);
    trellis.detach();
  }

  private pick(id: ThreadId): void {
    trellis.focus(id).catch((err: Error) => this.dispatchEvent(new CustomEvent('pd-error', { detail: err.message, bubbles: true, composed: true })));
  }

  override render() {
    const v = trellis.view;
    // No TRELLIS_URL on the server: no tile at all.
    this.hidden = v !== null && !v.available && v.configured === false;
    if (this.hidden) return nothing;
    // Nothing until the first answer: a placeholder line would push the page down and, on the
    // servers without Trellis, up again (a layout shift on every open).
    if (v === null) return nothing;
    if (!v.available) {
      return html`<div class="line" data-testid="trellis">
        <span class="unavailable" data-testid="trellis-unavailable" title=${v.reason}>Trellis unavailable</span>
        <span>(${v.reason})</span>
        <button class="toggle" @click=${() => void trellis.load()} aria-label="Ask Trellis again" data-testid="trellis-refresh">↻</button>
      </div>`;
    }
    const focusId = store.focus?.thread_id ?? null;
    const live = v.live_thread;
    const focused = focusId === null ? undefined : (v.threads.find((t) => sameThread(t.id, focusId)) ?? (live && sameThread(live.id, focusId) ? live : undefined));
    const when = live ? lastActivity(live) : null;
    const contextThread = trellis.contextOf;
    const contextName = contextThread === null ? null : (v.threads.find((t) => sameThread(t.id, contextThread)) ?? live ?? undefined);
    return html`
      <div class="line" data-testid="trellis">
        <span>Live thread:</span>
        ${live
          ? html`<b data-testid="trellis-live">${clip(name(live), 60)}</b><span class="id" data-testid="trellis-live-id">${String(live.id)}</span>
              ${when ? html`<span data-testid="trellis-live-activity">· ${ago(when, store.now())}</span>` : nothing}`
          : html`<b data-testid="trellis-live">none</b>`}
        ${focusId !== null && !(live && sameThread(live.id, focusId))
          ? html`<span>· focus <b data-testid="trellis-focus">${focused ? clip(name(focused), 40) : String(focusId)}</b></span>`
          : nothing}
        <button class="toggle" @click=${() => void trellis.load()} aria-label="Ask Trellis again" data-testid="trellis-refresh">↻</button>
        <button class="toggle" aria-expanded=${String(this._open)} aria-controls="trellis-panel" data-testid="trellis-toggle"
          @click=${() => (this._open = !this._open)}>${this._open ? '▴ Trellis' : '▾ Trellis'}</button>
      </div>
      ${this._open
        ? html`<div class="panel" id="trellis-panel">
            <section aria-label="Recent Trellis threads">
              <ul class="threads" data-testid="trellis-threads">
                ${v.threads.map((t) => {
                  const isFocus = sameThread(t.id, focusId);
                  const act = lastActivity(t);
                  return html`<li>
                    <button data-thread=${String(t.id)} aria-pressed=${String(isFocus)} ?disabled=${sameThread(trellis.switching, t.id)}
                      title=${act ? `last activity ${ago(act, store.now())}` : String(t.id)} @click=${() => this.pick(t.id)}>
                      ${clip(name(t), 40)} ${live && sameThread(live.id, t.id) ? html`<span class="badge">live</span>` : nothing}
                    </button>
                  </li>`;
                })}
              </ul>
            </section>
            <section aria-label="Recent context">
              <div>Recent context${contextName ? html` of <b>${clip(name(contextName), 40)}</b>` : nothing}:</div>
              <ul class="context" data-testid="trellis-context">
                ${v.recent_context.length
                  ? v.recent_context.map((e) => {
                      const l = contextLine(e);
                      return html`<li>${l.who ? html`<span class="who">${l.who}</span>` : nothing}${clip(l.text, 400)}</li>`;
                    })
                  : html`<li>nothing yet</li>`}
              </ul>
            </section>
          </div>`
        : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-trellis': PdTrellis;
  }
}
