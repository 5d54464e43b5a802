/** The server's public health answer, shared by the header, the footer and the sign-in page. */
import { getHealth, type Health } from './api/health.ts';

class HealthState {
  current = $state<Health | null>(null);
  unreachable = $state(false);
  private inflight: Promise<void> | null = null;

  refresh(): Promise<void> {
    this.inflight ??= getHealth()
      .then(
        (h) => {
          this.current = h;
          this.unreachable = false;
        },
        () => {
          this.unreachable = true;
        },
      )
      .finally(() => {
        this.inflight = null;
      });
    return this.inflight;
  }
}

export const health = new HealthState();
