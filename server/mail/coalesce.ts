/**
 * One run at a time of an async job (a lane's pump, the settled topic's read): a call while a run is under way asks
 * for one more run after it (however many calls came), and answers the promise of the runs under way. Errors go to
 * `onError`, never to the callers, so a timer or a wake-up may call it without a catch of its own.
 */
export function coalesce(job: () => Promise<void>, onError: (err: unknown) => void) {
  let current: Promise<void> | null = null;
  let again = false;
  return {
    run(): Promise<void> {
      if (current) {
        again = true;
        return current;
      }
      current = (async () => {
        do {
          again = false;
          try {
            await job();
          } catch (err) {
            onError(err);
          }
        } while (again);
      })().finally(() => {
        current = null;
      });
      return current;
    },
    /** The run under way, or null. */
    running: (): Promise<void> | null => current,
  };
}
