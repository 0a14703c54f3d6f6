// A long list, virtualised (only the rows on screen exist in the DOM), newest at the bottom: the
// view stays pinned to the newest row unless the person scrolled up, then a "↓ N new" button
// jumps back. Scrolling to the top asks for older rows, and the rows on screen stay put while
// they are inserted above.
import '@lit-labs/virtualizer';
// The layout is imported here, not left to the virtualizer's lazy import, so a feed never needs
// the network to render (a lazy chunk would fail while the server is down).
import { FlowLayout } from '@lit-labs/virtualizer/layouts/flow.js';
import type { LitVirtualizer } from '@lit-labs/virtualizer/LitVirtualizer.js';
import { LitElement, html, nothing, type TemplateResult } from 'lit';
import { customElement, property, query, state } from 'lit/decorators.js';

/** What a feed shares with its layout: the layout, and the row held in place while rows are inserted above it. */
interface Hold {
  layout: HeldFlow | null;
  /** The held row's index (-1: none). */
  index: number;
  /** Where its top was: px below the top of the list's viewport (negative: partly scrolled off). */
  offset: number;
}

/**
 * The flow layout, with one addition: a row pinned to the start sits where it was, `offset` px
 * from the viewport's top, not at the top itself (the virtualizer's pin knows only start, centre,
 * end). Pinned, it stays there while the rows above it are measured; a scroll of the person's ends it.
 */
class HeldFlow extends FlowLayout {
  private _hold: Hold | undefined;
  /** Set from the layout's config: the feed's Hold, which learns its layout here. */
  set hold(h: Hold) {
    this._hold = h;
    h.layout = this;
  }
  get hold(): Hold | undefined {
    return this._hold;
  }

  protected override _calculateScrollIntoViewPosition(options: { index: number; block?: ScrollLogicalPosition }): number {
    const at = super._calculateScrollIntoViewPosition(options);
    const h = this._hold;
    return h && h.index === options.index && (options.block ?? 'start') === 'start' ? this._clampScrollPosition(at - h.offset) : at;
  }

  override unpin(): void {
    if (this._hold) this._hold.index = -1;
    super.unpin();
  }
}

/**
 * @fires pd-older - the person reached the top and older rows exist (`hasOlder`)
 * @fires pd-follow - the view was pinned to the newest row (detail true) or left it to read older rows (false)
 */
@customElement('pd-feed')
export class PdFeed<T = unknown> extends LitElement {
  /** The rows, oldest first. */
  @property({ attribute: false }) items: readonly T[] = [];
  /** Draws one row. */
  @property({ attribute: false }) renderItem: (item: T, index: number) => TemplateResult = () => html``;
  /** A stable key per row (the event_id). */
  @property({ attribute: false }) keyFunction: (item: T) => unknown = (x) => x;
  /** Whether older rows exist on the server. */
  @property({ type: Boolean }) hasOlder = false;
  /** Whether older rows are being fetched. */
  @property({ type: Boolean }) loading = false;
  /** The list's accessible name. */
  @property() label = 'rows';
  /** Said above the oldest row when there is nothing older ('' for nothing). */
  @property() startLabel = 'Start of the journal';
  /** Said above the rows while older ones are fetched. */
  @property() loadingLabel = 'Loading older rows…';
  /** The button that asks for older rows. */
  @property() olderLabel = 'Older rows';
  @state() private _pinned = true;
  @state() private _newSince: unknown = null;
  @query('lit-virtualizer') private _v!: LitVirtualizer<T> & HTMLElement;
  /** The first row on screen, and the first row drawn (rows above the screen are drawn too). */
  private _first = 0;
  private _rangeFirst = 0;
  /** The row to hold in place while rows are inserted above it, and where its top was. */
  private _keyAtTop: unknown = undefined;
  private _offsetAtTop = 0;
  private readonly _hold: Hold = { layout: null, index: -1, offset: 0 };
  private readonly _layout = { type: HeldFlow, hold: this._hold };
  /** A row is being put back where it was: the top of the list is not the person's doing, so no more rows are asked for. */
  private _holding = false;
  private _asked = false;

  // No shadow root of its own: the rows are drawn in the host component's shadow root, so the
  // host's styles reach them; these rules are scoped by the tag name instead.
  override createRenderRoot() {
    return this;
  }

  static readonly css = `
    pd-feed { display: block; position: relative; }
    /* An outline, not a border: the virtualizer takes the box's outer height for its viewport, and with a border the newest row, pinned to the end, sat 2 px under it. */
    pd-feed > lit-virtualizer { height: var(--pd-feed-height, 70vh); outline: 1px solid var(--pd-line); outline-offset: -1px; border-radius: 10px; background: var(--pd-card); }
    pd-feed > lit-virtualizer:focus-visible { outline: 2px solid var(--pd-accent); outline-offset: -2px; }
    pd-feed > .older { display: flex; align-items: center; justify-content: center; color: var(--pd-muted); font-size: 0.8rem; padding: 0.2rem; min-height: 36px; box-sizing: border-box; }
    pd-feed > .older button { font: inherit; color: var(--pd-fg); background: var(--pd-bg); border: 1px solid var(--pd-line); border-radius: 999px; min-height: 32px; padding: 0 0.8rem; cursor: pointer; }
    pd-feed > .jump { position: absolute; right: 0.75rem; bottom: 0.75rem; z-index: 2; min-height: 40px; padding: 0 0.9rem; border-radius: 999px; border: none;
      background: var(--pd-accent-strong, var(--pd-accent)); color: var(--pd-on-color, #fff); font: inherit; font-weight: 700; cursor: pointer; box-shadow: 0 2px 8px rgb(0 0 0 / 0.25); }
  `;

  override willUpdate(changed: Map<string, unknown>): void {
    if (!changed.has('items')) return;
    const old = changed.get('items') as readonly T[] | undefined;
    // Rows inserted above the first one on screen: remember which row that was and where, to keep it there.
    if (old?.length && this.items.length && !this._pinned && this.keyFunction(this.items[0]!) !== this.keyFunction(old[0]!)) {
      const first = Math.min(this._first, old.length - 1);
      this._keyAtTop = this.keyFunction(old[first]!);
      this._offsetAtTop = this.topOf(first) ?? 0;
    }
  }

  /** Where the drawn row at `index` is: its top in px below the top of the list's viewport (undefined: not drawn). */
  private topOf(index: number): number | undefined {
    const v = this._v;
    if (!v) return undefined;
    // The virtualizer draws its range in order (after its sizer, which is not a row).
    const rows = [...v.children].filter((c) => !c.hasAttribute('virtualizer-sizer'));
    const row = rows[index - this._rangeFirst];
    return row ? row.getBoundingClientRect().top - v.getBoundingClientRect().top - v.clientTop : undefined;
  }

  /** Whether the view follows the newest row (pinned to the bottom). */
  get pinned(): boolean {
    return this._pinned;
  }

  override updated(changed: Map<string, unknown>): void {
    if (changed.has('_pinned') && changed.get('_pinned') !== undefined) this.dispatchEvent(new CustomEvent<boolean>('pd-follow', { detail: this._pinned }));
    if (changed.has('items')) {
      const i = this._keyAtTop === undefined ? -1 : this.items.findIndex((x) => this.keyFunction(x) === this._keyAtTop);
      this._keyAtTop = undefined;
      if (i >= 0 && this._v) this.hold(this._v, i, this._offsetAtTop);
      else if (this._pinned) this.toBottom();
    }
    if (changed.has('loading') && !this.loading) {
      this._asked = false;
      // Still at the top with nothing new drawn above (a page of rows this list does not show): on to the next.
      this.askIfAtTop();
    }
  }

  /** Pins row `index` `offset` px below the viewport's top, once the virtualizer has the new rows (the pin holds it while the rows above are measured). */
  private hold(v: LitVirtualizer<T> & HTMLElement, index: number, offset: number): void {
    this._holding = true;
    void v.updateComplete
      .then(() => {
        const layout = this._hold.layout;
        if (!layout || this._pinned) return;
        this._hold.index = index;
        this._hold.offset = offset;
        layout.pin = { index, block: 'start' };
        // No layout may be pending: do not wait forever. A list taken off the page rejects with 'disconnected'.
        return Promise.race([v.layoutComplete, new Promise((r) => setTimeout(r, 200))]);
      })
      .catch(() => {})
      .finally(() => {
        this._holding = false;
        this._asked = false;
      });
  }

  private askIfAtTop(): void {
    const v = this._v;
    if (v && !this._pinned && v.scrollTop < 40 && this.hasOlder && !this.loading && !this._asked && !this._holding) this.askOlder();
  }

  /** Scrolls to the newest row and stays there as rows arrive. */
  toBottom(): void {
    if (!this.items.length) return;
    this._pinned = true;
    this._newSince = null;
    this._intentAt = -Infinity;
    const v = this._v;
    if (!v) return;
    const go = () => {
      if (!this._pinned || !this.items.length) return;
      // Scrolls in the next moments are ours (and the virtualizer's settling), not the person's.
      this._autoUntil = performance.now() + 400;
      // The layout is pinned to the newest row: it stays at the bottom while that row and the ones
      // before it are measured (a row scrolled to once, then measured taller, left the view short
      // of the bottom). Until the layout exists, the virtualizer scrolls to it — natively for a row
      // already drawn, which scrolls the page as well: the list's newest row, not the page, is what
      // moves (opening a task must not jump past its header).
      const layout = this._hold.layout;
      if (layout) {
        layout.pin = { index: this.items.length - 1, block: 'end' };
        return;
      }
      const [x, y] = [window.scrollX, window.scrollY];
      v.element(this.items.length - 1)?.scrollIntoView({ block: 'end' });
      if (window.scrollX !== x || window.scrollY !== y) window.scrollTo(x, y);
    };
    go();
    // Again once the virtualizer has laid the new rows out (no layout may be pending: do not wait forever).
    // A list taken off the page meanwhile rejects layoutComplete with 'disconnected': nothing to scroll then.
    void v.updateComplete
      .then(() => Promise.race([v.layoutComplete, new Promise((r) => setTimeout(r, 200))]))
      .then(go, () => {});
  }

  /**
   * When the person last touched the list (wheel, touch, keys, pointer): scrolls right after are
   * theirs. Never is -Infinity, not 0: a page opened less than 600 ms ago is at performance.now()
   * < 600, and the layout's own scrolls then counted as the person's and unpinned a new page.
   */
  private _intentAt = -Infinity;
  /** Until when scroll events come from our own scrolling to the bottom. */
  private _autoUntil = 0;
  private onIntent = () => {
    this._intentAt = performance.now();
  };

  private onScroll = () => {
    const v = this._v;
    if (!v) return;
    const atBottom = v.scrollHeight - v.scrollTop - v.clientHeight < 24;
    if (atBottom && !this._pinned) {
      this._pinned = true;
      this._newSince = null;
    } else if (!atBottom && this._pinned && (performance.now() - this._intentAt < 600 || performance.now() > this._autoUntil)) this.unpin();
    this.askIfAtTop();
  };

  private unpin(): void {
    this._pinned = false;
    const last = this.items.at(-1);
    this._newSince = last === undefined ? null : this.keyFunction(last);
  }

  // The virtualizer drops its layout's pin on every scroll it did not make, the page's too: a person
  // scrolling the page down to the journal while the list still settled on its newest row left the
  // list short of it, and unpinned. Only the person's own scroll of the list, off the bottom, leaves
  // the newest row; any other scroll pins the layout to it again.
  private onUnpinned = () => {
    const v = this._v;
    if (!this._pinned || !v || !this.items.length) return;
    const theirs = performance.now() - this._intentAt < 600;
    if (theirs && v.scrollHeight - v.scrollTop - v.clientHeight >= 24) this.unpin();
    // After the layout has dropped its pin (it tells before it forgets).
    else if (!theirs) queueMicrotask(() => this._pinned && this.toBottom());
  };

  // When the rows shrink, the virtualizer's layout has the longer list for a moment (it takes new
  // rows a few microtasks after its directive) and may ask for rows past the end: none is drawn.
  private keyOf = (x: T | undefined) => (x === undefined ? x : this.keyFunction(x));

  private onRange = (e: Event) => {
    this._rangeFirst = (e as Event & { first: number }).first;
  };

  private onVisible = (e: Event) => {
    const { first } = e as Event & { first: number; last: number };
    this._first = first;
    if (first === 0 && this.hasOlder && !this.loading && !this._asked && !this._pinned && !this._holding) this.askOlder();
  };

  private askOlder(): void {
    this._asked = true;
    this.dispatchEvent(new CustomEvent('pd-older', { bubbles: true, composed: true }));
  }

  private newCount(): number {
    if (this._pinned || this._newSince === null) return 0;
    for (let i = this.items.length - 1, n = 0; i >= 0; i--, n++) if (this.keyFunction(this.items[i]!) === this._newSince) return n;
    return 0;
  }

  override render() {
    const n = this.newCount();
    return html`
      <style>${PdFeed.css}</style>
      <div class="older" aria-live="polite">
        ${this.loading
          ? this.loadingLabel
          : this.hasOlder
            ? html`<button @click=${() => this.askOlder()} data-testid="older">${this.olderLabel}</button>`
            : this.items.length && this.startLabel
              ? this.startLabel
              : nothing}
      </div>
      <lit-virtualizer scroller role="list" aria-label=${this.label} .layout=${this._layout} .items=${this.items as T[]}
        .keyFunction=${this.keyOf} .renderItem=${(x: T | undefined, i: number) => (x === undefined ? html`` : this.renderItem(x, i))}
        @scroll=${this.onScroll} @unpinned=${this.onUnpinned} @visibilityChanged=${this.onVisible} @rangeChanged=${this.onRange}
        @wheel=${this.onIntent} @touchstart=${this.onIntent} @keydown=${this.onIntent} @pointerdown=${this.onIntent}></lit-virtualizer>
      ${n ? html`<button class="jump" data-testid="jump-new" @click=${() => this.toBottom()}>↓ ${n} new</button>` : nothing}
    `;
  }
}

declare global {
  interface HTMLElementTagNameMap {
    'pd-feed': PdFeed;
  }
}
