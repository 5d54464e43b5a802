/**
 * The Backups page's words: a cron expression in a sentence when it is a simple one ("every day at 03:00"), the
 * statuses and the steps of a running backup. A cron this does not recognise gives null: the page then shows the
 * expression itself (never a guess).
 *
 * Cron as croner reads it: five fields (minute hour day-of-month month day-of-week), an optional leading seconds
 * field, and the nicknames @hourly, @daily, @weekly, @monthly, @yearly. Times are the server's clock.
 */
import type { BackupEntry, BackupJob } from '../../lib/api/backups.ts';

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const DAY_NAMES: Record<string, number> = { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 };
const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** A whole number within [min, max], or null. */
function num(field: string, min: number, max: number): number | null {
  if (!/^\d{1,2}$/.test(field)) return null;
  const n = Number(field);
  return n >= min && n <= max ? n : null;
}

function weekday(field: string): number | null {
  const named = DAY_NAMES[field.toLowerCase()];
  if (named !== undefined) return named;
  const n = num(field, 0, 7);
  return n === null ? null : n % 7;
}

const pad = (n: number) => String(n).padStart(2, '0');

function ordinal(n: number): string {
  const tens = n % 100;
  if (tens >= 11 && tens <= 13) return `${n}th`;
  return `${n}${{ 1: 'st', 2: 'nd', 3: 'rd' }[n % 10] ?? 'th'}`;
}

/** `0 3 * * *` → "every day at 03:00"; null when the expression is not one of the simple shapes. */
export function cronInWords(cron: string): string | null {
  let fields = (NICKNAMES[cron.trim().toLowerCase()] ?? cron).trim().split(/\s+/);
  if (fields.length === 6) {
    // A leading seconds field: only a plain 0 keeps the sentence true.
    if (fields[0] !== '0') return null;
    fields = fields.slice(1);
  }
  if (fields.length !== 5) return null;
  const [min, hour, dom, month, dow] = fields as [string, string, string, string, string];
  if (month !== '*') {
    const m = Number(month);
    const d = num(dom, 1, 31);
    const h = num(hour, 0, 23);
    const mi = num(min, 0, 59);
    if (dow !== '*' || d === null || h === null || mi === null || !/^\d{1,2}$/.test(month) || m < 1 || m > 12) return null;
    const name = new Date(Date.UTC(2000, m - 1, 1)).toLocaleString('en-GB', { month: 'long', timeZone: 'UTC' });
    return `every year on ${d} ${name} at ${pad(h)}:${pad(mi)}`;
  }
  const everyMinutes = /^\*\/(\d{1,2})$/.exec(min);
  if (everyMinutes && hour === '*' && dom === '*' && dow === '*') {
    const n = Number(everyMinutes[1]);
    return n === 1 ? 'every minute' : n > 1 && n < 60 ? `every ${n} minutes` : null;
  }
  const mi = num(min, 0, 59);
  if (mi === null) return null;
  if (dom === '*' && dow === '*') {
    if (hour === '*') return mi === 0 ? 'every hour, on the hour' : `every hour at ${pad(mi)} minutes past`;
    const everyHours = /^\*\/(\d{1,2})$/.exec(hour);
    if (everyHours) {
      const n = Number(everyHours[1]);
      if (n < 2 || n > 23) return n === 1 ? `every hour at ${pad(mi)} minutes past` : null;
      return `every ${n} hours (from 00:${pad(mi)})`;
    }
  }
  const h = num(hour, 0, 23);
  if (h === null) return null;
  const at = `at ${pad(h)}:${pad(mi)}`;
  if (dom === '*' && dow === '*') return `every day ${at}`;
  if (dom === '*') {
    if (dow === '1-5' || dow.toLowerCase() === 'mon-fri') return `every weekday (Monday to Friday) ${at}`;
    if (dow === '0,6' || dow === '6,0' || dow.toLowerCase() === 'sat,sun') return `every Saturday and Sunday ${at}`;
    const d = weekday(dow);
    return d === null ? null : `every ${DAYS[d]} ${at}`;
  }
  if (dow === '*') {
    const d = num(dom, 1, 31);
    return d === null ? null : `on the ${ordinal(d)} of every month ${at}`;
  }
  return null;
}

export const STATUS: Record<BackupEntry['status'], { label: string; tone: 'success' | 'danger' | 'info' | 'warning'; title: string }> = {
  complete: { label: 'Complete', tone: 'success', title: 'The file is whole and its manifest is intact (hearth backup verify checks every byte).' },
  damaged: { label: 'Damaged', tone: 'danger', title: 'The file has no readable manifest: it cannot be restored.' },
  writing: { label: 'Being written', tone: 'info', title: 'A backup is writing this file now.' },
  stale: { label: 'Left over', tone: 'warning', title: 'A partial file left by a backup that stopped; the next scheduled clean-up removes it.' },
};

export const TRIGGER = { manual: 'Manual', schedule: 'Scheduled' } as const;

/** What the running step is doing, in words. */
const STEPS: Record<string, string> = {
  snapshot: 'Copying',
  archive: 'Writing',
  secrets: 'Sealing the secrets',
  finish: 'Finishing',
};

/** "Part 3 of 12 · Copying namespaces/….db" for a running job (`index` counts from 0; the secrets come after the parts). */
export function partLabel(job: BackupJob): string {
  const { parts, index, part, step } = job.progress;
  if (parts <= 0) return 'Starting…';
  if (step === 'finish') return `Finishing (${parts} parts written)`;
  if (step === 'secrets') return `${STEPS.secrets} (after ${parts} parts)`;
  return `Part ${Math.min(index + 1, parts)} of ${parts} · ${STEPS[step] ?? 'Writing'} ${part}`;
}

/** 0–100 from the part count (the parts differ in size, so this is the share of parts done). */
export function partPercent(job: BackupJob): number | null {
  if (job.state !== 'running') return 100;
  const { parts, index } = job.progress;
  if (parts <= 0) return null;
  return Math.min(99, Math.round((index / parts) * 100));
}
