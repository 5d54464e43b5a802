/**
 * What a start opened, closed in one place. Each step of a start that opens something (a store, a service, a
 * listener) pushes how to close it; a start that fails half-way and a stop are then the same loop: everything pushed
 * so far, newest first. A close that fails does not keep the older ones open: each is tried, and the first failure is
 * thrown once all have run (`closeAll`), or reported beside the start's own error (`abort`).
 */

export class Closers {
  readonly #stack: Array<{ name: string; close: () => unknown }> = [];

  /** Registers how to close what a step just opened (closed before everything pushed earlier). */
  push(name: string, close: () => unknown): void {
    this.#stack.push({ name, close });
  }

  /** Closes everything pushed so far, newest first; rejects with the first failure after all of them ran. */
  async closeAll(): Promise<void> {
    let first: unknown = null;
    for (let step = this.#stack.pop(); step; step = this.#stack.pop()) {
      try {
        await step.close();
      } catch (err) {
        first ??= Object.assign(new Error(`closing ${step.name} failed: ${(err as Error)?.message ?? String(err)}`), { cause: err });
      }
    }
    if (first) throw first;
  }

  /** For a start that failed: closes what it opened (newest first), then throws the start's error. */
  async abort(err: unknown): Promise<never> {
    await this.closeAll().catch(() => {});
    throw err;
  }
}
