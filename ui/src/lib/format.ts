const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

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

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "23 Nov 2026, 10:42" in the browser's locale and time zone. */
export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

/** "just now", "5 minutes ago", "yesterday"… */
export function formatRelative(iso: string, now = Date.now()): string {
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const s = Math.round((t - now) / 1000);
  const abs = Math.abs(s);
  if (abs < 45) return 'just now';
  if (abs < 3600) return relative.format(Math.round(s / 60), 'minute');
  if (abs < 86_400) return relative.format(Math.round(s / 3600), 'hour');
  if (abs < 30 * 86_400) return relative.format(Math.round(s / 86_400), 'day');
  return formatDateTime(iso);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${+s.toFixed(2)} s`;
  const m = s / 60;
  return `${+m.toFixed(2)} min`;
}

export function percent(loaded: number, total: number | null): number | null {
  return total && total > 0 ? Math.min(100, Math.round((loaded / total) * 100)) : null;
}
