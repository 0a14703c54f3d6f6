// The Chat view: the orchestrator conversation of a project — the user's messages (painted at
// once, reconciled with their record, queued while work runs, orphaned with a retry), the
// orchestrator's words, its spawns and the refusals — and the composer.
import { LitElement, css, html } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import type { EventRow } from '../schemas.ts';
import { store, type Message } from '../store.ts';
import { MESSAGE_LIMIT_BYTES, messageBytes, TooLongError } from '../store/outbox.ts';

type Item =
  | { kind: 'user'; key: string; order: number; m: Message }
  | { kind: 'orchestrator' | 'spawn' | 'refused'; key: string; order: number; text: string };

@customElement('pd-chat')
export class PdChat extends LitElement {
  /** The project whose orchestrator this is. */
  @property() project = '';
  @state() private _sending = false;
  /** Why the draft was not sent (kept in the box). */
  @state() private _error = '';
  @query('textarea') private _input!: HTMLTextAreaElement;

  constructor() {
    super();
    new StoreController(this);
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('project') && this.project) void store.loadChat(this.project).catch(() => {});
  }

  static override styles = css`
    :host { display: flex; flex-direction: column; gap: 0.5rem; min-height: 60vh; }
    ol { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 0.45rem; flex: 1; }
    li { max-width: 85%; padding: 0.5rem 0.7rem; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
    li.user { align-self: flex-end; background: var(--pd-accent); color: var(--pd-on-color, #fff); }
    li.user.orphaned { background: var(--pd-failed); }
    li.orchestrator { align-self: flex-start; background: var(--pd-card); border: 1px solid var(--pd-line); }
    li.spawn, li.refused { align-self: center; font-size: 0.85rem; color: var(--pd-muted); background: none; }
    li.refused { color: var(--pd-failed); }
    .state { display: block; font-size: 0.75rem; opacity: 0.85; margin-top: 0.2rem; }
    .state button { font: inherit; color: inherit; background: rgba(255, 255, 255, 0.2); border: 1px solid currentColor; border-radius: 6px; cursor: pointer; min-height: 32px; }
    form { display: flex; gap: 0.5rem; position: sticky; bottom: 0; background: var(--pd-bg); padding: 0.4rem 0; }
    textarea { flex: 1; min-height: 44px; max-height: 30vh; resize: vertical; font: inherit; padding: 0.5rem; border-radius: 10px;
      border: 1px solid var(--pd-line); background: var(--pd-card); color: var(--pd-fg); }
    button.send { min-width: 64px; min-height: 44px; border-radius: 10px; border: none; background: var(--pd-accent); color: var(--pd-on-color, #fff); font-weight: 700; cursor: pointer; }
    .empty { color: var(--pd-muted); text-align: center; padding: 1rem; }
    .too-long { color: var(--pd-failed); font-weight: 700; margin: 0; }
  `;

  private items(): Item[] {
    const items: Item[] = [];
    for (const m of store.messages.values()) {
      if (m.project_id !== this.project) continue;
      items.push({ kind: 'user', key: `m:${m.message_id}`, order: m.seq ?? Number.MAX_SAFE_INTEGER - 1e6 + Date.parse(m.created_at) / 1e9, m });
    }
    const add = (e: EventRow, kind: 'orchestrator' | 'spawn' | 'refused', text: string) =>
      items.push({ kind, key: `${e.event_id}:${items.length}`, order: e.seq, text });
    for (const e of store.journal.project(this.project)) {
      const p = (e.payload ?? {}) as Record<string, unknown>;
      if (e.event_type === 'claude.assistant' && e.session_id && store.sessions.get(e.session_id)?.role === 'orchestrator') {
        const content = (p.message as { content?: { type?: string; text?: string }[] } | undefined)?.content ?? [];
        for (const b of content) if (b.type === 'text' && b.text) add(e, 'orchestrator', b.text);
      } else if (e.event_type === 'task.submitted' && p.spawned_by) {
        add(e, 'spawn', `Spawned a worker: ${String(p.brief)}${p.approach ? ` (approach: ${String(p.approach)})` : ''}`);
      } else if (e.event_type === 'spawn.refused') {
        const m = (p.matches as { reason?: string }[] | undefined)?.[0];
        add(e, 'refused', `Refused: ${String(p.approach)} — ruled out before${m?.reason ? `: ${m.reason}` : ''}`);
      }
    }
    return items.sort((a, b) => a.order - b.order);
  }

  override render() {
    const items = this.items();
    const busy = store.busy(this.project);
    return html`
      ${items.length ? '' : html`<p class="empty">No conversation yet. Send the orchestrator an instruction.</p>`}
      <ol aria-label="conversation" aria-live="polite">
        ${items.map((it) =>
          it.kind === 'user'
            ? html`<li class="user ${it.m.status}" data-message=${it.m.message_id} data-state=${it.m.status}>${it.m.text}<span class="state">${this.label(it.m, busy)}</span></li>`
            : html`<li class=${it.kind}>${it.text}</li>`,
        )}
      </ol>
      ${this._error ? html`<p class="too-long" role="alert" data-testid="chat-error">${this._error}</p>` : ''}
      <form @submit=${this.submit}>
        <label for="msg" style="position:absolute;left:-9999px">Message to the orchestrator</label>
        <textarea id="msg" placeholder="Message the orchestrator…" @keydown=${this.keydown} ?disabled=${!this.project}></textarea>
        <button class="send" type="submit" ?disabled=${this._sending || !this.project} aria-label="send message">Send</button>
      </form>
    `;
  }

  private label(m: Message, busy: boolean) {
    switch (m.status) {
      case 'sending':
        return 'sending…';
      case 'pending':
        return busy ? 'queued — delivered at next turn' : 'pending';
      case 'delivered':
        return 'delivered';
      case 'orphaned':
        return html`not recorded — <button @click=${() => void store.retry(m.message_id).catch(() => {})}>retry</button>`;
    }
  }

  private keydown(e: KeyboardEvent): void {
    if (e.key === 'Enter' && !e.shiftKey) {
      e.preventDefault();
      this.submit(e);
    }
  }

  private submit(e: Event): void {
    e.preventDefault();
    const text = this._input.value.trim();
    if (!text || !this.project) return;
    // Over the server's body limit: say so and keep the draft (a retry could only fail too).
    const bytes = messageBytes(text);
    if (bytes > MESSAGE_LIMIT_BYTES - 200) {
      this._error = `too long (${Math.ceil(bytes / 1024)} KB, limit ${MESSAGE_LIMIT_BYTES / 1024} KB)`;
      return;
    }
    this._error = '';
    this._input.value = '';
    this._sending = true;
    const sent = store.send(this.project, text);
    // Show the new message: scroll to the newest one once it is painted.
    void this.updateComplete.then(() => this.renderRoot.querySelector('ol > li:last-of-type')?.scrollIntoView({ block: 'end' }));
    sent
      .catch((err: Error) => {
        if (err instanceof TooLongError) {
          this._input.value = text;
          this._error = err.message;
        } else this.dispatchEvent(new CustomEvent('pd-error', { detail: err.message, bubbles: true, composed: true }));
      })
      .finally(() => (this._sending = false));
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-chat': PdChat;
  }
}
