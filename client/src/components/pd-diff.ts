// A task's change, readable on a phone: branch → base and its state, the files with their +/-
// counts (a tap jumps to the file), the patch as inert text — virtualised, so a 512 KiB patch
// scrolls as smoothly as a small one — and the decisions: Merge, Discard, Continue, and Resolve
// when the change conflicts with base (Merge anyway when the project's check refused it: not_verified).
// Its state lives in client/src/workspaces.ts.
import '@lit-labs/virtualizer';
import { flow } from '@lit-labs/virtualizer/layouts/flow.js';
import type { LitVirtualizer } from '@lit-labs/virtualizer/LitVirtualizer.js';
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';
import { workspaces, type Refusal, type Workspace } from '../workspaces.ts';

const LAYOUT = flow({});

const STATE_LABEL: Record<string, string> = {
  active: 'worker writing',
  ready: 'waiting for you',
  empty: 'no change',
  merging: 'merging…',
  merged: 'merged',
  discarding: 'discarding…',
  discarded: 'discarded',
  continued: 'continued by a follow-up task',
  superseded: 'superseded by a later attempt',
};

interface Line {
  n: number;
  text: string;
  kind: 'file' | 'hunk' | 'add' | 'del' | 'ctx' | 'note';
}

function linesOf(patch: string): Line[] {
  const out: Line[] = [];
  const raw = patch.endsWith('\n') ? patch.slice(0, -1).split('\n') : patch.split('\n');
  for (let n = 0; n < raw.length; n++) {
    const text = raw[n]!;
    const kind: Line['kind'] = text.startsWith('diff --git ') ? 'file'
      : text.startsWith('@@') ? 'hunk'
      : text.startsWith('+++') || text.startsWith('---') || text.startsWith('index ') ? 'note'
      : text.startsWith('+') ? 'add'
      : text.startsWith('-') ? 'del'
      : text.startsWith('[patch truncated') ? 'note'
      : 'ctx';
    out.push({ n, text, kind });
  }
  return out;
}

/**
 * @fires pd-open-task - a follow-up task was started (detail: its id)
 */
@customElement('pd-diff')
export class PdDiff extends LitElement {
  /** The task whose change to show. */
  @property() task = '';
  @state() private _busy = false;
  @state() private _refusal: Refusal | null = null;
  @state() private _continuing = false;
  /** Discard was tapped once: a second tap within a few seconds discards. */
  @state() private _confirmDiscard = false;
  private _discardTimer: ReturnType<typeof setTimeout> | undefined;
  @query('lit-virtualizer') private _v?: LitVirtualizer<Line> & HTMLElement;
  private _lines: { patch: string; lines: Line[] } | null = null;
  private readonly _onChange = () => this.requestUpdate();

  static override styles = css`
    :host { display: block; background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 10px; padding: 0.6rem 0.8rem; margin-top: 0.75rem; }
    :host([hidden]) { display: none; }
    h3 { margin: 0 0 0.4rem; font-size: 0.9rem; color: var(--pd-muted); }
    .meta { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; font-size: 0.9rem; }
    code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.85em; overflow-wrap: anywhere; }
    .state { border-radius: 999px; padding: 0.1rem 0.55rem; font-size: 0.8rem; font-weight: 700; border: 1px solid var(--pd-line); }
    .state[data-state='ready'] { background: var(--pd-accent-strong, var(--pd-accent)); border-color: transparent; color: #fff; }
    .state[data-state='merged'] { background: var(--pd-success); border-color: transparent; color: #fff; }
    .sum { color: var(--pd-muted); font-size: 0.85rem; margin: 0.3rem 0; }
    .alert { border: 1px solid var(--pd-failed); border-radius: 8px; padding: 0.4rem 0.6rem; margin: 0.4rem 0; overflow-wrap: anywhere; }
    .actions { display: flex; flex-wrap: wrap; gap: 0.5rem; margin: 0.5rem 0; }
    button { min-height: 44px; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-card); color: var(--pd-fg); padding: 0 0.9rem; cursor: pointer; font: inherit; }
    button.primary { background: var(--pd-accent-strong, var(--pd-accent)); color: #fff; border-color: transparent; font-weight: 700; }
    button:disabled { opacity: 0.6; cursor: default; }
    textarea { width: 100%; box-sizing: border-box; min-height: 4.5rem; font: inherit; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); padding: 0.4rem; }
    ul.files { list-style: none; margin: 0.3rem 0; padding: 0; }
    ul.files li { display: flex; gap: 0.5rem; align-items: center; }
    ul.files button { min-height: 36px; border: none; background: none; padding: 0; text-align: left; flex: 1; min-width: 0; overflow-wrap: anywhere; color: var(--pd-fg); text-decoration: underline; }
    .plus { color: var(--pd-success); font-variant-numeric: tabular-nums; }
    .minus { color: var(--pd-failed); font-variant-numeric: tabular-nums; }
    lit-virtualizer { height: var(--pd-diff-height, min(60dvh, 32rem)); border: 1px solid var(--pd-line); border-radius: 8px; background: var(--pd-bg); }
    .l { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.78rem; line-height: 1.35; white-space: pre-wrap; overflow-wrap: anywhere; padding: 0 0.4rem; width: 100%; box-sizing: border-box; }
    .l.add { background: color-mix(in srgb, var(--pd-success) 18%, transparent); }
    .l.del { background: color-mix(in srgb, var(--pd-failed) 18%, transparent); }
    .l.hunk { color: var(--pd-muted); }
    .l.file { font-weight: 700; margin-top: 0.4rem; border-top: 1px solid var(--pd-line); }
    .l.note { color: var(--pd-muted); }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    workspaces.start();
    workspaces.addEventListener('change', this._onChange);
    if (this.task) void workspaces.load(this.task).catch(() => {});
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    workspaces.removeEventListener('change', this._onChange);
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('task') && changed.get('task') !== undefined && this.task) {
      this._refusal = null;
      void workspaces.load(this.task).catch(() => {});
    }
  }

  override willUpdate(): void {
    this.hidden = workspaces.byTask.get(this.task) === null; // a task without a workspace shows nothing
  }

  private lines(patch: string): Line[] {
    if (this._lines?.patch !== patch) this._lines = { patch, lines: linesOf(patch) };
    return this._lines.lines;
  }

  /** Discard asks once more, like Cancel: the first tap arms it for 4 s, the second discards. */
  private discard(): void {
    clearTimeout(this._discardTimer);
    if (!this._confirmDiscard) {
      this._confirmDiscard = true;
      this._discardTimer = setTimeout(() => (this._confirmDiscard = false), 4000);
      return;
    }
    this._confirmDiscard = false;
    void this.decide('discard');
  }

  private async decide(action: 'merge' | 'discard', force = false): Promise<void> {
    this._busy = true;
    this._refusal = null;
    try {
      this._refusal = await workspaces.decide(this.task, action, { force });
    } catch (err) {
      this._refusal = { code: 'error', message: (err as Error).message, files: [] };
    } finally {
      this._busy = false;
    }
  }

  private async follow(how: { continue: string } | { resolve: true }): Promise<void> {
    this._busy = true;
    try {
      const t = await workspaces.follow(this.task, how);
      this._continuing = false;
      this._refusal = null;
      this.dispatchEvent(new CustomEvent('pd-open-task', { detail: t.id, bubbles: true, composed: true }));
    } catch (err) {
      this._refusal = { code: 'error', message: (err as Error).message, files: [] };
    } finally {
      this._busy = false;
    }
  }

  private jump(path: string): void {
    const i = this._lines?.lines.findIndex((l) => l.kind === 'file' && l.text.endsWith(` b/${path}`)) ?? -1;
    if (i >= 0) this._v?.element(i)?.scrollIntoView({ block: 'start' });
  }

  private continueForm() {
    return html`<form @submit=${(e: Event) => {
      e.preventDefault();
      const brief = (this.renderRoot.querySelector('textarea') as HTMLTextAreaElement).value.trim();
      if (brief) void this.follow({ continue: brief });
    }}>
      <label for="brief">What the follow-up task should do on this branch</label>
      <textarea id="brief" name="brief" required></textarea>
      <div class="actions"><button class="primary" type="submit" ?disabled=${this._busy}>Start follow-up</button>
        <button type="button" @click=${() => (this._continuing = false)}>Never mind</button></div>
    </form>`;
  }

  override render() {
    const w: Workspace | null | undefined = workspaces.byTask.get(this.task);
    if (w === undefined) return html`<p class="sum">Loading the change…</p>`;
    if (w === null) return nothing;
    const c = w.change;
    const plus = c?.files.reduce((n, f) => n + f.insertions, 0) ?? 0;
    const minus = c?.files.reduce((n, f) => n + f.deletions, 0) ?? 0;
    const decidable = w.state === 'ready' || w.state === 'empty';
    const conflicts = this._refusal?.files.length ? this._refusal.files : w.conflicts;
    return html`
      <h3>Change</h3>
      <div class="meta"><code data-testid="branch">${w.branch}</code> → <code>${w.base}</code>
        <span class="state" data-state=${w.state} data-testid="diff-state">${STATE_LABEL[w.state] ?? w.state}</span></div>
      ${c ? html`<div class="sum" data-testid="diff-summary">${c.files.length} file${c.files.length === 1 ? '' : 's'} · <span class="plus">+${plus}</span> <span class="minus">−${minus}</span></div>` : nothing}
      ${this._refusal ? html`<div class="alert" role="alert" data-testid="diff-refusal">${this._refusal.message}</div>` : nothing}
      ${decidable && conflicts.length && !this._refusal ? html`<div class="alert" role="alert">Conflicts with ${w.base} in: ${conflicts.join(', ')}</div>` : nothing}
      ${decidable
        ? html`<div class="actions">
            ${w.state === 'ready' ? html`<button class="primary" data-action="merge" ?disabled=${this._busy} @click=${() => void this.decide('merge')}>Merge into ${w.base}</button>` : nothing}
            ${w.state === 'ready' && this._refusal?.code === 'not_verified'
              ? html`<button data-action="force-merge" ?disabled=${this._busy} @click=${() => void this.decide('merge', true)}>Merge anyway</button>` : nothing}
            ${conflicts.length ? html`<button data-action="resolve" ?disabled=${this._busy} @click=${() => void this.follow({ resolve: true })}>Resolve</button>` : nothing}
            <button data-action="continue" ?disabled=${this._busy} @click=${() => (this._continuing = true)}>Continue</button>
            <button data-action="discard" ?disabled=${this._busy} @click=${() => this.discard()}
              aria-label=${this._confirmDiscard ? 'confirm: discard this change' : 'discard this change'}>${this._confirmDiscard ? 'Tap again to discard' : 'Discard'}</button>
          </div>`
        : nothing}
      ${this._continuing ? this.continueForm() : nothing}
      ${c?.files.length
        ? html`<ul class="files" aria-label="files changed">${c.files.map((f) => html`<li data-file=${f.path}>
            <button @click=${() => this.jump(f.path)}>${f.path}</button>
            ${f.binary ? html`<span>binary</span>` : html`<span class="plus">+${f.insertions}</span><span class="minus">−${f.deletions}</span>`}</li>`)}</ul>`
        : nothing}
      ${c?.truncated ? html`<div class="sum" data-testid="diff-truncated">The patch was cut at 512 KiB of ${Math.round(c.patch_bytes / 1024)} KiB; the branch holds the whole change.</div>` : nothing}
      ${c?.patch
        ? html`<lit-virtualizer scroller role="list" aria-label="patch" data-testid="patch" .layout=${LAYOUT} .items=${this.lines(c.patch)}
            .keyFunction=${(l: Line) => l.n} .renderItem=${(l: Line) => html`<div class="l ${l.kind}" role="listitem">${l.text || ' '}</div>`}></lit-virtualizer>`
        : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-diff': PdDiff;
  }
}
