// The Chat view: the orchestrator conversation of a project — the user's messages (painted at
// once, reconciled with their record, queued while work runs, orphaned with a retry), the
// orchestrator's words, its spawns and the refusals — and the composer. The conversation is a
// virtualised feed (pd-feed): newest at the bottom, pinned there unless the person scrolled up
// ("↓ N new" jumps back), and Send always brings the new message into view. Scrolled to its top,
// the next older part of the conversation pages in above (the bubble in view stays put), down to
// its start.
import { LitElement, css, html } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import { clip } from '../format.ts';
import type { EventRow } from '../schemas.ts';
import { store, type Message } from '../store.ts';
import { MESSAGE_LIMIT_BYTES, messageBytes, TooLongError } from '../store/outbox.ts';
import './pd-feed.ts';
import type { PdFeed } from './pd-feed.ts';

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
  @query('pd-feed') private _feed?: PdFeed<Item>;
  /** The last list built, and what it was built from (rebuilt only when one of them changed). */
  private _memo: { from: unknown[]; items: Item[] } | null = null;

  constructor() {
    super();
    new StoreController(this);
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('project')) store.showChat(this.project);
    this.fit();
  }

  private _resize = new ResizeObserver(() => this.fit());

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('resize', this.fit);
    // What is drawn above the chat (the header, Needs you) moves it: the body's size says so.
    this._resize.observe(document.body);
    if (this.project) store.showChat(this.project);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('resize', this.fit);
    this._resize.disconnect();
    store.showChat(null);
  }

  /** The conversation takes the height left under what is above it and over the composer, so the newest message is on screen. */
  private fit = () => {
    const list = this.renderRoot.querySelector<HTMLElement>('pd-feed > lit-virtualizer');
    const form = this.renderRoot.querySelector<HTMLElement>('form');
    if (!list || !form) return;
    const bar = parseFloat(getComputedStyle(this).getPropertyValue('--pd-bottom-bar')) || 0;
    const error = this.renderRoot.querySelector<HTMLElement>('[data-testid=chat-error]')?.offsetHeight ?? 0;
    const top = list.getBoundingClientRect().top + window.scrollY;
    const h = Math.max(240, Math.floor(window.innerHeight - top - form.offsetHeight - error - bar - 24));
    if (this._height !== h) {
      this._height = h;
      this.style.setProperty('--pd-feed-height', `${h}px`);
    }
  };
  private _height = 0;

  static override styles = css`
    :host { display: flex; flex-direction: column; gap: 0.5rem; }
    pd-feed > lit-virtualizer { background: var(--pd-bg); }
    pd-feed[hidden] { display: none; }
    /* Each row spans the list; the bubble inside sits left, right or centred. */
    li { list-style: none; width: 100%; box-sizing: border-box; padding: 0.25rem 0.6rem; display: flex; }
    .bubble { max-width: 85%; padding: 0.5rem 0.7rem; border-radius: 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
    li.user { justify-content: flex-end; }
    li.user .bubble { background: var(--pd-accent); color: var(--pd-on-color, #fff); }
    li.user.orphaned .bubble { background: var(--pd-failed); }
    li.orchestrator .bubble { background: var(--pd-card); border: 1px solid var(--pd-line); }
    li.spawn, li.refused { justify-content: center; text-align: center; }
    li.spawn .bubble, li.refused .bubble { font-size: 0.85rem; color: var(--pd-muted); }
    li.refused .bubble { color: var(--pd-failed); }
    .state { display: block; font-size: 0.75rem; opacity: 0.85; margin-top: 0.2rem; }
    .state button { font: inherit; color: inherit; background: rgba(255, 255, 255, 0.2); border: 1px solid currentColor; border-radius: 6px; cursor: pointer; min-height: 32px; }
    form { display: flex; gap: 0.5rem; position: sticky; bottom: var(--pd-bottom-bar, 0px); background: var(--pd-bg); padding: 0.4rem 0; }
    textarea { flex: 1; min-height: 44px; max-height: 30vh; resize: vertical; font: inherit; padding: 0.5rem; border-radius: 10px;
      border: 1px solid var(--pd-line); background: var(--pd-card); color: var(--pd-fg); }
    button.send { min-width: 64px; min-height: 44px; border-radius: 10px; border: none; background: var(--pd-accent); color: var(--pd-on-color, #fff); font-weight: 700; cursor: pointer; }
    .empty { color: var(--pd-muted); text-align: center; padding: 1rem; margin: 0; }
    .too-long { color: var(--pd-failed); font-weight: 700; margin: 0; }
    .sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
  `;

  /** The conversation, oldest first; rebuilt only when the journal, the messages, the sessions or the floor changed. */
  private items(): Item[] {
    const from = [this.project, store.journal.version, store.messages, store.sessions, store.chatFloor(this.project)];
    if (this._memo && this._memo.from.every((x, i) => x === from[i])) return this._memo.items;
    const items = this.build();
    this._memo = { from, items };
    return items;
  }

  private build(): Item[] {
    const items: Item[] = [];
    // Only from where the conversation is held complete: below, one kind may be paged further back than the other.
    const floor = store.chatFloor(this.project);
    for (const m of store.messages.values()) {
      if (m.project_id !== this.project || (m.seq !== null && m.seq < floor)) continue;
      items.push({ kind: 'user', key: `m:${m.message_id}`, order: m.seq ?? Number.MAX_SAFE_INTEGER - 1e6 + Date.parse(m.created_at) / 1e9, m });
    }
    // Keyed by the row and the text block within it: a key must not move when other rows arrive.
    const add = (e: EventRow, kind: 'orchestrator' | 'spawn' | 'refused', text: string, block = 0) =>
      items.push({ kind, key: `${e.event_id}:${block}`, order: e.seq, text });
    for (const e of store.journal.project(this.project)) {
      if (e.seq < floor) continue;
      const p = (e.payload ?? {}) as Record<string, unknown>;
      if (e.event_type === 'claude.assistant' && store.isOrchestrator(e.session_id)) {
        const content = (p.message as { content?: { type?: string; text?: string }[] } | undefined)?.content ?? [];
        content.forEach((b, i) => b.type === 'text' && b.text && add(e, 'orchestrator', b.text, i));
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
    const last = items.at(-1);
    const loading = store.chatLoading(this.project);
    return html`
      ${items.length
        ? ''
        : html`<p class="empty">${loading ? 'Loading the conversation…' : 'No conversation yet. Send the orchestrator an instruction.'}</p>`}
      <pd-feed ?hidden=${!items.length} label="conversation" startLabel="Start of the conversation" loadingLabel="Loading older messages…"
        olderLabel="Older messages" ?hasOlder=${store.hasOlderChat(this.project)} ?loading=${loading}
        @pd-older=${() => void store.loadChat(this.project).catch(() => {})} .items=${items} .keyFunction=${(it: Item) => it.key}
        .renderItem=${(it: Item) =>
          it.kind === 'user'
            ? html`<li class="user ${it.m.status}" data-message=${it.m.message_id} data-state=${it.m.status}><div class="bubble">${it.m.text}<span class="state">${this.label(it.m, busy)}</span></div></li>`
            : html`<li class=${it.kind}><div class="bubble">${it.text}</div></li>`}></pd-feed>
      <p class="sr" aria-live="polite" data-testid="chat-latest">${last && last.kind !== 'user' ? clip(last.text, 300) : ''}</p>
      ${this._error ? html`<p class="too-long" role="alert" data-testid="chat-error">${this._error}</p>` : ''}
      <form @submit=${this.submit}>
        <label for="msg" class="sr">Message to the orchestrator</label>
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
    // Show the new message even if the person had scrolled up: pin the feed to the newest row
    // now (it follows as the message is painted) and once more after this render.
    this._feed?.toBottom();
    void this.updateComplete.then(() => this._feed?.toBottom());
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
