/**
 * The editable form of a namespace configuration: number fields as text (so the admin sees what they
 * typed, and our messages rather than the browser's), the quota as amount + unit.
 */
import { DEFAULT_CONFIG, type JournalMode, LIMITS, type NamespaceConfig, type Synchronous } from '../../lib/api/namespaces.ts';
import { formatNumber } from '../../lib/format.ts';
import { placeError } from '../../lib/util.ts';

export const QUOTA_UNITS = [
  { value: 1, label: 'bytes' },
  { value: 1024, label: 'KiB' },
  { value: 1024 ** 2, label: 'MiB' },
  { value: 1024 ** 3, label: 'GiB' },
] as const;

export interface ConfigForm {
  journal_mode: JournalMode;
  synchronous: Synchronous;
  busy_timeout: string;
  /** Empty: no quota. */
  quota_amount: string;
  quota_unit: number;
  query_timeout: string;
  foreign_keys: boolean;
  read_only: boolean;
}

export type ConfigField = keyof NamespaceConfig;
export type ConfigErrors = Partial<Record<ConfigField, string>>;

export function toForm(c: NamespaceConfig): ConfigForm {
  let amount = '';
  let unit = 1024 ** 2;
  if (c.max_db_size !== null) {
    const fit = [...QUOTA_UNITS].reverse().find((u) => c.max_db_size! % u.value === 0) ?? QUOTA_UNITS[0];
    unit = fit.value;
    amount = String(c.max_db_size / fit.value);
  }
  return {
    journal_mode: c.journal_mode,
    synchronous: c.synchronous,
    busy_timeout: String(c.busy_timeout),
    quota_amount: amount,
    quota_unit: unit,
    query_timeout: String(c.query_timeout),
    foreign_keys: c.foreign_keys,
    read_only: c.read_only,
  };
}

const clean = (s: string) => s.trim().replace(/[\s_,]/g, '');

function integer(raw: string, label: string, min: number, max: number, unit: string): { value?: number; error?: string } {
  const s = clean(raw);
  if (s === '') return { error: `Enter ${label}.` };
  if (!/^\d+$/.test(s)) return { error: `Enter a whole number (${unit === 'ms' ? 'milliseconds' : unit}).` };
  const n = Number(s);
  if (n < min || n > max) return { error: `Must be between ${formatNumber(min)} and ${formatNumber(max)} ${unit}.` };
  return { value: n };
}

/** Validates the form like the server does; returns the config or the errors per field. */
export function fromForm(f: ConfigForm): { config: NamespaceConfig; errors: null } | { config: null; errors: ConfigErrors } {
  const errors: ConfigErrors = {};
  const busy = integer(f.busy_timeout, 'a wait time', LIMITS.busy_timeout.min, LIMITS.busy_timeout.max, 'ms');
  if (busy.error) errors.busy_timeout = busy.error;
  const query = integer(f.query_timeout, 'a time limit', LIMITS.query_timeout.min, LIMITS.query_timeout.max, 'ms');
  if (query.error) errors.query_timeout = query.error;

  let max_db_size: number | null = null;
  const amount = clean(f.quota_amount);
  if (amount !== '') {
    if (!/^\d+(\.\d+)?$/.test(amount)) errors.max_db_size = 'Enter a number, or leave empty for no quota.';
    else {
      const bytes = Math.round(Number(amount) * f.quota_unit);
      if (f.quota_unit === 1 && amount.includes('.')) errors.max_db_size = 'Enter a whole number of bytes.';
      else if (bytes < LIMITS.max_db_size.min) errors.max_db_size = 'The quota must be at least 4 KiB (4096 bytes).';
      else if (bytes > LIMITS.max_db_size.max) errors.max_db_size = 'That quota is too large.';
      else max_db_size = bytes;
    }
  }
  if (Object.keys(errors).length) return { config: null, errors };
  return {
    config: {
      journal_mode: f.journal_mode,
      synchronous: f.synchronous,
      busy_timeout: busy.value!,
      max_db_size,
      query_timeout: query.value!,
      foreign_keys: f.foreign_keys,
      read_only: f.read_only,
    },
    errors: null,
  };
}

export const defaultForm = (): ConfigForm => toForm({ ...DEFAULT_CONFIG });

export function sameConfig(a: NamespaceConfig, b: NamespaceConfig): boolean {
  return (Object.keys(DEFAULT_CONFIG) as ConfigField[]).every((k) => a[k] === b[k]);
}

const CONFIG_FIELDS = Object.keys(DEFAULT_CONFIG);

/**
 * Splits a failed request into the message for a field (a setting under `config.`, or one of the form's own
 * top-level inputs in `fields`, e.g. `name`) and the message for the top of the form: lib's `placeError` with the
 * settings' `config.` prefix taken off the key.
 */
export function placeConfigError(err: unknown, fields: string[] = []): ReturnType<typeof placeError> {
  const placed = placeError(err, [...fields, ...CONFIG_FIELDS.map((k) => `config.${k}`)]);
  return placed.field ? { field: { key: placed.field.key.replace(/^config\./, ''), message: placed.field.message }, form: null } : placed;
}
