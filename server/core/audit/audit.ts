import type { Db } from '../storage/platform-db.ts';

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

/** The audit log in platform.db: append-only records of administrative actions. */
export function createAuditLog(db: Db) {
  const insert = db.prepare('INSERT INTO audit_log (at, actor, action, target, detail, request_id) VALUES (?, ?, ?, ?, ?, ?)');
  const list = db.prepare(
    'SELECT * FROM audit_log WHERE (@before IS NULL OR id < @before) AND (@action IS NULL OR action = @action) ORDER BY id DESC LIMIT @limit',
  );
  return {
    record(e: AuditEvent): void {
      insert.run(new Date().toISOString(), e.actor, e.action, e.target ?? null, e.detail ? JSON.stringify(e.detail) : null, e.requestId ?? null);
    },
    list(opts: { limit: number; before?: number; action?: string }): AuditRecord[] {
      const rows = list.all({ limit: opts.limit, before: opts.before ?? null, action: opts.action ?? null }) as Array<
        Omit<AuditRecord, 'detail'> & { detail: string | null }
      >;
      return rows.map((r) => ({ ...r, detail: r.detail ? JSON.parse(r.detail) : null }));
    },
  };
}

export type AuditLog = ReturnType<typeof createAuditLog>;
