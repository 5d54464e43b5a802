/**
 * The one place where the admin UI turns values into text: dates and times, numbers, counts, sizes, durations and
 * booleans. Every page formats through these, so one value looks the same everywhere: times follow the browser's
 * locale (its 12- or 24-hour clock, on charts too), numbers get the locale's grouping, booleans read "true"/"false"
 * in the grid and in SQL results alike.
 */
const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

type When = string | number | Date;

function toDate(v: When): Date {
  return v instanceof Date ? v : new Date(v);
}

/** 4096 → "4 KiB", 1536 → "1.5 KiB", 10 → "10 bytes". */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (Math.abs(n) < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`;
  let i = 0;
  let v = n;
  while (Math.abs(v) >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  const digits = v >= 100 || Number.isInteger(v) ? 0 : 1;
  return `${v.toFixed(digits).replace(/\.0$/, '')} ${UNITS[i]}`;
}

const numberFmt = new Intl.NumberFormat(undefined);

/** 12345 → "12,345" (the locale's grouping). */
export function formatNumber(n: number): string {
  return Number.isFinite(n) ? numberFmt.format(n) : '—';
}

/** (7, ['column', 'columns']) → "7 columns"; (1, …) → "1 column". Counts always put the number first. */
export function formatCount(n: number, noun: readonly [string, string]): string {
  return `${formatNumber(n)} ${n === 1 ? noun[0] : noun[1]}`;
}

/** true → "true", false → "false": one spelling for a boolean, whether it came as a JSON boolean or SQLite's 1/0. */
export function formatBoolean(v: boolean | number): string {
  return v === true || v === 1 ? 'true' : 'false';
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const dateTimeSeconds = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dateOnly = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });
const timeShort = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });
const timeSeconds = new Intl.DateTimeFormat(undefined, { hour: 'numeric', minute: '2-digit', second: '2-digit', fractionalSecondDigits: 3 });
const dayHour = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short', hour: 'numeric' });
const dayMonth = new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

function guard(v: When, f: (d: Date) => string): string {
  const d = toDate(v);
  return Number.isNaN(d.getTime()) ? String(v) : f(d);
}

/** "23 Nov 2026, 10:42" in the browser's locale and time zone. */
export function formatDateTime(v: When): string {
  return guard(v, (d) => dateTime.format(d));
}

/** "23 Nov 2026, 10:42:07": where seconds matter (a cell of the data grid, a log line). */
export function formatDateTimeSeconds(v: When): string {
  return guard(v, (d) => dateTimeSeconds.format(d));
}

/** "23 Nov 2026". */
export function formatDate(v: When): string {
  return guard(v, (d) => dateOnly.format(d));
}

/** "10:42" or "10:42 AM", as the locale writes a time of day (chart ticks, "Updated …"). */
export function formatTime(v: When): string {
  return guard(v, (d) => timeShort.format(d));
}

/** "10:42:07.123": a time of day to the millisecond (live change events). */
export function formatTimePrecise(v: When): string {
  return guard(v, (d) => timeSeconds.format(d));
}

/** "23 Nov, 10" / "23 Nov, 10 AM": a chart tick that spans days. */
export function formatDayHour(v: When): string {
  return guard(v, (d) => dayHour.format(d));
}

/** "23 Nov": a chart tick per day. */
export function formatDayMonth(v: When): string {
  return guard(v, (d) => dayMonth.format(d));
}

/** "just now", "5 minutes ago", "yesterday"… then the date and time beyond a month. */
export function formatRelative(v: When, now = Date.now()): string {
  const d = toDate(v);
  const t = d.getTime();
  if (Number.isNaN(t)) return String(v);
  const s = Math.round((t - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relative.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(s / 3600), 'hour');
  if (abs < 30 * 86_400) return relative.format(Math.round(s / 86_400), 'day');
  return formatDateTime(d);
}

/** 850 → "850 ms", 1500 → "1.5 s", 90000 → "1.5 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${+s.toFixed(2)} s`;
  const m = s / 60;
  return `${+m.toFixed(2)} min`;
}

/** ISO 8601 date-time with a zone (`2026-11-25T14:55:23.009Z`, `…+01:00`): such text in a cell shows as a date. */
export const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

export function percent(loaded: number, total: number | null): number | null {
  return total && total > 0 ? Math.min(100, Math.round((loaded / total) * 100)) : null;
}

/**
 * Who did something, in words: `account:alice` → "alice", `token:env` → "the admin token", `token:ci` → "API token
 * “ci”", `service:app:type:id` → "service account of app", `cli` → "the hearth command". The raw actor stays
 * available to show behind "Details".
 */
export function formatActor(actor: string): string {
  const [kind, ...rest] = actor.split(':');
  const tail = rest.join(':');
  if (kind === 'account' && tail) return tail;
  if (kind === 'token') return tail === 'env' ? 'the admin token' : `API token “${tail}”`;
  if (kind === 'service' && rest[0]) return `service account of ${rest[0]}`;
  const WORDS: Record<string, string> = { cli: 'the hearth command', core: 'Hearth', setup: 'first-run setup', anonymous: 'someone not signed in' };
  return WORDS[actor] ?? actor;
}
