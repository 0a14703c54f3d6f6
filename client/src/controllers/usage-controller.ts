// Re-renders its host whenever the usage state changes, and keeps that state following the store
// while the host is connected.
import type { ReactiveController, ReactiveControllerHost } from 'lit';
import { store } from '../store.ts';
import { usageState } from '../usage-state.ts';

export class UsageController implements ReactiveController {
  private readonly onChange = () => this.host.requestUpdate();
  private release: (() => void) | null = null;

  constructor(private readonly host: ReactiveControllerHost) {
    host.addController(this);
  }

  hostConnected(): void {
    usageState.addEventListener('change', this.onChange);
    this.release = usageState.use(store);
  }

  hostDisconnected(): void {
    usageState.removeEventListener('change', this.onChange);
    this.release?.();
    this.release = null;
  }
}
