/**
 * SQLite's refusals of a row read or write, as the envelope: every constraint, type, size and schema failure SQLite
 * reports is the client's 4xx (named by the column or table when SQLite names it); storage refusals (quota, read-only,
 * busy) go through `storageRefusal` (server/db/storage-errors.ts); anything else is rethrown as a 500.
 */
import { HearthError } from '../../core/http/errors.ts';
import { isBusyError } from '../../core/storage/store.ts';
import type { TenantDb } from '../namespaces/handles.ts';
import { busyRefusal, storageRefusal } from '../storage-errors.ts';
import { InvalidPatternError } from './functions.ts';

/**
 * Maps SQLite errors of a write to the envelope; anything unexpected is rethrown. Every constraint SQLite enforces
 * (including those of imported files: CHECK, foreign keys, triggers' RAISE, STRICT types, generated columns, virtual
 * tables) and every value SQLite finds too large or out of range is the client's 4xx, never a 500.
 */
/**
 * SQLite's limits on one statement's size (expression depth, bound values, compound terms): a filter, select or
 * batch too large for one statement is the client's to split, 400 `invalid_filter`, not a failure of the table.
 */
function tooComplex(msg: string): HearthError | null {
  if (
    /Expression tree is too large|too many SQL variables|too many terms in compound SELECT|too many columns|parser stack overflow|at most \d+ tables in a join/i.test(
      msg,
    )
  )
    return new HearthError('invalid_filter', `the request is too large for one SQLite statement (${msg}): use fewer filter values or conditions per request`);
  return null;
}

export function writeError(err: unknown, table: string, db: TenantDb): never {
  if (err instanceof HearthError) throw err;
  if (err instanceof InvalidPatternError) throw new HearthError('invalid_filter', err.message);
  const e = err as { code?: string; message?: string };
  const msg = e.message ?? '';
  const complex = e.code === 'SQLITE_ERROR' || e.code === 'SQLITE_RANGE' ? tooComplex(msg) : null;
  if (complex) throw complex;
  if (/ON CONFLICT clause does not match/i.test(msg)) {
    throw new HearthError('invalid_request', 'on_conflict must name columns of a unique constraint (or the id)');
  }
  // "UNIQUE constraint failed: t.a" names the table and column; a trigger may have written another table than `table`.
  const target = /constraint failed: ([^\s,]+)/.exec(msg)?.[1];
  const col = target?.split('.').pop();
  const where = target?.includes('.') ? target : `${table}.${col ?? '?'}`;
  switch (e.code) {
    case 'SQLITE_CONSTRAINT_UNIQUE':
    case 'SQLITE_CONSTRAINT_PRIMARYKEY':
    case 'SQLITE_CONSTRAINT_ROWID':
      throw new HearthError('unique_violation', `${where} must be unique: a row with that value exists`, { details: { column: col } });
    case 'SQLITE_CONSTRAINT_NOTNULL':
      throw new HearthError('not_null_violation', `${where} must not be null`, { details: { column: col } });
    case 'SQLITE_CONSTRAINT_FOREIGNKEY':
      throw new HearthError('foreign_key_violation', `the change breaks a foreign key of ${table}`);
    case 'SQLITE_CONSTRAINT_CHECK':
      throw new HearthError('check_violation', `a check constraint of ${table} failed (${msg.replace(/^CHECK constraint failed: /, '')})`);
    case 'SQLITE_CONSTRAINT_TRIGGER':
      // RAISE(ABORT | FAIL | ROLLBACK, message) in a trigger of the table (or of a table a trigger writes to).
      throw new HearthError('trigger_violation', `a trigger refused the change to ${table}: ${msg}`);
    case 'SQLITE_CONSTRAINT_DATATYPE':
    case 'SQLITE_MISMATCH':
      // A STRICT column (a generated one too) given a value of another type; a non-integer rowid.
      throw new HearthError('datatype_mismatch', `${table}: ${msg}`);
    case 'SQLITE_TOOBIG':
      throw new HearthError(
        'value_too_large',
        `${table}: a value is larger than SQLite allows (${msg}), for example one a generated column or a trigger computes`,
      );
    case 'SQLITE_RANGE':
      throw new HearthError('value_out_of_range', `${table}: SQLite refused the change (${msg}), in a trigger or generated column of the table`);
    case 'SQLITE_ERROR':
      if (/^integer overflow$/i.test(msg))
        throw new HearthError('value_too_large', `${table}: integer overflow in a value SQLite computes (a generated column or a trigger)`);
      // The database's own code failed: a trigger or generated column of an imported file (a table it names is
      // gone, a function refuses its arguments). The write cannot succeed until the schema is fixed.
      throw new HearthError(
        'conflict',
        `cannot write to ${table}: ${msg} (a trigger or generated column of the table failed; it may refer to a table or column that no longer exists)`,
      );
  }
  const refusal = storageRefusal(err, db);
  if (refusal) throw refusal;
  // Any other constraint (a virtual table's, such as R*Tree's, or a function's): still the client's to fix.
  if (e.code?.startsWith('SQLITE_CONSTRAINT')) throw new HearthError('constraint_violation', `${table}: ${msg}`);
  throw err;
}

export function readError(err: unknown): never {
  if (err instanceof HearthError) throw err;
  if (err instanceof InvalidPatternError) throw new HearthError('invalid_filter', err.message);
  const e = err as { code?: string; message?: string };
  if (e.code === 'SQLITE_ERROR' && /fts5: syntax error/i.test(e.message ?? '')) throw new HearthError('invalid_request', `search: ${e.message}`);
  if (isBusyError(err)) throw busyRefusal();
  const complex = e.code === 'SQLITE_ERROR' || e.code === 'SQLITE_RANGE' ? tooComplex(e.message ?? '') : null;
  if (complex) throw complex;
  if (e.code === 'SQLITE_ERROR') throw new HearthError('conflict', `cannot read: ${e.message} (a view may refer to a table or column that no longer exists)`);
  if (e.code === 'SQLITE_TOOBIG')
    throw new HearthError(
      'value_too_large',
      `cannot read: a value is larger than SQLite allows (${e.message}), for example one a view or a generated column computes`,
    );
  if (e.code === 'SQLITE_NOMEM') throw new HearthError('query_memory_exceeded', `cannot read: SQLite ran out of memory (${e.message})`);
  // A failure reported by a query process arrives as {code, message}: an Error, so the log shows it as one.
  throw err instanceof Error ? err : Object.assign(new Error(e.message ?? String(err)), { code: e.code });
}
