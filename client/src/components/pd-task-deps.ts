// What a task waits for ("waits for: Write the parser — running") and what waits for it, live from
// the store; each names the other task's brief and status and opens it. Nothing without either.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { StoreController } from '../controllers/store-controller.ts';
import type { Task } from '../schemas.ts';
import { store } from '../store.ts';

const title = (t: Task) => t.brief.trim().split('\n')[0]!.slice(0, 80);

@customElement('pd-task-deps')
export class PdTaskDeps extends LitElement {
  /** The task whose dependencies are shown. */
  @property() task = '';

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: block; }
    p { margin: 0.3rem 0; font-size: 0.9rem; }
    .label { color: var(--pd-muted, #666); margin-right: 0.25rem; }
    a { color: inherit; font-weight: 600; }
    span.item { margin-right: 0.6rem; }
    .st { font-weight: 700; }
    .st[data-status='success'] { color: var(--pd-success, #2f855a); }
    .st[data-status='failed'], .st[data-status='crashed'], .st[data-status='skipped'] { color: var(--pd-failed, #c53030); }
  `;

  private item(id: string) {
    const t = store.tasks.get(id);
    if (!t) return html`<span class="item"><a href=${`#/task/${id}`}>${id.slice(0, 8)}</a></span>`;
    return html`<span class="item" data-dep=${id}><a href=${`#/task/${id}`}>${title(t)}</a> — <span class="st" data-status=${t.status}>${t.status}</span></span>`;
  }

  override render() {
    const t = store.tasks.get(this.task);
    if (!t) return nothing;
    const deps = t.depends_on ?? [];
    // Who waits for it: read off every known task, so a dependent submitted live shows at once.
    const after = [...store.tasks.values()].filter((x) => (x.depends_on ?? []).includes(t.id)).map((x) => x.id);
    if (!deps.length && !after.length) return nothing;
    const waiting = deps.filter((id) => store.tasks.get(id)?.status !== 'success');
    return html`
      ${deps.length
        ? html`<p data-testid="waits-for"><span class="label">${waiting.length && !t.started_at ? 'waits for:' : 'after:'}</span> ${deps.map((id) => this.item(id))}</p>`
        : nothing}
      ${after.length ? html`<p data-testid="waited-by"><span class="label">then:</span> ${after.map((id) => this.item(id))}</p>` : nothing}`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-task-deps': PdTaskDeps;
  }
}
