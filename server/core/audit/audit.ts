import type { Store } from '../storage/store.ts';

export interface AuditEvent {
  actor: string;
  action: string;
  target?: string | null;
  detail?: Record<string, unknown> | null;
  requestId?: string | null;
}

export interface AuditRecord {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string | null;
  detail: Record<string, unknown> | null;
  request_id: string | null;
}

/**
 * The audit log in the core store: append-only records of administrative actions. `record` joins the transaction
 * open around its caller (store.ts), so an action and its record commit together; on SQLite it writes at once and a
 * failure is thrown to the caller there and then (callers still inside a better-sqlite3 transaction rely on that).
 */
export function createAuditLog(store: Store) {
  return {
    record(e: AuditEvent): Promise<void> {
      return store
        .run('INSERT INTO audit_log (at, actor, action, target, detail, request_id) VALUES (?, ?, ?, ?, ?, ?)', [
          new Date().toISOString(),
          e.actor,
          e.action,
          e.target ?? null,
          e.detail ? JSON.stringify(e.detail) : null,
          e.requestId ?? null,
        ])
        .then(() => {});
    },
    async list(opts: { limit: number; before?: number; action?: string }): Promise<AuditRecord[]> {
      const rows = await store.all<Omit<AuditRecord, 'detail'> & { detail: string | null }>(
        'SELECT * FROM audit_log WHERE (CAST(@before AS BIGINT) IS NULL OR id < @before) AND (CAST(@action AS TEXT) IS NULL OR action = @action) ORDER BY id DESC LIMIT @limit',
        { limit: opts.limit, before: opts.before ?? null, action: opts.action ?? null },
      );
      return rows.map((r) => ({ ...r, detail: r.detail ? JSON.parse(r.detail) : null }));
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
