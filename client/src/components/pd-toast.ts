// The one app-level notifier: errors from anywhere appear here, not as scattered alerts.
import { LitElement, css, html } from 'lit';
import { customElement, state } from 'lit/decorators.js';

@customElement('pd-toast')
export class PdToast extends LitElement {
  @state() private _messages: { id: number; text: string }[] = [];
  private next = 0;

  static override styles = css`
    :host { position: fixed; bottom: calc(1rem + var(--pd-bottom-bar, env(safe-area-inset-bottom))); left: 50%; transform: translateX(-50%); z-index: 10;
      display: flex; flex-direction: column; gap: 0.4rem; width: min(92vw, 28rem); }
    div { background: var(--pd-failed); color: var(--pd-on-color, #fff); padding: 0.6rem 0.8rem; border-radius: 10px; display: flex; gap: 0.5rem; align-items: center; }
    span { flex: 1; }
    button { background: none; border: 1px solid #fff; color: var(--pd-on-color, #fff); border-radius: 6px; min-width: 44px; min-height: 36px; cursor: pointer; }
  `;

  /** Shows a message for a few seconds; the same message again is not stacked, it stays longer. */
  show(text: string): void {
    const id = this.next++;
    this._messages = [...this._messages.filter((m) => m.text !== text), { id, text }];
    setTimeout(() => this.dismiss(id), 6000);
  }

  private dismiss(id: number): void {
    this._messages = this._messages.filter((m) => m.id !== id);
  }

  override render() {
    return this._messages.map((m) => html`<div role="alert"><span>${m.text}</span><button @click=${() => this.dismiss(m.id)} aria-label="dismiss">OK</button></div>`);
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-toast': PdToast;
  }
}
