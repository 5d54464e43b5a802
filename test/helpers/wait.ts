/**
 * Polls `probe` until it returns something truthy, and returns that; fails naming `what` after `ms`. Polls often at
 * first (5 ms) and backs off to every 50 ms. `what` may be a function, called at the timeout, to name the state the
 * wait ended in (what arrived so far, the last status). With `ignoreErrors`, a probe that throws counts as "not yet"
 * (a server still starting) and the last error is named in the timeout.
 */
export async function until<T>(
  probe: () => Promise<T | null | undefined | false> | T | null | undefined | false,
  what: string | (() => string),
  ms = 60_000,
  opts: { ignoreErrors?: boolean } = {},
): Promise<T> {
  const end = Date.now() + ms;
  let every = 5;
  let last: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v) return v;
    } catch (err) {
      if (!opts.ignoreErrors) throw err;
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}${last ? ` (${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, every));
    every = Math.min(50, every * 2);
  }
}
