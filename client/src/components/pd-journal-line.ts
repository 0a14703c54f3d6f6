// One journal row rendered readably: assistant text, tool calls and results collapsed, errors in
// red. Everything a worker printed is shown as text — never as HTML.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import type { EventRow } from '../schemas.ts';

type Block = { type?: string; text?: string; name?: string; input?: unknown; content?: unknown; is_error?: boolean };

function blocks(row: EventRow): Block[] {
  const c = (row.payload as { message?: { content?: unknown } })?.message?.content;
  return Array.isArray(c) ? (c as Block[]) : [];
}

/** One line of what a tool call does or a result says, so a collapsed row can be read at a glance. */
function preview(v: unknown): string {
  let text: string;
  if (v && typeof v === 'object' && !Array.isArray(v)) {
    const o = v as Record<string, unknown>;
    const key = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description', 'prompt'].find((k) => typeof o[k] === 'string' && o[k]);
    text = key ? String(o[key]) : JSON.stringify(o);
  } else {
    text = asText(v);
  }
  const line = text.split('\n').find((l) => l.trim()) ?? '';
  const one = line.replace(/\s+/g, ' ').trim();
  return one.length > 90 ? `${one.slice(0, 89)}…` : one;
}

function asText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return v.map((x) => (typeof x === 'object' && x && 'text' in x ? String((x as { text: unknown }).text) : JSON.stringify(x))).join('\n');
  return JSON.stringify(v, null, 2);
}

@customElement('pd-journal-line')
export class PdJournalLine extends LitElement {
  /** The journal row to show. */
  @property({ attribute: false }) row!: EventRow;

  static override styles = css`
    /* width: a virtualised list places its rows absolutely, where a block shrinks to its text and
       the divider with it. */
    :host { display: block; width: 100%; box-sizing: border-box; border-bottom: 1px solid var(--pd-line); padding: 0.35rem 0; font-size: 0.9rem; }
    .preview { font-family: var(--pd-mono); font-size: 0.8rem; color: var(--pd-fg); }
    .head { color: var(--pd-muted); font-size: 0.75rem; display: flex; gap: 0.5rem; }
    .text { white-space: pre-wrap; overflow-wrap: anywhere; }
    .err { color: var(--pd-failed); }
    .ok { color: var(--pd-success); }
    details { margin: 0.2rem 0; }
    summary { cursor: pointer; color: var(--pd-muted); }
    pre { white-space: pre-wrap; overflow-wrap: anywhere; font-family: var(--pd-mono); font-size: 0.8rem; margin: 0.25rem 0;
      background: color-mix(in srgb, var(--pd-line) 40%, transparent); padding: 0.4rem; border-radius: 6px; max-height: 20rem; overflow: auto; }
  `;

  override render() {
    const r = this.row;
    const p = (r.payload ?? {}) as Record<string, unknown>;
    return html`<div class="head"><span>#${r.seq}</span><span>${r.event_type}</span><span>${new Date(r.created_at).toLocaleTimeString()}</span></div>
      ${this.body(r, p)}`;
  }

  private body(r: EventRow, p: Record<string, unknown>) {
    switch (r.event_type) {
      case 'claude.assistant':
        return blocks(r).map((b) =>
          b.type === 'text'
            ? html`<div class="text">${b.text}</div>`
            : b.type === 'tool_use'
              ? html`<details><summary>Tool call: ${b.name} <span class="preview">${preview(b.input)}</span></summary><pre>${asText(b.input)}</pre></details>`
              : html`<details><summary>${b.type ?? 'block'}</summary><pre>${asText(b)}</pre></details>`,
        );
      case 'claude.tool_result':
        return blocks(r).map(
          (b) => html`<details><summary class=${b.is_error ? 'err' : ''}>Tool result${b.is_error ? ' (error)' : ''} <span class="preview">${preview(b.content)}</span></summary><pre>${asText(b.content)}</pre></details>`,
        );
      case 'claude.result':
        return html`<div class="text ${p.is_error ? 'err' : 'ok'}">${p.is_error ? 'Error: ' : 'Result: '}${String(p.result ?? p.subtype ?? '')}</div>`;
      case 'claude.api_retry':
        return html`<div class="err">API retry ${p.attempt}/${p.max_retries}: ${p.error_status ?? ''} ${p.error ?? ''}</div>`;
      case 'claude.init':
        return html`<div>Session started (${String(p.model ?? '')})</div>`;
      case 'session.exited':
        return html`<div class=${p.status === 'success' ? 'ok' : 'err'}>Exited ${p.status}: ${p.reason}</div>`;
      case 'session.stalled':
        return html`<div class="err">Stalled: no output for ${Math.round(Number(p.silent_for_ms ?? 0) / 1000)} s</div>`;
      case 'stdout.non_json':
      case 'stdout.truncated_json':
      case 'stdout.oversized':
      case 'stdout.rejected':
        return html`<pre>${String(p.text ?? '')}</pre>`;
      case 'handoff.rejected':
        return html`<div class="err">Handoff rejected: ${asText(p.errors)}</div>`;
      case 'user_message':
        return html`<div class="text">${String(p.text ?? '')}</div>`;
      default:
        return Object.keys(p).length ? html`<details><summary>details</summary><pre>${asText(p)}</pre></details>` : nothing;
    }
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-journal-line': PdJournalLine;
  }
}
