// The orchestrator's working set (FR-006): its mode, what is in flight, the handoffs it was given,
// the live thread and focus, its last message, and where and why the loop stopped.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { clip } from '../format.ts';
import { store } from '../store.ts';
import './pd-status.ts';

@customElement('pd-working-set')
export class PdWorkingSet extends LitElement {
  /** The project whose orchestrator to show. */
  @property() project = '';

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: block; }
    section { background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 10px; padding: 0.6rem 0.8rem; margin-bottom: 0.75rem; }
    h3 { margin: 0 0 0.4rem; font-size: 0.9rem; color: var(--pd-muted); }
    ul { margin: 0; padding-left: 1.1rem; }
    .stop { border-color: var(--pd-stalled); }
    .last { white-space: pre-wrap; overflow-wrap: anywhere; }
    .empty { color: var(--pd-muted); }
    button.link { all: unset; cursor: pointer; color: var(--pd-accent); text-decoration: underline; }
  `;

  override render() {
    const ws = store.workingSets.get(this.project);
    if (!ws) return html`<p class="empty">The orchestrator has not taken a turn in this project yet.</p>`;
    const open = (id: string) => this.dispatchEvent(new CustomEvent('open-task', { detail: id, bubbles: true, composed: true }));
    return html`
      <section data-testid="ws-mode"><h3>Mode and turn</h3>${ws.mode ?? 'autonomous'} · last turn <pd-status .status=${ws.turn_status ?? 'queued'}></pd-status></section>
      ${ws.stop ? html`<section class="stop" data-testid="ws-stop"><h3>Stopped: ${ws.stop.where}</h3>${ws.stop.why}</section>` : nothing}
      <section><h3>In flight</h3>${ws.in_flight?.length
        ? html`<ul>${ws.in_flight.map((t) => html`<li><button class="link" @click=${() => open(t.task_id)}>${clip(t.brief, 100)}</button> <pd-status .status=${store.tasks.get(t.task_id)?.status ?? t.status}></pd-status></li>`)}</ul>`
        : html`<span class="empty">nothing</span>`}</section>
      <section><h3>Handoffs it was given</h3>${ws.handoffs_given?.length ? html`<ul>${ws.handoffs_given.map((h) => {
        const row = store.events.find((e) => e.event_id === h);
        const goal = (row?.payload as { goal?: string } | undefined)?.goal;
        return html`<li>${row?.task_id ? html`<button class="link" @click=${() => open(row.task_id!)}>${goal ?? h}</button>` : (goal ?? h)}</li>`;
      })}</ul>` : html`<span class="empty">none</span>`}</section>
      <section><h3>Live thread and focus</h3>${ws.live_thread != null ? `thread #${ws.live_thread}` : 'no live thread'} ·
        ${store.focus?.task_id ? clip(store.tasks.get(store.focus.task_id)?.brief ?? store.focus.task_id, 80) : 'no focused task'}</section>
      <section><h3>Its last message</h3><div class="last">${ws.last_message ?? '—'}</div></section>
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-working-set': PdWorkingSet;
  }
}
