/**
 * When to restart a server that crashed, and when to stop trying. Plain module (no Electron), tested under Node.
 *
 * Each crash waits `initialDelayMs × factor^(n−1)` (at most `maxDelayMs`), where n counts the crashes within the
 * last `windowMs`. The `maxCrashes`-th crash within that window gives up. A server that stays up longer than the
 * window has its earlier crashes forgotten.
 */
export interface RestartPolicyOptions {
  initialDelayMs?: number;
  maxDelayMs?: number;
  factor?: number;
  maxCrashes?: number;
  windowMs?: number;
}

export type RestartDecision = { restart: true; delayMs: number; crashes: number } | { restart: false; crashes: number };

export class RestartPolicy {
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
  readonly factor: number;
  readonly maxCrashes: number;
  readonly windowMs: number;
  private crashes: number[] = [];

  constructor(opts: RestartPolicyOptions = {}) {
    this.initialDelayMs = opts.initialDelayMs ?? 500;
    this.maxDelayMs = opts.maxDelayMs ?? 15_000;
    this.factor = opts.factor ?? 2;
    this.maxCrashes = opts.maxCrashes ?? 5;
    this.windowMs = opts.windowMs ?? 120_000;
  }

  /** Records a crash at `now` and says what to do. */
  crashed(now: number = Date.now()): RestartDecision {
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    const n = this.crashes.length;
    if (n >= this.maxCrashes) return { restart: false, crashes: n };
    return { restart: true, delayMs: Math.min(this.maxDelayMs, Math.round(this.initialDelayMs * this.factor ** (n - 1))), crashes: n };
  }

  /** Forgets every crash (the user asked to try again). */
  reset(): void {
    this.crashes = [];
  }
}
