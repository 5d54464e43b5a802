/** The editable form of column definitions (numbers as typed text) and its checks. */
import { type ColumnDef, type ColumnType, checkIdentifier } from '../../../lib/api/data.ts';

export interface ColumnDraft {
  key: number;
  name: string;
  type: ColumnType;
  not_null: boolean;
  unique: boolean;
  max_length: string;
  min: string;
  max: string;
}

export type DraftField = 'name' | 'max_length' | 'min' | 'max' | 'row';
export type ColumnErrors = Record<number, Partial<Record<DraftField, string>>>;

let nextKey = 1;
export function newDraft(partial: Partial<Omit<ColumnDraft, 'key'>> = {}): ColumnDraft {
  return { key: nextKey++, name: '', type: 'text', not_null: false, unique: false, max_length: '', min: '', max: '', ...partial };
}

export const takesLength = (t: ColumnType) => t === 'text';
export const takesRange = (t: ColumnType) => t === 'integer' || t === 'real';

/** Checks the drafts; `taken` are names already used by the table (for added columns). */
export function toColumns(drafts: ColumnDraft[], taken: string[] = []): { columns: ColumnDef[] | null; errors: ColumnErrors } {
  const errors: ColumnErrors = {};
  const set = (k: number, f: DraftField, m: string) => ((errors[k] ??= {})[f] = m);
  const seen = new Set(taken.map((n) => n.toLowerCase()));
  const out: ColumnDef[] = [];
  for (const d of drafts) {
    const name = d.name.trim();
    const e = checkIdentifier(name, 'column');
    if (e) set(d.key, 'name', e);
    else if (seen.has(name.toLowerCase())) set(d.key, 'name', `There is already a column named “${name}”.`);
    seen.add(name.toLowerCase());
    const col: ColumnDef = { name, type: d.type };
    if (d.not_null) col.not_null = true;
    if (d.unique) col.unique = true;
    if (takesLength(d.type) && d.max_length.trim() !== '') {
      const s = d.max_length.trim();
      if (!/^\d+$/.test(s) || Number(s) < 1) set(d.key, 'max_length', 'Enter a whole number of at least 1.');
      else col.max_length = Number(s);
    }
    if (takesRange(d.type)) {
      for (const f of ['min', 'max'] as const) {
        const s = d[f].trim();
        if (s === '') continue;
        const n = Number(s);
        if (!/^[+-]?(\d+\.?\d*|\.\d+)$/.test(s) || !Number.isFinite(n)) set(d.key, f, 'Enter a number.');
        else if (d.type === 'integer' && !Number.isInteger(n)) set(d.key, f, 'Enter a whole number.');
        else col[f] = n;
      }
      if (col.min !== undefined && col.max !== undefined && col.min > col.max) set(d.key, 'max', 'Max must not be below min.');
    }
    out.push(col);
  }
  return Object.keys(errors).length ? { columns: null, errors } : { columns: out, errors };
}

/**
 * Finds the draft a server message is about: `body: columns.2.type: …` (index into `sent`) or a
 * quoted column name (`column "id" is reserved…`).
 */
export function draftOf(message: string, drafts: ColumnDraft[], arrayName: string): { key: number; field: DraftField; message: string } | null {
  const m = new RegExp(`^body: ${arrayName}\\.(\\d+)\\.?([a-z_]*): (.*)$`, 's').exec(message);
  if (m) {
    const d = drafts[Number(m[1])];
    if (d) {
      const f = (['name', 'max_length', 'min', 'max'] as const).find((x) => x === m[2]) ?? 'row';
      return { key: d.key, field: f, message: capitalise(m[3]!) };
    }
  }
  const q = /column (?:name )?"([^"]+)"/.exec(message) ?? /column ([A-Za-z0-9_]+)\b/.exec(message);
  if (q) {
    const d = drafts.find((x) => x.name.trim() === q[1]);
    if (d) return { key: d.key, field: 'name', message: capitalise(message) };
  }
  return null;
}

export function capitalise(s: string): string {
  const t = s.charAt(0).toUpperCase() + s.slice(1);
  return /[.!?]$/.test(t) ? t : `${t}.`;
}
