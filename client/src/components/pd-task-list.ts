// The Tasks view: running and recent tasks of the picked project (or all, each card then naming
// its project) with status, attempt, elapsed time and last activity. A tap opens the task; the
// star focuses it everywhere in one action, and clears that focus when tapped again. A glance chip
// narrows it to one group (running, stalled, failed, finished) until "Show all". A card whose task
// has a change waiting for a decision says so. Tasks linked by depends_on show as one chain, in the
// order they run.
//
// @fires pd-show-all - the person asked for every task again
import { LitElement, css, html, nothing } from 'lit';
import { customElement, property } from 'lit/decorators.js';
import { ClockController } from '../controllers/clock-controller.ts';
import { StoreController } from '../controllers/store-controller.ts';
import { ago, clip, duration, elapsed } from '../format.ts';
import { BAD, store } from '../store.ts';
import { chainsOf, groupOf, tasksOf } from '../store/selectors.ts';
import type { Task } from '../schemas.ts';
import { workspaces } from '../workspaces.ts';
import './pd-status.ts';
import './pd-usage-cost.ts';

@customElement('pd-task-list')
export class PdTaskList extends LitElement {
  /** Only this project's tasks (all projects when empty). */
  @property() project = '';
  /** Only the tasks of this glance group (running, stalled, failed, finished); all when empty. */
  @property() only = '';

  private readonly _onChanges = () => this.requestUpdate();

  constructor() {
    super();
    new StoreController(this);
    new ClockController(this);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    workspaces.start();
    workspaces.addEventListener('change', this._onChanges);
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    workspaces.removeEventListener('change', this._onChanges);
  }

  static override styles = css`
    :host { display: block; }
    ul, ol { list-style: none; margin: 0; padding: 0; display: grid; gap: 0.5rem; }
    li.chain { display: block; border-left-color: var(--pd-accent); padding: 0.4rem; }
    .chain-head { margin: 0 0 0.4rem; color: var(--pd-muted); font-size: 0.8rem; font-weight: 600; }
    li { background: var(--pd-card); border: 1px solid var(--pd-line); border-left: 4px solid var(--pd-line); border-radius: 10px;
      display: grid; grid-template-columns: 1fr auto; gap: 0.25rem 0.5rem; padding: 0.6rem 0.7rem; }
    li[data-status='running'] { border-left-color: var(--pd-running); }
    li[data-status='stalled'] { border-left-color: var(--pd-stalled); background: color-mix(in srgb, var(--pd-stalled) 8%, var(--pd-card)); }
    li.bad { border-left-color: var(--pd-failed); background: color-mix(in srgb, var(--pd-failed) 7%, var(--pd-card)); }
    li[data-status='success'] { border-left-color: var(--pd-success); }
    li.focused { outline: 2px solid var(--pd-accent); }
    button.open { all: unset; cursor: pointer; min-width: 0; }
    button.open:focus-visible, button.star:focus-visible { outline: 2px solid var(--pd-accent); border-radius: 6px; }
    .brief { font-weight: 600; overflow-wrap: anywhere; }
    .meta { color: var(--pd-muted); font-size: 0.8rem; display: flex; gap: 0.75rem; flex-wrap: wrap; margin-top: 0.25rem; align-items: center; }
    .elapsed { font-variant-numeric: tabular-nums; color: var(--pd-fg); font-weight: 600; }
    button.star { background: none; border: 1px solid var(--pd-line); border-radius: 8px; color: var(--pd-muted); font-size: 1.1rem;
      min-width: 44px; min-height: 44px; cursor: pointer; align-self: start; }
    button.star[aria-pressed='true'] { color: var(--pd-accent); border-color: var(--pd-accent); }
    .empty { color: var(--pd-muted); padding: 2rem 0; text-align: center; }
    .only { display: flex; align-items: center; gap: 0.5rem; margin: 0 0 0.5rem; color: var(--pd-muted); }
    .only button { min-height: 40px; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); font: inherit; padding: 0 0.75rem; cursor: pointer; }
    .change { color: var(--pd-on-color, #fff); background: var(--pd-accent-strong, var(--pd-accent)); border-radius: 999px; padding: 0 0.5rem; font-weight: 700; }
    .project { font-weight: 600; color: var(--pd-fg); max-width: 12rem; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
  `;

  private sorted(): Task[] {
    const all = tasksOf(store.tasks, this.project);
    return (this.only ? all.filter((t) => groupOf(store.model, t) === this.only) : all).slice(0, 300);
  }

  override render() {
    const tasks = this.sorted();
    const only = this.only
      ? html`<p class="only" data-testid="only">Showing ${tasks.length} ${this.only} ${tasks.length === 1 ? 'task' : 'tasks'}
          <button @click=${() => this.dispatchEvent(new CustomEvent('pd-show-all', { bubbles: true, composed: true }))} data-testid="show-all">Show all</button></p>`
      : nothing;
    if (!tasks.length) {
      return html`${only}<p class="empty" data-testid="empty-tasks">${this.only ? `No ${this.only} tasks right now.` : 'No tasks yet. This view is live: work shows up here as it starts.'}</p>`;
    }
    const now = store.now();
    const waiting = new Set(workspaces.waitingTasks);
    return html`${only}<ul aria-label="tasks">
      ${chainsOf(tasks).map((item) => (Array.isArray(item) ? this.chain(item, now, waiting) : this.row(item, now, waiting)))}
    </ul>`;
  }

  /** A chain as one group: its tasks in the order they run, how far it got in its head. */
  private chain(tasks: Task[], now: number, waiting: Set<string>) {
    const done = tasks.filter((t) => t.status === 'success').length;
    const broken = tasks.some((t) => BAD.has(t.status) || t.status === 'skipped');
    return html`<li class="chain" data-testid="chain" data-chain=${tasks[0]!.id}>
      <p class="chain-head" data-testid="chain-head">chain of ${tasks.length} · ${done} of ${tasks.length} done${broken ? ' · broken' : ''}</p>
      <ol aria-label="chain">${tasks.map((t) => this.row(t, now, waiting))}</ol>
    </li>`;
  }

  private row(t: Task, now: number, waiting: Set<string>) {
    const focused = store.focus?.task_id === t.id;
    return html`<li data-task=${t.id} data-status=${t.status} class=${`${BAD.has(t.status) ? 'bad' : ''} ${focused ? 'focused' : ''}`}>
          <button class="open" @click=${() => this.open(t.id)}>
            <div class="brief">${clip(t.brief, 200)}</div>
            <div class="meta">
              <pd-status .status=${t.status}></pd-status>
              ${this.project ? '' : html`<span class="project" data-testid="task-project" title=${store.projects.get(t.project_id)?.name ?? ''}>${store.projects.get(t.project_id)?.name ?? ''}</span>`}
              <span>attempt ${t.attempt}</span>
              <span class="elapsed" data-testid="elapsed">${duration(elapsed(t.started_at, t.ended_at, now))}</span>
              <pd-usage-cost .task=${t.id}></pd-usage-cost>
              <span>active ${ago(t.last_activity_at, now)}</span>
              ${waiting.has(t.id) ? html`<span class="change" data-testid="change-waiting">change waiting</span>` : ''}
              ${t.status_reason ? html`<span title=${t.status_reason}>${clip(t.status_reason, 80)}</span>` : ''}
            </div>
          </button>
          <button class="star" aria-pressed=${focused ? 'true' : 'false'} aria-label="focus this task" title=${focused ? 'Focused — tap to clear' : 'Focus'}
            @click=${() => this.focusTask(t.id)}>${focused ? '★' : '☆'}</button>
        </li>`;
  }

  private open(id: string): void {
    this.dispatchEvent(new CustomEvent('open-task', { detail: id, bubbles: true, composed: true }));
  }

  /** The star toggles: it focuses this task, or clears the focus when this task has it. */
  private focusTask(id: string): void {
    // The focused Trellis thread stays focused: a focus names a thread and a task.
    const thread = store.focus?.thread_id ?? null;
    const task = store.focus?.task_id === id ? null : id;
    store.setFocus({ task_id: task, thread_id: thread }).catch((err: Error) =>
      this.dispatchEvent(new CustomEvent('pd-error', { detail: err.message, bubbles: true, composed: true })),
    );
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-task-list': PdTaskList;
  }
}
