import { z } from 'zod';

export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Names that would shadow a route: `/v1/namespaces/…` is the control plane, so no namespace may be called that. */
export const RESERVED_NAMESPACE_NAMES = ['namespaces'];

export const NamespaceName = z
  .string()
  .regex(NAMESPACE_NAME, 'namespace names are 1–64 characters of letters, digits, "_" and "-", starting with a letter or digit')
  .refine((n) => !RESERVED_NAMESPACE_NAMES.includes(n), {
    message: 'the name "namespaces" is reserved (its data-plane paths would collide with /v1/namespaces)',
  })
  .meta({ description: 'Namespace name: `[A-Za-z0-9][A-Za-z0-9_-]{0,63}`.', example: 'sales' });

/** `journal_mode` values a server can use safely. `memory` and `off` lose data on a crash and are refused. */
export const JOURNAL_MODES = ['wal', 'delete', 'truncate', 'persist'] as const;

export const NamespaceConfig = z
  .object({
    journal_mode: z.enum(JOURNAL_MODES).default('wal').meta({
      description:
        'SQLite journal mode. `wal` (default) lets readers and the writer work at once; `delete`, `truncate` and `persist` are rollback journals (one writer blocks readers). `memory` and `off` are refused: they can corrupt the database on a crash.',
    }),
    synchronous: z.enum(['full', 'normal']).default('full').meta({
      description:
        '`full` (default) is durable. `normal` syncs less: with `wal`, the newest transactions may be lost after an operating-system crash or power loss, but the database stays consistent.',
    }),
    busy_timeout: z.number().int().min(0).max(600_000).default(5000).meta({ description: 'Milliseconds a write waits for a lock (0–600000).' }),
    max_db_size: z.number().int().min(4096).max(Number.MAX_SAFE_INTEGER).nullable().default(null).meta({
      description:
        'Hard quota in bytes (at least 4096), or `null` for none. A write or import that would exceed it is refused with 507 `quota_exceeded`. A quota below the current size blocks growth; it never truncates data.',
    }),
    query_timeout: z.number().int().min(1).max(3_600_000).default(10_000).meta({ description: 'Milliseconds a read-only query may run (1–3600000).' }),
    foreign_keys: z.boolean().default(true).meta({ description: 'Enforce foreign-key constraints.' }),
    read_only: z.boolean().default(false).meta({ description: '`true` refuses every data-plane write; `false` is read-write.' }),
  })
  .strict()
  .meta({ id: 'NamespaceConfig', description: 'Namespace configuration. Always replaced as a whole; omitted settings take their defaults.' });

export type NamespaceConfig = z.infer<typeof NamespaceConfig>;

export const StorageSnapshot = z
  .object({
    size_bytes: z.number().int().meta({ description: 'Size of the database file.' }),
    wal_bytes: z.number().int().meta({ description: 'Size of the write-ahead log (0 when absent).' }),
    page_size: z.number().int(),
    page_count: z.number().int(),
    free_pages: z.number().int().meta({ description: 'Pages on the freelist (reclaimable by VACUUM).' }),
    measured_at: z.string().meta({ description: 'When the snapshot was taken (UTC ISO 8601).' }),
  })
  .meta({
    id: 'StorageSnapshot',
    description: 'Compact storage snapshot, refreshed when the database is opened, closed, imported or every few minutes while open.',
  });

export type StorageSnapshot = z.output<typeof StorageSnapshot>;

export const NamespaceRecord = z
  .object({
    name: NamespaceName,
    created_at: z.string().meta({ description: 'UTC timestamp, ISO 8601.' }),
    config: NamespaceConfig,
    last_activity_at: z
      .string()
      .nullable()
      .meta({ description: 'Last time the namespace was used (UTC ISO 8601); flushed every few seconds; `null` if never.' }),
    storage: StorageSnapshot.nullable(),
    node: z.string().nullable().meta({ description: 'The node its database file lives on (replicas sharing one core store: see the nodes in `/healthz`).' }),
  })
  .meta({ id: 'Namespace' });

export type NamespaceRecord = z.infer<typeof NamespaceRecord>;

export const NamespaceParams = z.object({ ns: z.string().meta({ description: 'Namespace name.' }) });

export const CreateNamespaceBody = z
  .object({
    name: NamespaceName,
    config: NamespaceConfig.optional(),
    node: z.string().min(1).max(64).optional().meta({
      description:
        'The node to place it on (an id from the nodes in `/healthz`); it must be registered (else 400 `node_unknown`) and healthy (else 409 `node_unavailable`). Omitted: the healthy node holding the fewest namespaces.',
    }),
  })
  .strict()
  .meta({ id: 'CreateNamespace' });

export const UpdateNamespaceBody = z.object({ config: NamespaceConfig }).strict().meta({ id: 'UpdateNamespace' });

export const DuplicateNamespaceBody = z.object({ name: NamespaceName }).strict().meta({ id: 'DuplicateNamespace' });

export const MoveNamespaceBody = z
  .object({ node: z.string().min(1).max(64).meta({ description: 'The node to move the namespace to (an id listed in `/healthz`).' }) })
  .strict()
  .meta({ id: 'MoveNamespace' });

export const MovedNamespace = NamespaceRecord.extend({
  moved: z.object({
    from: z.string().meta({ description: 'The node that held it.' }),
    to: z.string().meta({ description: 'The node that holds it now.' }),
    bytes: z.number().int().meta({ description: 'Size of the database file copied.' }),
    pause_ms: z.number().int().meta({ description: 'How long writes to it were paused (reads went on).' }),
  }),
}).meta({ id: 'MovedNamespace' });

export const ListNamespacesQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(100).meta({ description: 'Page size, 1–500 (default 100).' }),
    cursor: z.string().min(1).optional().meta({ description: '`next_cursor` of the previous page.' }),
  })
  .strict();

export const NamespaceList = z
  .object({
    data: z.array(NamespaceRecord),
    next_cursor: z.string().nullable().meta({ description: 'Opaque cursor of the next page; `null` on the last page.' }),
  })
  .meta({ id: 'NamespaceList' });

export type NamespaceList = z.output<typeof NamespaceList>;

export const ImportQuery = z
  .object({ table: z.string().optional().meta({ description: 'Import CSV rows into this table instead of replacing the database.' }) })
  .strict();

export const ImportUpload = z
  .object({ file: z.string().meta({ format: 'binary', description: 'A SQLite database file (or CSV with `table`).' }) })
  .meta({ id: 'ImportUpload' });
