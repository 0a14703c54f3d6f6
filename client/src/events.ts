// The custom events components send up to the app shell, typed: `fire(el, 'open-task', id)` and
// `addEventListener('open-task', (e) => e.detail)` agree on the detail's type.
export interface PdEventMap {
  /** Open a task's detail (detail: task id). */
  'open-task': string;
  /** Leave the task detail. */
  'close-task': undefined;
  /** Show an error in the app's one notifier (detail: the message). */
  'pd-error': string;
  /** Show a passing notice (detail: the message). */
  'pd-notice': string;
  /** A project was created or changed (detail: its id). */
  'pd-project-saved': string;
  /** A task was submitted (detail: its id). */
  'pd-task-created': string;
  /** Close the panel that sent it. */
  'pd-close': undefined;
}

declare global {
  interface HTMLElementEventMap {
    'open-task': CustomEvent<string>;
    'close-task': CustomEvent<undefined>;
    'pd-error': CustomEvent<string>;
    'pd-notice': CustomEvent<string>;
    'pd-project-saved': CustomEvent<string>;
    'pd-task-created': CustomEvent<string>;
    'pd-close': CustomEvent<undefined>;
  }
}

/** Sends a typed event up through shadow roots to the app shell. */
export function fire<K extends keyof PdEventMap>(el: EventTarget, type: K, ...detail: PdEventMap[K] extends undefined ? [] : [PdEventMap[K]]): void {
  el.dispatchEvent(new CustomEvent(type, { detail: detail[0], bubbles: true, composed: true }));
}
