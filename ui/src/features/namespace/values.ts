/**
 * How row values are shown in the grid and turned back into JSON values from what the admin typed.
 * The server is the judge of validity; these only build the JSON it expects (numbers as numbers,
 * JSON columns parsed) and catch what would otherwise be silently stored as a string.
 */
import type { Column, ColumnType } from '../../lib/api/data.ts';
import { formatBoolean, formatDateTimeSeconds, formatNumber, ISO_DATE_TIME } from '../../lib/format.ts';

/** Approximate byte length of a base64 string. */
export function base64Bytes(b64: string): number {
  const pad = b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((b64.length * 3) / 4) - pad);
}

/** A column as the grid draws it: rows tables know the declared type; a SQL result column may not. */
export interface GridColumn {
  name: string;
  type?: ColumnType;
  system?: boolean;
}

/** Identifiers, codes and years are numbers without grouping; everything else numeric is a measure (1,234). */
const NOT_A_MEASURE = /^(id|rowid|oid|year|zip|pin|port)$|_id$|[a-z]Id$|_(year|code|no|number)$/i;

export const isMeasure = (name: string) => !NOT_A_MEASURE.test(name);

/** Right-aligned, tabular figures: a numeric column, or a value that is a number (SQL results). */
export const numericCell = (c: GridColumn, v: unknown) => isNumeric(c.type) || (c.type === undefined && typeof v === 'number');

/**
 * What a grid cell shows (`text`) and its full value on hover (`title`): ISO date-times as the locale's date and
 * time (the stored value in the title), booleans — also SQLite's 1/0 in a boolean column — as true/false, measures
 * with the locale's grouping (ids never). Null is drawn by the grid itself.
 */
export function cellView(value: unknown, c: GridColumn): { text: string; title: string } {
  if (value === null || value === undefined) return { text: '', title: 'NULL' };
  if (typeof value === 'boolean' || (c.type === 'boolean' && (value === 0 || value === 1))) {
    const text = formatBoolean(value as boolean | number);
    return { text, title: text };
  }
  if (typeof value === 'string' && (c.type === 'datetime' || c.type === 'text' || c.type === undefined) && ISO_DATE_TIME.test(value)) {
    return { text: formatDateTimeSeconds(value), title: value };
  }
  if (typeof value === 'number' && c.type !== 'blob' && isMeasure(c.name) && Math.abs(value) >= 1000) {
    return { text: formatNumber(value), title: String(value) };
  }
  const text = display(value, c.type);
  return { text, title: text };
}

/** The text shown in a grid cell (null is drawn separately). */
export function display(value: unknown, type: ColumnType | undefined): string {
  if (value === null || value === undefined) return '';
  if (type === 'blob' && typeof value === 'string') {
    const n = base64Bytes(value);
    return `blob · ${n} ${n === 1 ? 'byte' : 'bytes'}`;
  }
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** The text put in an editor for an existing value. */
export function editText(value: unknown, type: ColumnType): string {
  if (value === null || value === undefined) return '';
  if (type === 'json') return JSON.stringify(value);
  return String(value);
}

export type Parsed = { ok: true; value: unknown } | { ok: false; error: string };

/**
 * Typed text → the JSON value for the API. `empty` decides what an empty input means: `omit` (insert
 * form: let the server apply NULL or report not_null) or the empty string for text columns.
 */
export function parseInput(raw: string, col: Column): Parsed {
  const type = col.type;
  const s = type === 'text' || type === 'blob' ? raw : raw.trim();
  switch (type) {
    case 'integer': {
      if (!/^[+-]?\d+$/.test(s)) return { ok: false, error: `Enter a whole number.` };
      const n = Number(s);
      if (!Number.isSafeInteger(n)) return { ok: false, error: 'This number is too large.' };
      return { ok: true, value: n };
    }
    case 'real': {
      if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return { ok: false, error: 'Enter a number (e.g. 12.5).' };
      return { ok: true, value: Number(s) };
    }
    case 'boolean': {
      const l = s.toLowerCase();
      if (l === 'true' || l === '1') return { ok: true, value: true };
      if (l === 'false' || l === '0') return { ok: true, value: false };
      return { ok: false, error: 'Choose true or false.' };
    }
    case 'json': {
      try {
        return { ok: true, value: JSON.parse(s) };
      } catch (err) {
        return { ok: false, error: `Not valid JSON: ${(err as Error).message}` };
      }
    }
    case 'blob': {
      const b = s.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b) || b.length % 4 !== 0) return { ok: false, error: 'Enter the bytes as base64 (e.g. aGVsbG8=).' };
      return { ok: true, value: b };
    }
    default:
      return { ok: true, value: s };
  }
}

export const TYPE_HINTS: Record<ColumnType, string> = {
  text: 'Text',
  integer: 'Whole number',
  real: 'Number',
  boolean: 'true or false',
  datetime: 'ISO 8601, e.g. 2026-01-31T09:30:00Z',
  date: 'YYYY-MM-DD',
  json: 'A JSON value, e.g. {"a": 1}',
  blob: 'Bytes as base64',
};

/** One line summarising a column's rules, e.g. "not null · unique · ≤ 80 chars". */
export function constraintsOf(c: Column): string[] {
  const out: string[] = [];
  if (c.not_null) out.push('not null');
  if (c.unique) out.push('unique');
  if (c.max_length !== undefined && c.max_length !== null) out.push(`max ${c.max_length} chars`);
  if (c.min !== undefined && c.min !== null) out.push(`≥ ${c.min}`);
  if (c.max !== undefined && c.max !== null) out.push(`≤ ${c.max}`);
  return out;
}

/** Right-aligned columns. */
export const isNumeric = (type: ColumnType | undefined) => type === 'integer' || type === 'real';
