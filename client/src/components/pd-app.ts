// The application shell: the glance header on every view, the views (Tasks, Chat, Activity,
// Working set, Timeline, Health) behind tabs and the URL hash (so the back button works), the
// project picker, the connection banner, theme and notification settings, and the error notifier.
// On a wide screen the tabs are one row under the header; on a phone they are a bottom bar with
// the first four views and "More" for the rest, so every view is one or two taps away.
import { LitElement, css, html, nothing } from 'lit';
import { customElement, query, state } from 'lit/decorators.js';
import { ApiError, setToken, UNREACHABLE } from '../api.ts';
import { StoreController } from '../controllers/store-controller.ts';
import { clip } from '../format.ts';
import { enablePush, MOMENTS, savedMoments, type Moment } from '../push.ts';
import { BAD, store, type StatusChange } from '../store.ts';
import './pd-gates.ts';
import './pd-glance.ts';
import './pd-needs-you.ts';
import './pd-task-list.ts';
import './pd-schedules.ts';
import './pd-toast.ts';
import type { PdToast } from './pd-toast.ts';

/**
 * The views and forms that are not on the first screen, each its own chunk: the open parses only
 * what paints the tasks (the task journal, Activity and Chat bring the virtualizer). One is loaded
 * when first shown (Lit upgrades the element in place, keeping the properties it already set); the
 * service worker has every chunk cached, so a view opened offline loads too. Loading them all
 * ahead, when idle, cost a long task (a few hundred ms on a slow phone) for tabs perhaps never opened.
 */
const LAZY = {
  'pd-activity': () => import('./pd-activity.ts'),
  'pd-chat': () => import('./pd-chat.ts'),
  'pd-diagnostics': () => import('./pd-diagnostics.ts'),
  'pd-new-task': () => import('./pd-new-task.ts'),
  'pd-project-form': () => import('./pd-project-form.ts'),
  'pd-task-detail': () => import('./pd-task-detail.ts'),
  'pd-timeline': () => import('./pd-timeline.ts'),
  'pd-working-set': () => import('./pd-working-set.ts'),
};

type View = 'tasks' | 'chat' | 'activity' | 'working-set' | 'timeline' | 'health';
const VIEWS: [View, string][] = [
  ['tasks', 'Tasks'],
  ['chat', 'Chat'],
  ['activity', 'Activity'],
  ['working-set', 'Working set'],
  ['timeline', 'Timeline'],
  ['health', 'Health'],
];
/** How many views the phone's bottom bar shows before "More". */
const IN_BAR = 4;
/** Below this width the tabs become a bottom bar. */
const NARROW = '(max-width: 640px)';
const THEMES = ['auto', 'light', 'dark'] as const;

@customElement('pd-app')
export class PdApp extends LitElement {
  @state() private _view: View = 'tasks';
  /** The Tasks view shows only this glance group ('' for all): #/tasks?only=running. */
  @state() private _only = '';
  @state() private _task = '';
  @state() private _project = localStorage.getItem('pd.project') ?? '';
  @state() private _needsToken = false;
  @state() private _theme: (typeof THEMES)[number] = (localStorage.getItem('pd.theme') as (typeof THEMES)[number]) ?? 'auto';
  @state() private _settings = false;
  /** An open form: a project's settings, a new project, a new task. */
  @state() private _panel: '' | 'project' | 'new-project' | 'task' = '';
  @query('pd-toast') private _toast!: PdToast;
  /** A phone-sized screen: the views are a bottom bar. */
  @state() private _narrow = matchMedia(NARROW).matches;
  /** The bottom bar's "More" sheet is open. */
  @state() private _more = false;
  private _media = matchMedia(NARROW);
  private onMedia = () => {
    this._narrow = this._media.matches;
    this._more = false;
  };

  constructor() {
    super();
    new StoreController(this);
  }

  static override styles = css`
    :host { display: flex; flex-direction: column; min-height: 100vh; }
    header { position: sticky; top: 0; z-index: 5; }
    .bar { display: flex; gap: 0.5rem; align-items: center; padding: 0.4rem 0.75rem; background: var(--pd-card); border-bottom: 1px solid var(--pd-line); }
    .brand { font-weight: 800; color: var(--pd-accent); }
    select, .bar button { min-height: 40px; border-radius: 8px; border: 1px solid var(--pd-line); background: var(--pd-bg); color: var(--pd-fg); font: inherit; padding: 0 0.5rem; }
    /* A long project name is cut with an ellipsis; the full name is the tooltip and the open picker's list. */
    select { flex: 1; min-width: 0; max-width: 22rem; text-overflow: ellipsis; white-space: nowrap; overflow: hidden; }
    .spacer { flex: 0 0 auto; }
    nav.top { display: flex; gap: 0.25rem; padding: 0.3rem 0.5rem; background: var(--pd-bg); border-bottom: 1px solid var(--pd-line); }
    nav.top [role='tablist'] { display: flex; flex-wrap: wrap; gap: 0.25rem; }
    nav button { min-height: 44px; padding: 0 0.75rem; border: none; border-radius: 999px; background: none; color: var(--pd-muted); font: inherit; font-weight: 600; cursor: pointer; white-space: nowrap; }
    nav button[aria-selected='true'], nav button.current { background: var(--pd-accent); color: var(--pd-on-color, #fff); }
    /* The phone's bottom bar: one row of equal cells, "More" last, above the home indicator. */
    nav.bottom { position: fixed; left: 0; right: 0; bottom: 0; z-index: 6; background: var(--pd-card); border-top: 1px solid var(--pd-line);
      padding: 0.3rem 0.25rem calc(0.3rem + env(safe-area-inset-bottom)); display: flex; gap: 0.2rem; }
    nav.bottom [role='tablist'] { display: flex; flex: 4; gap: 0.2rem; min-width: 0; }
    nav.bottom button { flex: 1; min-width: 0; padding: 0 0.2rem; border-radius: 12px; font-size: 0.8rem; line-height: 1.1; white-space: normal; overflow-wrap: anywhere; }
    nav.bottom > button { flex: 1; }
    nav.bottom .sheet { position: absolute; right: 0.5rem; bottom: calc(100% + 0.4rem); display: grid; gap: 0.25rem; min-width: 12rem; padding: 0.4rem;
      background: var(--pd-card); border: 1px solid var(--pd-line); border-radius: 14px; box-shadow: 0 4px 18px rgb(0 0 0 / 0.25); }
    nav.bottom .sheet button { text-align: left; padding: 0 0.9rem; font-size: 1rem; min-height: 48px; }
    button:focus-visible, select:focus-visible { outline: 2px solid var(--pd-accent); outline-offset: 2px; }
    .banner { padding: 0.45rem 0.75rem; font-size: 0.9rem; font-weight: 600; background: var(--pd-stalled); color: var(--pd-on-color, #fff); }
    .banner.offline { background: var(--pd-failed); }
    .tools { display: flex; gap: 0.5rem; justify-content: flex-end; margin-bottom: 0.6rem; }
    .tools button { min-height: 44px; padding: 0 0.9rem; border-radius: 10px; border: 1px solid var(--pd-line); background: var(--pd-card); color: var(--pd-fg); font: inherit; font-weight: 700; cursor: pointer; }
    pd-project-form, pd-new-task { margin-bottom: 0.75rem; }
    .whose { margin: 0 0 0.5rem; font-weight: 700; overflow-wrap: anywhere; }
    .whose span { font-weight: 400; color: var(--pd-muted); }
    main { padding: 0.75rem; padding-bottom: calc(0.75rem + var(--pd-bottom-bar, 0px)); flex: 1; max-width: 60rem; width: 100%; box-sizing: border-box; margin: 0 auto; }
    form.settings { background: var(--pd-card); border-bottom: 1px solid var(--pd-line); padding: 0.6rem 0.75rem; display: grid; gap: 0.5rem; }
    form.settings fieldset { border: none; margin: 0; padding: 0; display: grid; gap: 0.35rem; }
    form.settings label { display: flex; gap: 0.5rem; align-items: center; min-height: 32px; }
    form.settings button { justify-self: start; min-height: 44px; padding: 0 1rem; border-radius: 10px; border: none; background: var(--pd-accent); color: var(--pd-on-color, #fff); font-weight: 700; }
    form.token { display: grid; gap: 0.5rem; max-width: 24rem; margin: 3rem auto; }
    form.token input { min-height: 44px; font: inherit; padding: 0 0.5rem; border-radius: 8px; border: 1px solid var(--pd-line); }
  `;

  override connectedCallback(): void {
    super.connectedCallback();
    this.applyTheme();
    window.addEventListener('hashchange', this.route);
    this._media.addEventListener('change', this.onMedia);
    this.route();
    this.addEventListener('open-task', ((e: CustomEvent<string>) => this.go(`task/${e.detail}`)) as EventListener);
    this.addEventListener('close-task', () => history.length > 1 ? history.back() : this.go('tasks'));
    this.addEventListener('pd-error', ((e: CustomEvent<string>) => this.error(e.detail)) as EventListener);
    window.addEventListener('online', this.netChange);
    window.addEventListener('offline', this.netChange);
    this.addEventListener('pd-notice', (e) => this._toast?.show(e.detail));
    this.addEventListener('pd-close', () => (this._panel = ''));
    this.addEventListener('pd-project-saved', (e) => {
      this._panel = '';
      this._toast?.show('Project saved.');
      this.pickProject(e.detail);
    });
    this.addEventListener('pd-task-created', () => {
      this._panel = '';
      this._toast?.show('Task started.');
      if (this._task) this.go('tasks');
    });
    store.addEventListener('task-status', this.notify as EventListener);
    store.start(this._project).then(() => {
      // A project remembered on this device that no longer exists: show all.
      if (this._project && !store.projects.has(this._project)) this.pickProject('');
    }).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 401) this._needsToken = true;
      else this._toast?.show(err instanceof Error ? err.message : String(err));
      if (!(err instanceof ApiError && err.status === 401)) setTimeout(() => location.reload(), 5000);
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.route);
    this._media.removeEventListener('change', this.onMedia);
    window.removeEventListener('online', this.netChange);
    window.removeEventListener('offline', this.netChange);
    store.removeEventListener('task-status', this.notify as EventListener);
    store.stop();
    this._headerSize.disconnect();
    this._header = null;
  }

  private route = () => {
    const h = location.hash.replace(/^#\/?/, '');
    if (h.startsWith('task/')) {
      this._task = h.slice(5);
      this._view = 'tasks';
    } else {
      this._task = '';
      const [v, query] = h.split('?');
      this._view = (VIEWS.find(([x]) => x === v)?.[0] ?? 'tasks') as View;
      const only = new URLSearchParams(query ?? '').get('only') ?? '';
      this._only = this._view === 'tasks' && ['running', 'stalled', 'failed', 'finished'].includes(only) ? only : '';
    }
    // Another view starts at its top, not where the last one was scrolled to.
    if (h !== this._route) window.scrollTo(0, 0);
    this._route = h;
  };
  private _route = '';

  /** Loads a lazy view's element (once; a failure, e.g. offline before the service worker has it, says so). */
  private need(tag: keyof typeof LAZY): void {
    if (customElements.get(tag)) return;
    LAZY[tag]().catch((err: Error) => this._toast?.show(`Could not load this view: ${err.message}`));
  }

  /** An action that did not reach the server. */
  @state() private _unsent = false;

  /**
   * An error for the person. One that only says the server cannot be reached is not stacked as
   * toasts while the connection banner already says so: the banner adds that the action was not sent.
   */
  private error(text: string): void {
    if (text === UNREACHABLE && (store.connection !== 'live' || !navigator.onLine)) this._unsent = true;
    else this._toast?.show(text);
  }

  private netChange = () => {
    if (navigator.onLine) this._unsent = false;
    this.requestUpdate();
  };

  private go(path: string): void {
    location.hash = `#/${path}`;
  }

  /** A glance chip: its tasks in the Tasks view; "needs you" brings its list into view. */
  private chip = async (e: CustomEvent<string>) => {
    if (e.detail !== 'needs-you') return this.go(`tasks?only=${e.detail}`);
    if (this._task) this.go('tasks');
    await this.updateComplete;
    this.renderRoot.querySelector('pd-needs-you')?.scrollIntoView({ block: 'start' });
  };

  /** A stall, a failure or a finished task raises a system notification while the page is hidden. */
  private notify = (e: CustomEvent<StatusChange>) => {
    const { task } = e.detail;
    if (!document.hidden || typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
    if (task.status !== 'stalled' && task.status !== 'success' && !BAD.has(task.status)) return;
    new Notification(`Task ${task.status.replace('_', ' ')}`, { body: clip(task.brief, 120), tag: `${task.id}:${task.status}` });
  };

  /** The picked project, '' for all. */
  private scope(): string {
    return this._project && store.projects.has(this._project) ? this._project : '';
  }

  /** One project for the views that need one (Chat, Working set): the picked one, else the newest. */
  private project(): string {
    if (this._project && store.projects.has(this._project)) return this._project;
    const newest = [...store.projects.values()].sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at))[0];
    return newest?.id ?? '';
  }

  private applyTheme(): void {
    if (this._theme === 'auto') document.documentElement.removeAttribute('data-theme');
    else document.documentElement.dataset.theme = this._theme;
    localStorage.setItem('pd.theme', this._theme);
  }

  override render() {
    if (this._needsToken) return this.tokenForm();
    const project = this.project();
    const scope = this.scope();
    return html`
      <header>
        <div class="bar">
          <span class="brand" title="petal-dispatch">pd</span>
          <label for="project" style="position:absolute;left:-9999px">Project</label>
          <select id="project" @change=${(e: Event) => this.pickProject((e.target as HTMLSelectElement).value)} aria-label="project"
            title=${scope ? (store.projects.get(scope)?.name ?? '') : 'All projects'}>
            <option value="" ?selected=${!scope}>All projects</option>
            ${[...store.projects.values()].map((p) => html`<option value=${p.id} ?selected=${p.id === scope} title=${p.name}>${p.name}</option>`)}
          </select>
          <button @click=${() => (this._panel = this._panel ? '' : scope ? 'project' : 'new-project')} aria-label=${scope ? 'project settings' : 'new project'}
            aria-expanded=${this._panel === 'project' || this._panel === 'new-project' ? 'true' : 'false'} title=${scope ? 'Project settings' : 'New project'} data-testid="project-settings">⚙</button>
          <span class="spacer"></span>
          <button @click=${() => (this._settings = !this._settings)} aria-expanded=${this._settings ? 'true' : 'false'} title="Notification settings">Notify</button>
          <button @click=${this.cycleTheme} aria-label=${`theme: ${this._theme}`} title="Theme">${this._theme === 'dark' ? '☾' : this._theme === 'light' ? '☀' : '◐'}</button>
        </div>
        ${this.banner()}
        <pd-glance .project=${scope} @pd-chip=${this.chip}></pd-glance>
        ${this._narrow ? nothing : html`<nav class="top" aria-label="views"><div role="tablist" aria-label="views">${VIEWS.map(([v, label]) => this.tab(v, label))}</div></nav>`}
      </header>
      ${this._settings ? this.settings() : nothing}
      <main>${this.panel(project, scope)}${this._task ? nothing : html`<pd-needs-you .project=${scope}></pd-needs-you>`}<pd-gates .taskId=${this._task}></pd-gates>${this.view(project, scope)}</main>
      ${this._narrow ? this.bottomBar() : nothing}
      <pd-toast></pd-toast>
    `;
  }

  /**
   * The connection, in one place: from the device's network (navigator.onLine, its online/offline
   * events) and the event stream's state — never as a pile of error toasts.
   */
  private banner() {
    const offline = !navigator.onLine || store.connection === 'offline';
    const c = offline ? 'offline' : store.connection;
    if (c === 'live' || c === 'connecting' || !store.loaded) return nothing;
    const text = offline ? 'Offline — no network. The view will catch up when you are back.' : 'Cannot reach the server — reconnecting… the view will catch up.';
    return html`<div class="banner ${offline ? 'offline' : ''}" role="status" data-testid="connection" data-state=${c}>
      ${text}${this._unsent ? html` <span data-testid="unsent">Your last action was not sent.</span>` : nothing}
    </div>`;
  }

  override willUpdate(): void {
    // Back online and live: what was not sent is the person's to redo; the note goes with the banner.
    if (this._unsent && navigator.onLine && store.connection === 'live') this._unsent = false;
  }

  /**
   * The sticky header's height as --pd-header, so a feed can be exactly as tall as the space between
   * it and the bottom bar: taller, its newest row and "↓ N new" hid under one of them on a phone.
   */
  private _headerSize = new ResizeObserver(([e]) => {
    const h = `${Math.ceil((e!.target as HTMLElement).offsetHeight)}px`;
    if (this.style.getPropertyValue('--pd-header') !== h) this.style.setProperty('--pd-header', h);
  });
  private _header: Element | null = null;

  override updated(): void {
    const header = this.renderRoot.querySelector('header');
    if (header !== this._header) {
      this._headerSize.disconnect();
      if (header) this._headerSize.observe(header);
      this._header = header;
    }
    // What the bottom bar covers, for the views that keep something at the bottom (the chat's composer, toasts).
    const bar = this.renderRoot.querySelector<HTMLElement>('nav.bottom');
    const h = bar ? `${bar.offsetHeight}px` : '';
    if (this.style.getPropertyValue('--pd-bottom-bar') !== h) {
      if (h) this.style.setProperty('--pd-bottom-bar', h);
      else this.style.removeProperty('--pd-bottom-bar');
    }
  }

  private tab(v: View, label: string) {
    return html`<button role="tab" data-view=${v} aria-selected=${this._view === v && !this._task ? 'true' : 'false'} @click=${() => this.pick(v)}>${label}</button>`;
  }

  private pick(v: View): void {
    this._more = false;
    this.go(v);
  }

  /** The phone's views: the first few as tabs, the rest behind "More" (a sheet above the bar). */
  private bottomBar() {
    const extra = VIEWS.slice(IN_BAR);
    const current = !this._task && extra.some(([v]) => v === this._view);
    return html`<nav class="bottom" aria-label="views" @keydown=${this.sheetKeys}>
      <div role="tablist" aria-label="views">${VIEWS.slice(0, IN_BAR).map(([v, label]) => this.tab(v, label))}</div>
      <button class=${current ? 'current' : ''} aria-label="More views" aria-expanded=${this._more ? 'true' : 'false'} aria-controls="more-views"
        aria-current=${current ? 'page' : 'false'} data-testid="more-views" @click=${this.toggleMore}>More</button>
      ${this._more ? html`<div class="sheet" id="more-views" role="tablist" aria-label="more views" aria-orientation="vertical">${extra.map(([v, label]) => this.tab(v, label))}</div>` : nothing}
    </nav>`;
  }

  private toggleMore = async () => {
    this._more = !this._more;
    if (!this._more) return;
    await this.updateComplete;
    this.renderRoot.querySelector<HTMLElement>('#more-views button')?.focus();
  };

  /** Escape closes the sheet and gives the focus back to "More". */
  private sheetKeys = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !this._more) return;
    this._more = false;
    this.renderRoot.querySelector<HTMLElement>('[data-testid=more-views]')?.focus();
  };

  private view(project: string, scope: string) {
    if (!store.loaded) return html`<p>Connecting…</p>`;
    if (this._task) {
      this.need('pd-task-detail');
      return html`<pd-task-detail .task=${this._task}></pd-task-detail>`;
    }
    switch (this._view) {
      case 'chat':
        this.need('pd-chat');
        return html`${this.whose(project, scope)}<pd-chat .project=${project}></pd-chat>`;
      case 'activity':
        this.need('pd-activity');
        return html`<pd-activity .project=${scope}></pd-activity>`;
      case 'working-set':
        this.need('pd-working-set');
        return html`${this.whose(project, scope)}<pd-working-set .project=${project}></pd-working-set>`;
      case 'timeline':
        this.need('pd-timeline');
        return html`<pd-timeline .project=${scope}></pd-timeline>`;
      case 'health':
        this.need('pd-diagnostics');
        return html`<pd-diagnostics></pd-diagnostics>`;
      default:
        return html`<div class="tools">
            <button @click=${() => (this._panel = 'task')} ?disabled=${!project} data-testid="new-task">+ Task</button>
            <button @click=${() => (this._panel = 'new-project')} data-testid="new-project">+ Project</button>
          </div>
          <pd-schedules .project=${scope}></pd-schedules>
          <pd-task-list .project=${scope} .only=${this._only} @pd-show-all=${() => this.go('tasks')}></pd-task-list>`;
    }
  }

  /**
   * Chat and Working set are one project's: with "All projects" picked they show the newest one, so
   * they say which (a message sent there goes to that project's orchestrator).
   */
  private whose(project: string, scope: string) {
    if (scope || store.projects.size < 2 || !project) return nothing;
    return html`<p class="whose" data-testid="whose">${store.projects.get(project)?.name ?? ''} <span>— the newest project; pick another in the menu above</span></p>`;
  }

  private panel(project: string, scope: string) {
    switch (this._panel) {
      case 'project':
        this.need('pd-project-form');
        return html`<pd-project-form .project=${scope}></pd-project-form>`;
      case 'new-project':
        this.need('pd-project-form');
        return html`<pd-project-form></pd-project-form>`;
      case 'task':
        this.need('pd-new-task');
        return html`<pd-new-task .project=${project}></pd-new-task>`;
      default:
        return nothing;
    }
  }

  /** Which moments notify this device (stalls, failures, finished work, a stopped loop). */
  private settings() {
    const chosen = new Set(savedMoments());
    const save = (e: Event) => {
      e.preventDefault();
      const form = e.target as HTMLFormElement;
      const moments = MOMENTS.filter((m) => (form.elements.namedItem(m) as HTMLInputElement).checked) as Moment[];
      enablePush(moments)
        .then(() => {
          this._settings = false;
          this._toast?.show('Notifications are on for this device.');
        })
        .catch((err: Error) => this._toast?.show(err.message));
    };
    return html`<form class="settings" @submit=${save} aria-label="notification settings">
      <fieldset><legend>Notify this device when…</legend>
        ${MOMENTS.map((m) => html`<label><input type="checkbox" name=${m} ?checked=${chosen.has(m)} /> ${m === 'success' ? 'a task finishes' : m === 'loop_stopped' ? 'the orchestrator stops' : m === 'gate_requested' ? 'a gate needs me' : m === 'budget_reached' ? 'the daily budget is spent' : `a task is ${m.replace('_', ' ')}`}</label>`)}
      </fieldset>
      <button type="submit">Turn on</button>
    </form>`;
  }

  /** Scopes every view and count to one project ('' for all); the store follows that project's journal only. */
  private pickProject(id: string): void {
    this._project = id;
    localStorage.setItem('pd.project', id);
    store.setScope(id).catch((err: Error) => this._toast?.show(err.message));
  }

  private cycleTheme = () => {
    this._theme = THEMES[(THEMES.indexOf(this._theme) + 1) % THEMES.length]!;
    this.applyTheme();
  };

  private tokenForm() {
    return html`<form class="token" @submit=${(e: Event) => {
      e.preventDefault();
      const input = (e.target as HTMLFormElement).querySelector('input')!;
      setToken(input.value.trim());
      location.reload();
    }}>
      <label for="token">This server needs its access token (DISPATCH_TOKEN).</label>
      <input id="token" type="password" autocomplete="current-password" required />
      <button type="submit">Connect</button>
    </form>`;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-app': PdApp;
  }
}
