// Whether Needs you (and the open gates above the view) fold to one line: on a phone's Chat view
// the conversation keeps the screen, and a tap on the line opens the list until the view changes.
const PHONE = '(max-width: 640px)';

class Fold extends EventTarget {
  private opened = false;
  private route = location.hash;

  constructor() {
    super();
    const changed = () => this.dispatchEvent(new Event('change'));
    window.addEventListener('hashchange', () => {
      if (location.hash !== this.route) this.opened = false;
      this.route = location.hash;
      changed();
    });
    matchMedia(PHONE).addEventListener('change', changed);
  }

  /** The view folds (a phone's Chat), open or not. */
  get applies(): boolean {
    return matchMedia(PHONE).matches && /^#\/?chat\b/.test(location.hash);
  }

  /** Folded now: the view folds and the person has not opened the list. */
  get folded(): boolean {
    return this.applies && !this.opened;
  }

  toggle(): void {
    this.opened = !this.opened;
    this.dispatchEvent(new Event('change'));
  }
}

export const fold = new Fold();
