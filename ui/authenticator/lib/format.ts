/** Texts of the authenticator app: times, the sign-in context, scopes. The app shows what the instance computed. */
import type { AppLoginContext } from './sdk.ts';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
const date = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' });

export function formatDateTime(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : dateTime.format(d);
}

export function formatDate(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : date.format(d);
}

/** "123 456": easier to compare aloud. */
export function spacedCode(code: string): string {
  return code.length === 6 ? `${code.slice(0, 3)} ${code.slice(3)}` : code;
}

/** Seconds left until `iso` (never negative). */
export function secondsLeft(iso: string, now = Date.now()): number {
  return Math.max(0, Math.round((Date.parse(iso) - now) / 1000));
}

export function formatCountdown(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `${m}:${String(s).padStart(2, '0')}`;
}

/** 3600 → "1 hour", 2592000 → "30 days". */
export function formatLifetime(seconds: number): string {
  const units: Array<[number, string]> = [
    [86_400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} hours`;
  if (seconds >= 60) return `${Math.round(seconds / 60)} minutes`;
  return `${seconds} seconds`;
}

const BROWSERS: Record<AppLoginContext['browser'], string> = {
  firefox: 'Firefox',
  chrome: 'Chrome',
  safari: 'Safari',
  edge: 'Edge',
  samsung: 'Samsung Internet',
  opera: 'Opera',
  other: 'A browser',
};
const SYSTEMS: Record<AppLoginContext['os'], string> = {
  windows: 'Windows',
  macos: 'macOS',
  'mac-or-ipad': 'a Mac or iPad',
  ios: 'iPhone or iPad',
  android: 'Android',
  linux: 'Linux',
  chromeos: 'ChromeOS',
  other: 'another system',
};

/** "Chrome on Linux". */
export function describeBrowser(c: AppLoginContext): string {
  return `${BROWSERS[c.browser]} on ${SYSTEMS[c.os]}`;
}

let regionNames: Intl.DisplayNames | null = null;
export function countryName(code: string): string {
  try {
    regionNames ??= new Intl.DisplayNames(undefined, { type: 'region' });
    return regionNames.of(code) ?? code;
  } catch {
    return code;
  }
}

/** "Berlin, Germany", "Germany", or null. */
export function describePlace(c: AppLoginContext): string | null {
  const country = c.country ? countryName(c.country) : null;
  if (c.city && country) return `${c.city}, ${country}`;
  return c.city ?? country;
}

export const LEVEL_TEXT: Record<AppLoginContext['level'], string> = {
  info: 'Nothing unusual',
  hint: 'Check the details',
  warn: 'Unusual sign-in: check carefully',
};

/** The history hints as sentences (none during the instance's introduction phase: `history` is null). */
export function historyLines(c: AppLoginContext): string[] {
  const h = c.history;
  if (!h) return [];
  const out: string[] = [];
  if (h.knownSince) out.push(`This browser has signed in to the account since ${formatDate(h.knownSince)}.`);
  else out.push('This browser has not signed in to the account before.');
  if (h.newCountry) {
    out.push(
      h.countriesSince
        ? `First sign-in from this country since ${formatDate(h.countriesSince)} (when places were first recorded).`
        : 'First sign-in from this country in the last 90 days.',
    );
  }
  return out;
}
