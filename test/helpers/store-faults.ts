/**
 * Real write failures in a running server's core store, for tests of how Hearth handles a database that refuses a
 * statement (a full disk, an I/O error): a trigger that raises an error, in whichever engine the server uses —
 * `RAISE(ABORT, …)` in platform.db, a PL/pgSQL function raising an exception in PostgreSQL
 * (HEARTH_TEST_STORE=postgres). Created and dropped through the server's own store (`services.store`).
 */
import type { Store } from '../../server/core/storage/store.ts';

export interface FailingTrigger {
  /** The trigger's name (and its function's, on PostgreSQL): a plain lower-case identifier. */
  name: string;
  /** `INSERT`, `UPDATE`, `UPDATE OF column` or `DELETE`; the trigger fires before it, for each row. */
  event: string;
  table: string;
  /** A condition on `NEW`/`OLD` in SQL both engines read alike; the statement fails only for rows where it holds. */
  when?: string;
  /** The error the database raises (without quotes). */
  message: string;
}

/** Makes `event` on `table` fail with `message` until `dropFailingTrigger`. */
export async function addFailingTrigger(store: Store, t: FailingTrigger): Promise<void> {
  if (!/^[a-z_][a-z0-9_]*$/.test(t.name) || t.message.includes("'")) throw new Error(`unusable trigger ${t.name}`);
  if (store.dialect === 'sqlite') {
    const when = t.when ? ` WHEN ${t.when}` : '';
    await store.run(`CREATE TRIGGER ${t.name} BEFORE ${t.event} ON ${t.table}${when} BEGIN SELECT RAISE(ABORT, '${t.message}'); END`);
    return;
  }
  await store.run(`CREATE FUNCTION ${t.name}() RETURNS trigger LANGUAGE plpgsql AS $fn$ BEGIN RAISE EXCEPTION '${t.message}'; END $fn$`);
  const when = t.when ? ` WHEN (${t.when})` : '';
  await store.run(`CREATE TRIGGER ${t.name} BEFORE ${t.event} ON ${t.table} FOR EACH ROW${when} EXECUTE FUNCTION ${t.name}()`);
}

/** Removes a trigger `addFailingTrigger` made: the statements succeed again. */
export async function dropFailingTrigger(store: Store, t: Pick<FailingTrigger, 'name' | 'table'>): Promise<void> {
  if (store.dialect === 'sqlite') {
    await store.run(`DROP TRIGGER ${t.name}`);
    return;
  }
  await store.run(`DROP TRIGGER ${t.name} ON ${t.table}`);
  await store.run(`DROP FUNCTION ${t.name}()`);
}
