/**
 * How a schema change is carried out in SQLite (schema.service.ts decides what to change, records and publishes it):
 * the DDL of a managed table and of its full-text index (an FTS5 table kept in sync by triggers), the rebuild of a
 * managed table with new columns (SQLite's 12-step procedure), and the guard that keeps the views that worked before a
 * change working after it (ChangeScope). Everything here runs inside a change's transaction (schema.service.ts's `change`).
 */
import type Database from 'better-sqlite3';
import { HearthError } from '../../core/http/errors.ts';
import { FTS_INDEX_NAME, listIndexes, q, type TableInfo } from './catalog.ts';
import { type ColumnDef, SQL_TYPE } from './types.ts';

type Db = Database.Database;

const NOW_SQL = `(strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`;

function columnSql(c: ColumnDef): string {
  let sql = `${q(c.name)} ${SQL_TYPE[c.type]}`;
  if (c.not_null) sql += ' NOT NULL';
  if (c.unique) sql += ' UNIQUE';
  return sql;
}

export function tableSql(name: string, columns: ColumnDef[]): string {
  return `CREATE TABLE ${q(name)} (
  "id" INTEGER PRIMARY KEY AUTOINCREMENT,
${columns.map((c) => `  ${columnSql(c)},`).join('\n')}
  "created_at" TEXT NOT NULL DEFAULT ${NOW_SQL},
  "updated_at" TEXT NOT NULL DEFAULT ${NOW_SQL}
)`;
}

const ftsName = (table: string) => `_hearth_fts_${table}`;

export function dropFts(db: Db, table: string): void {
  db.exec(
    `DROP TRIGGER IF EXISTS ${q(`${ftsName(table)}_ai`)}; DROP TRIGGER IF EXISTS ${q(`${ftsName(table)}_ad`)}; DROP TRIGGER IF EXISTS ${q(`${ftsName(table)}_au`)}; DROP TABLE IF EXISTS ${q(ftsName(table))};`,
  );
}

/** An FTS5 index over `columns`, kept in sync with the table by triggers (external content, rowid = id). */
export function createFts(db: Db, table: string, columns: string[]): void {
  const fts = ftsName(table);
  const cols = columns.map(q).join(', ');
  const newVals = columns.map((c) => `new.${q(c)}`).join(', ');
  const oldVals = columns.map((c) => `old.${q(c)}`).join(', ');
  db.exec(`
    CREATE VIRTUAL TABLE ${q(fts)} USING fts5(${cols}, content=${q(table)}, content_rowid='id', tokenize='unicode61 remove_diacritics 2');
    CREATE TRIGGER ${q(`${fts}_ai`)} AFTER INSERT ON ${q(table)} BEGIN
      INSERT INTO ${q(fts)}(rowid, ${cols}) VALUES (new."id", ${newVals});
    END;
    CREATE TRIGGER ${q(`${fts}_ad`)} AFTER DELETE ON ${q(table)} BEGIN
      INSERT INTO ${q(fts)}(${q(fts)}, rowid, ${cols}) VALUES ('delete', old."id", ${oldVals});
    END;
    CREATE TRIGGER ${q(`${fts}_au`)} AFTER UPDATE ON ${q(table)} BEGIN
      INSERT INTO ${q(fts)}(${q(fts)}, rowid, ${cols}) VALUES ('delete', old."id", ${oldVals});
      INSERT INTO ${q(fts)}(rowid, ${cols}) VALUES (new."id", ${newVals});
    END;
    INSERT INTO ${q(fts)}(${q(fts)}) VALUES ('rebuild');
  `);
}

/** What a schema change did besides itself, recorded and published before its own entry. */
interface Consequence {
  action: 'drop_view' | 'drop_index' | 'create_index';
  table: string;
  detail: Record<string, unknown>;
}

/**
 * The views a schema change must not break. `healthy` are the views that worked before the change (a view that was
 * already broken is not blamed); after the change, any of them that no longer compiles reads something the change
 * removed or renamed: the change is refused (409 `dependent_views`), or with `cascade` those views are dropped too.
 */
export interface ChangeScope {
  /** The object being changed, by its name before the change. */
  subject: string;
  cascade: boolean;
  healthy: Set<string>;
  droppedViews: string[];
  consequences: Consequence[];
}

const VIEW_NAMES = "SELECT name FROM sqlite_schema WHERE type = 'view' ORDER BY name";

function compiles(db: Db, view: string): boolean {
  try {
    db.prepare(`SELECT * FROM ${q(view)} LIMIT 0`);
    return true;
  } catch {
    return false;
  }
}

export const workingViews = (db: Db) => new Set((db.prepare(VIEW_NAMES).pluck().all() as string[]).filter((v) => compiles(db, v)));

/** Refuses the change, or drops (with `cascade`) the views it broke. */
export function settleViews(db: Db, scope: ChangeScope): void {
  if (scope.healthy.size === 0) return;
  const exists = new Set(db.prepare(VIEW_NAMES).pluck().all() as string[]);
  const broken = [...scope.healthy].filter((v) => exists.has(v) && !compiles(db, v)).sort();
  if (broken.length === 0) return;
  if (!scope.cascade) {
    const list = broken.join(', ');
    throw new HearthError(
      'dependent_views',
      `${broken.length === 1 ? 'view' : 'views'} ${list} ${broken.length === 1 ? 'reads' : 'read'} what this change to ${scope.subject} removes or renames: change or drop ${broken.length === 1 ? 'it' : 'them'} first, or send the request again with ?cascade=true to drop ${broken.length === 1 ? 'it' : 'them'} too`,
    );
  }
  for (const v of broken) {
    db.exec(`DROP VIEW ${q(v)}`);
    db.prepare('DELETE FROM _hearth_objects WHERE name = ?').run(v);
    scope.healthy.delete(v);
    scope.droppedViews.push(v);
    scope.consequences.push({ action: 'drop_view', table: v, detail: { dropped_with: scope.subject } });
  }
}

/**
 * Rebuilds a managed table with new columns (SQLite's documented 12-step procedure), keeping data, indexes and FTS.
 * `plan` lists the new user columns with the column each comes from (`null` for an added one). Indexes over a
 * dropped column are dropped (and recorded); the full-text index keeps its remaining columns.
 */
export function rebuild(db: Db, t: TableInfo, plan: Array<{ def: ColumnDef; from: string | null }>, dropped: Set<string>, scope: ChangeScope) {
  const indexes = listIndexes(db, t).filter((i) => i.type !== 'fts');
  const fts = t.fts;
  if (fts) dropFts(db, t.name);
  const renamed = new Map(plan.filter((p) => p.from !== null && p.from !== p.def.name).map((p) => [p.from!, p.def.name]));
  // A column that takes a name this change removes (drop a + add a, rename a→b + add a, swapping names) is built
  // under a temporary name first, so a view that read the old column cannot silently read the new one.
  const vanished = new Set([...dropped, ...renamed.keys()]);
  const physical = plan.map((p, i) => (vanished.has(p.def.name) ? `_hearth_column_${i}` : p.def.name));
  const tmp = `_hearth_rebuild_${t.name}`;
  db.exec(
    tableSql(
      tmp,
      plan.map((p, i) => ({ ...p.def, name: physical[i]! })),
    ),
  );
  const copied = plan.flatMap((p, i) => (p.from === null ? [] : [[physical[i]!, p.from] as const]));
  const target = ['id', ...copied.map(([to]) => to), 'created_at', 'updated_at'];
  const source = ['id', ...copied.map(([, from]) => from), 'created_at', 'updated_at'];
  db.exec(`INSERT INTO ${q(tmp)} (${target.map(q).join(', ')}) SELECT ${source.map(q).join(', ')} FROM ${q(t.name)}`);
  db.exec(`DROP TABLE ${q(t.name)}`);
  // Views that read the table refer to it by name: rename the new table into place without SQLite
  // re-checking them against the dropped one (SQLite's documented procedure).
  db.pragma('legacy_alter_table = ON');
  try {
    db.exec(`ALTER TABLE ${q(tmp)} RENAME TO ${q(t.name)}`);
  } finally {
    db.pragma('legacy_alter_table = OFF');
  }
  // A view that read a dropped or renamed column no longer compiles: refuse, or drop it (cascade).
  settleViews(db, scope);
  plan.forEach((p, i) => {
    if (physical[i] !== p.def.name) db.exec(`ALTER TABLE ${q(t.name)} RENAME COLUMN ${q(physical[i]!)} TO ${q(p.def.name)}`);
  });
  const moved = (c: string) => (dropped.has(c) ? null : (renamed.get(c) ?? c));
  const lost = (cols: string[]) => cols.filter((c) => dropped.has(c));
  for (const i of indexes) {
    if (lost(i.columns).length) {
      scope.consequences.push({
        action: 'drop_index',
        table: t.name,
        detail: { name: i.name, type: i.type, columns: i.columns, dropped_with: lost(i.columns) },
      });
      continue;
    }
    db.exec(`CREATE ${i.type === 'unique' ? 'UNIQUE ' : ''}INDEX ${q(i.name)} ON ${q(t.name)} (${i.columns.map((c) => q(moved(c)!)).join(', ')})`);
  }
  if (!fts) return null;
  const kept = fts.map(moved).filter((c): c is string => c !== null);
  if (kept.length < fts.length) {
    scope.consequences.push({ action: 'drop_index', table: t.name, detail: { name: FTS_INDEX_NAME, type: 'fts', columns: fts, dropped_with: lost(fts) } });
    if (kept.length) scope.consequences.push({ action: 'create_index', table: t.name, detail: { type: 'fts', columns: kept } });
  }
  if (!kept.length) return null;
  createFts(db, t.name, kept);
  return kept;
}
