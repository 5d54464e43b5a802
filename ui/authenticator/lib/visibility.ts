/** Resolves at once when the page is visible, else when it becomes visible (or `signal` aborts). Polls pause while hidden. */
export function whenVisible(signal: AbortSignal): Promise<void> {
  if (document.visibilityState === 'visible' || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      if (document.visibilityState !== 'visible' && !signal.aborted) return;
      document.removeEventListener('visibilitychange', done);
      signal.removeEventListener('abort', done);
      resolve();
    };
    document.addEventListener('visibilitychange', done);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Waits `ms`, until `signal` aborts, or until `wake()` is called; leaves no listener behind on the (long-lived) signal. */
export function sleep(ms: number, signal: AbortSignal): { done: Promise<void>; wake: () => void } {
  let wake = () => {};
  const done = new Promise<void>((resolve) => {
    let t: ReturnType<typeof setTimeout> | undefined;
    const finish = () => {
      clearTimeout(t);
      signal.removeEventListener('abort', finish);
      resolve();
    };
    wake = finish;
    if (signal.aborted) return finish();
    t = setTimeout(finish, ms);
    signal.addEventListener('abort', finish, { once: true });
  });
  return { done, wake };
}
