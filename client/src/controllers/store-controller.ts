// Re-renders its host whenever the store changes.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { store } from '../store.ts';

export class StoreController implements ReactiveController {
  private readonly onChange = () => this.host.requestUpdate();

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {
    store.addEventListener('change', this.onChange);
  }

  hostDisconnected(): void {
    store.removeEventListener('change', this.onChange);
  }
}
