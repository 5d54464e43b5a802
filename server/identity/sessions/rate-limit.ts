/** In-memory sliding-window counter of failures per key (the client IP). Bounded: the oldest keys go first. */
export function createFailureLimiter(opts: { limit: number; windowMs: number; maxKeys?: number; now: () => number }) {
  const maxKeys = opts.maxKeys ?? 10_000;
  const failures = new Map<string, number[]>();
  const recent = (key: string): number[] => {
    const list = failures.get(key);
    if (!list) return [];
    const from = opts.now() - opts.windowMs;
    while (list.length > 0 && list[0]! <= from) list.shift();
    if (list.length === 0) failures.delete(key);
    return list;
  };
  return {
    /** Seconds until another attempt is allowed, or 0 when allowed now. */
    retryAfter(key: string): number {
      const list = recent(key);
      if (list.length < opts.limit) return 0;
      return Math.max(1, Math.ceil((list[list.length - opts.limit]! + opts.windowMs - opts.now()) / 1000));
    },
    fail(key: string): void {
      const list = recent(key);
      if (list.length === 0) {
        if (failures.size >= maxKeys) failures.delete(failures.keys().next().value!);
        failures.set(key, list);
      }
      list.push(opts.now());
    },
  };
}
