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
