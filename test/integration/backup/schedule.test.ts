/**
 * The backup schedule on an injected clock: it fires at the cron times, records results, never overlaps runs,
 * re-arms past setTimeout's limit, and stops.
 */
import { describe, expect, it } from 'vitest';
import { createBackupSchedule, type ScheduleClock } from '../../../server/core/backup/index.ts';
import { until } from '../../helpers/wait.ts';

/** A clock whose time moves only when the test says; due timers fire on `advance`. */
function manualClock(start: string) {
  let now = new Date(start).getTime();
  let seq = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const clock: ScheduleClock = {
    now: () => new Date(now),
    setTimeout: (fn, ms) => {
      const id = ++seq;
      timers.set(id, { at: now + ms, fn });
      return id;
    },
    clearTimeout: (id) => {
      timers.delete(id as number);
    },
  };
  return {
    clock,
    pending: () => timers.size,
    /** Moves the time forward by `ms`, firing every timer that falls due (in order) at its own time. */
    advance(ms: number) {
      const end = now + ms;
      for (;;) {
        const due = [...timers.entries()].filter(([, t]) => t.at <= end).sort((a, b) => a[1].at - b[1].at)[0];
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].fn();
      }
      now = end;
    },
  };
}

describe('createBackupSchedule', () => {
  it('fires at the cron time on the injected clock, and reports last run, success, error and next run', async () => {
    const c = manualClock('2026-11-26T02:59:00.000Z');
    const runs: string[] = [];
    let fail = false;
    let finish: (() => void) | null = null;
    const schedule = createBackupSchedule({
      cron: '0 3 * * *',
      timezone: 'UTC',
      clock: c.clock,
      run: async () => {
        runs.push(c.clock.now().toISOString());
        await new Promise<void>((r) => {
          finish = r;
        });
        if (fail) throw new Error('disk full');
      },
    });
    expect(schedule.status()).toEqual({
      cron: '0 3 * * *',
      lastRun: null,
      lastSuccess: null,
      lastError: null,
      nextRun: new Date('2026-11-26T03:00:00.000Z'),
      running: false,
    });

    c.advance(59_999);
    expect(runs).toEqual([]);
    c.advance(1);
    expect(runs).toEqual(['2026-11-26T03:00:00.000Z']);
    expect(schedule.status()).toMatchObject({ running: true, lastRun: new Date('2026-11-26T03:00:00.000Z') });

    // A run that outlasts the next occurrence: no second run meanwhile.
    c.advance(25 * 3600_000);
    expect(runs).toHaveLength(1);
    finish!();
    await until(() => !schedule.status().running, 'the run to end');
    expect(schedule.status()).toMatchObject({
      lastSuccess: new Date('2026-11-27T04:00:00.000Z'),
      lastError: null,
      nextRun: new Date('2026-11-28T03:00:00.000Z'),
    });

    fail = true;
    c.advance(23 * 3600_000);
    expect(runs).toEqual(['2026-11-26T03:00:00.000Z', '2026-11-28T03:00:00.000Z']);
    finish!();
    await until(() => !schedule.status().running, 'the failing run to end');
    expect(schedule.status()).toMatchObject({
      lastRun: new Date('2026-11-28T03:00:00.000Z'),
      lastSuccess: new Date('2026-11-27T04:00:00.000Z'),
      lastError: { at: new Date('2026-11-28T03:00:00.000Z'), message: 'disk full' },
      nextRun: new Date('2026-11-29T03:00:00.000Z'),
    });

    fail = false;
    c.advance(24 * 3600_000);
    finish!();
    await until(() => !schedule.status().running, 'the third run to end');
    expect(schedule.status()).toMatchObject({ lastSuccess: new Date('2026-11-29T03:00:00.000Z'), lastError: null });

    await schedule.stop();
    expect(schedule.status().nextRun).toBeNull();
    expect(c.pending()).toBe(0);
    c.advance(7 * 24 * 3600_000);
    expect(runs).toHaveLength(3);
  });

  it('waits past what one setTimeout can (a yearly schedule) by re-arming, and refuses a bad expression', async () => {
    const c = manualClock('2026-01-02T00:00:00.000Z');
    let runs = 0;
    const schedule = createBackupSchedule({
      cron: '0 0 1 1 *',
      timezone: 'UTC',
      clock: c.clock,
      run: async () => {
        runs++;
      },
    });
    expect(schedule.status().nextRun).toEqual(new Date('2027-01-01T00:00:00.000Z'));
    c.advance(300 * 24 * 3600_000); // several re-arms, no run
    expect(runs).toBe(0);
    c.advance(64 * 24 * 3600_000);
    expect(runs).toBe(1);
    await until(() => schedule.status().nextRun?.toISOString() === '2028-01-01T00:00:00.000Z', 'the next year to be planned');
    await schedule.stop();

    expect(() => createBackupSchedule({ cron: '61 * * * *', clock: c.clock, run: async () => {} })).toThrow(/invalid backup schedule "61 \* \* \* \*"/);
  });
});
