/**
 * The backup schedule: croner parses the cron expression and answers the next run after a given time; the timer is
 * ours, on an injectable clock, so tests drive it without waiting.
 *
 * Runs never overlap: the next run is planned when the current one ends, from the clock's time then (a run that
 * outlasts its interval skips the occurrences it covered; missed runs are not made up after a pause). Timers are
 * re-armed at most every 2^31-1 ms (what setTimeout can wait), so a yearly schedule works too, and a timer that fires
 * early only re-arms. The run's own errors are recorded, never thrown.
 */
import { Cron } from 'croner';
import { HearthError, quoteInput } from '../http/errors.ts';

export interface ScheduleClock {
  now(): Date;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface ScheduleStatus {
  cron: string;
  /** When the last run started (the one running now, if any). */
  lastRun: Date | null;
  /** When the last successful run ended (for `hearth_backup_last_success_timestamp_seconds`). */
  lastSuccess: Date | null;
  /** The last run's failure; null once a later run succeeds. */
  lastError: { at: Date; message: string } | null;
  /** The next planned run (null when stopped, or when the expression has no future time). */
  nextRun: Date | null;
  running: boolean;
}

export interface BackupSchedule {
  status(): ScheduleStatus;
  /** Stops planning runs and waits for a run in progress to end. */
  stop(): Promise<void>;
}

const systemClock: ScheduleClock = {
  now: () => new Date(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * Starts running `run` on the cron expression `cron` (5 fields, or 6 with seconds; croner's syntax, e.g.
 * `0 3 * * *` every day at 03:00). `timezone` is an IANA name (default: the machine's). A bad expression throws
 * `invalid_value` at once.
 */
export function createBackupSchedule(opts: { cron: string; run: () => Promise<void>; clock?: ScheduleClock; timezone?: string }): BackupSchedule {
  const clock = opts.clock ?? systemClock;
  let pattern: Cron;
  try {
    pattern = new Cron(opts.cron, { timezone: opts.timezone, mode: '5-or-6-parts' });
  } catch (err) {
    throw new HearthError('invalid_value', `invalid backup schedule ${quoteInput(opts.cron)}: ${(err as Error).message}`);
  }
  const state: ScheduleStatus = { cron: opts.cron, lastRun: null, lastSuccess: null, lastError: null, nextRun: null, running: false };
  let timer: unknown = null;
  let stopped = false;
  let current: Promise<void> | null = null;

  const arm = () => {
    if (stopped) return;
    const wait = state.nextRun ? state.nextRun.getTime() - clock.now().getTime() : null;
    if (wait === null) return;
    if (wait <= 0) {
      current = fire();
      return;
    }
    timer = clock.setTimeout(arm, Math.min(wait, MAX_TIMER_MS));
  };

  const plan = () => {
    state.nextRun = stopped ? null : pattern.nextRun(clock.now());
    arm();
  };

  const fire = async () => {
    timer = null;
    state.running = true;
    state.lastRun = clock.now();
    state.nextRun = pattern.nextRun(state.lastRun); // an estimate: the plan is made when this run ends
    try {
      await opts.run();
      state.lastSuccess = clock.now();
      state.lastError = null;
    } catch (err) {
      state.lastError = { at: clock.now(), message: (err as Error).message };
    } finally {
      state.running = false;
      current = null;
      plan();
    }
  };

  plan();
  return {
    status: () => ({ ...state }),
    async stop() {
      stopped = true;
      if (timer !== null) clock.clearTimeout(timer);
      timer = null;
      state.nextRun = null;
      await current;
    },
  };
}
