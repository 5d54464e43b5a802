/** Polls `probe` every 50 ms until it returns something truthy, and returns that; fails naming `what` after `ms`. */
export async function until<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
