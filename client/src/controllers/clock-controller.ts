// Re-renders its host every second while connected, so durations tick.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

export class ClockController implements ReactiveController {
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly host: ReactiveControllerHost,
    private readonly everyMs = 1000,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.timer = setInterval(() => this.host.requestUpdate(), this.everyMs);
  }

  hostDisconnected(): void {
    clearInterval(this.timer);
  }
}
