import { HearthError } from '../../core/http/errors.ts';

/**
 * Column types of the database service and how values cross the API:
 * | type     | stored as        | JSON in/out                        |
 * |----------|------------------|------------------------------------|
 * | text     | TEXT             | string                             |
 * | integer  | INTEGER          | integer (safe range)               |
 * | real     | REAL             | number                             |
 * | boolean  | INTEGER 0/1      | true/false                         |
 * | datetime | TEXT (ISO 8601)  | string, normalised to UTC `…Z`     |
 * | date     | TEXT YYYY-MM-DD  | string                             |
 * | json     | TEXT (JSON)      | any JSON value                     |
 * | blob     | BLOB             | base64 string                      |
 */
export const COLUMN_TYPES = ['text', 'integer', 'real', 'boolean', 'datetime', 'date', 'json', 'blob'] as const;
export type ColumnType = (typeof COLUMN_TYPES)[number];

export const SQL_TYPE: Record<ColumnType, string> = {
  text: 'TEXT',
  integer: 'INTEGER',
  real: 'REAL',
  boolean: 'INTEGER',
  datetime: 'TEXT',
  date: 'TEXT',
  json: 'TEXT',
  blob: 'BLOB',
};

export interface ColumnDef {
  name: string;
  type: ColumnType;
  not_null?: boolean;
  unique?: boolean;
  max_length?: number;
  min?: number;
  max?: number;
}

/** A column as the service sees it: user columns plus the three system columns. */
export interface ColumnInfo extends ColumnDef {
  system?: boolean;
}

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME_RE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i;

function validDay(y: number, m: number, d: number): boolean {
  const dt = new Date(Date.UTC(y, m - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === m - 1 && dt.getUTCDate() === d;
}

/** A calendar date YYYY-MM-DD that exists (no 2026-02-30). */
export function parseDate(s: string): string | null {
  const m = DATE_RE.exec(s);
  return m && validDay(Number(m[1]), Number(m[2]), Number(m[3])) ? s : null;
}

/**
 * An ISO 8601 date-time, normalised to UTC `YYYY-MM-DDTHH:MM:SS.sssZ`. Without a zone it is taken as UTC
 * (never the server's local time); impossible dates and times are refused.
 */
export function parseDateTime(s: string): string | null {
  const m = DATETIME_RE.exec(s);
  if (!m) return null;
  const [, y, mo, d, h, mi, sec = '00', frac = '', zone] = m;
  if (!validDay(Number(y), Number(mo), Number(d)) || Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return null;
  let z = (zone ?? 'Z').toUpperCase();
  if (z !== 'Z' && !z.includes(':')) z = `${z.slice(0, 3)}:${z.slice(3)}`;
  const t = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${sec}${frac.slice(0, 4)}${z}`);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
}

/** Base64 in the standard or URL-safe alphabet, padded or not; anything else (a stray `=`, a lone last character) is not. */
const BASE64 = /^(?:[A-Za-z0-9+/_-]{4})*(?:[A-Za-z0-9+/_-]{2}(?:==)?|[A-Za-z0-9+/_-]{3}=?)?$/;

/** The bytes of a base64 string (a blob value in JSON or in a filter); null when it is not base64. */
export function decodeBase64(value: string): Buffer | null {
  return BASE64.test(value) ? Buffer.from(value, 'base64') : null;
}

export const invalidValue = (table: string, column: string, message: string) =>
  new HearthError('invalid_value', `${table}.${column}: ${message}`, { details: { column } });

/** Converts an incoming JSON value to what SQLite stores, enforcing type, length and range. */
export function toStorage(col: ColumnInfo, value: unknown, table: string): unknown {
  if (value === null || value === undefined) {
    if (col.not_null) throw new HearthError('not_null_violation', `${table}.${col.name} must not be null`, { details: { column: col.name } });
    return null;
  }
  const bad = (what: string) => invalidValue(table, col.name, `expected ${what}, got ${JSON.stringify(value)?.slice(0, 80)}`);
  let out: unknown;
  switch (col.type) {
    case 'text':
      if (typeof value !== 'string') throw bad('a string');
      out = value;
      if (col.max_length !== undefined && [...value].length > col.max_length) {
        throw new HearthError('max_length_violation', `${table}.${col.name} is longer than ${col.max_length} characters`, { details: { column: col.name } });
      }
      break;
    case 'integer':
      if (typeof value !== 'number' || !Number.isSafeInteger(value)) throw bad('an integer');
      out = value;
      break;
    case 'real':
      if (typeof value !== 'number' || !Number.isFinite(value)) throw bad('a number');
      out = value;
      break;
    case 'boolean':
      if (typeof value !== 'boolean') throw bad('true or false');
      out = value ? 1 : 0;
      break;
    case 'datetime': {
      const iso = typeof value === 'string' ? parseDateTime(value) : null;
      if (iso === null) throw bad('an ISO 8601 date-time');
      out = iso;
      break;
    }
    case 'date':
      if (typeof value !== 'string' || parseDate(value) === null) throw bad('a date YYYY-MM-DD');
      out = value;
      break;
    case 'json':
      out = JSON.stringify(value);
      break;
    case 'blob': {
      const bytes = typeof value === 'string' ? decodeBase64(value) : null;
      if (bytes === null) throw bad('base64 data');
      out = bytes;
      break;
    }
  }
  if ((col.type === 'integer' || col.type === 'real') && typeof out === 'number') {
    if (col.min !== undefined && out < col.min)
      throw new HearthError('min_violation', `${table}.${col.name} must be at least ${col.min}`, { details: { column: col.name } });
    if (col.max !== undefined && out > col.max)
      throw new HearthError('max_violation', `${table}.${col.name} must be at most ${col.max}`, { details: { column: col.name } });
  }
  return out;
}

/** Converts a CSV field (always a string; empty = NULL) to a JSON value for `toStorage`. */
export function fromCsv(col: ColumnInfo, raw: string): unknown {
  switch (col.type) {
    case 'integer': {
      if (!/^[+-]?\d+$/.test(raw.trim())) return raw;
      return Number(raw);
    }
    case 'real': {
      const n = Number(raw);
      return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
    }
    case 'boolean': {
      const v = raw.trim().toLowerCase();
      if (['true', 't', '1', 'yes', 'y'].includes(v)) return true;
      if (['false', 'f', '0', 'no', 'n'].includes(v)) return false;
      return raw;
    }
    case 'json':
      try {
        return JSON.parse(raw);
      } catch {
        return Symbol.for('invalid-json');
      }
    default:
      return raw;
  }
}

/** Converts a stored value to its JSON form. */
export function fromStorage(type: ColumnType | undefined, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  switch (type) {
    case 'boolean':
      return value === 1 || value === 1n ? true : value === 0 || value === 0n ? false : value;
    case 'json':
      if (typeof value !== 'string') return value;
      try {
        return JSON.parse(value);
      } catch {
        return value;
      }
    case 'blob':
      return Buffer.isBuffer(value) ? value.toString('base64') : value;
    default:
      if (typeof value === 'bigint') return Number(value);
      if (Buffer.isBuffer(value)) return value.toString('base64');
      return value;
  }
}

/** Maps a declared SQLite type of a table Hearth did not create to the closest column type. */
export function typeFromDeclared(declared: string): ColumnType {
  const d = declared.toUpperCase();
  if (d.includes('INT')) return d.includes('BOOL') ? 'boolean' : 'integer';
  if (d.includes('BOOL')) return 'boolean';
  if (d.includes('CHAR') || d.includes('CLOB') || d.includes('TEXT')) return 'text';
  if (d.includes('BLOB') || d === '') return d === '' ? 'text' : 'blob';
  if (d.includes('REAL') || d.includes('FLOA') || d.includes('DOUB') || d.includes('NUMERIC') || d.includes('DECIMAL')) return 'real';
  if (d.includes('DATETIME') || d.includes('TIMESTAMP')) return 'datetime';
  if (d === 'DATE') return 'date';
  if (d.includes('JSON')) return 'json';
  return 'text';
}
