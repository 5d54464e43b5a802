import { z } from 'zod';
import { COLUMN_TYPES } from './types.ts';

const Meta = z
  .object({ actor: z.string().max(200).optional() })
  .catchall(z.unknown())
  .meta({ id: 'MutationMeta', description: '`{actor}` and any other JSON, carried into change events and the changelog.' });

export const ColumnSchema = z
  .object({
    name: z.string().meta({ description: 'Identifier: letters, digits, underscores; not reserved.' }),
    type: z.enum(COLUMN_TYPES).meta({
      description: 'text, integer, real, boolean, datetime (ISO 8601, stored in UTC), date (YYYY-MM-DD), json (any JSON value), blob (base64 in JSON).',
    }),
    not_null: z.boolean().optional(),
    unique: z.boolean().optional(),
    max_length: z.number().int().min(1).optional().meta({ description: 'text only: most characters.' }),
    min: z.number().optional().meta({ description: 'integer/real only: lower bound.' }),
    max: z.number().optional().meta({ description: 'integer/real only: upper bound.' }),
  })
  .strict()
  .superRefine((c, ctx) => {
    if (c.max_length !== undefined && c.type !== 'text')
      ctx.addIssue({ code: 'custom', path: ['max_length'], message: 'max_length applies to text columns only' });
    if ((c.min !== undefined || c.max !== undefined) && c.type !== 'integer' && c.type !== 'real')
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'min and max apply to integer and real columns only' });
    if (c.min !== undefined && c.max !== undefined && c.min > c.max) ctx.addIssue({ code: 'custom', path: ['min'], message: 'min is larger than max' });
  })
  .meta({ id: 'Column' });

export const CreateObjectBody = z
  .discriminatedUnion('type', [
    z
      .object({
        type: z.literal('table'),
        name: z.string(),
        metadata: z.record(z.string(), z.unknown()).optional(),
        columns: z.array(ColumnSchema).max(500),
        _meta: Meta.optional(),
      })
      .strict(),
    z
      .object({
        type: z.literal('view'),
        name: z.string(),
        sql: z.string().min(1).max(100_000),
        metadata: z.record(z.string(), z.unknown()).optional(),
        _meta: Meta.optional(),
      })
      .strict(),
  ])
  .meta({ id: 'CreateObject' });

export const UpdateObjectBody = z
  .object({
    rename: z.string().optional(),
    add_columns: z.array(ColumnSchema).max(500).optional(),
    drop_columns: z.array(z.string()).max(500).optional(),
    rename_columns: z.record(z.string(), z.string()).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    sql: z.string().min(1).max(100_000).optional(),
    _meta: Meta.optional(),
  })
  .strict()
  .meta({ id: 'UpdateObject' });

export const CreateIndexBody = z
  .object({
    type: z.enum(['index', 'unique', 'fts']),
    name: z.string().optional(),
    columns: z.array(z.string()).min(1).max(64),
    _meta: Meta.optional(),
  })
  .strict()
  .meta({ id: 'CreateIndex' });

export const DeleteIndexBody = z.object({ _meta: Meta.optional() }).strict();

export const IndexSchema = z.object({ name: z.string(), type: z.enum(['index', 'unique', 'fts']), columns: z.array(z.string()) }).meta({ id: 'Index' });

export const ObjectSchema = z
  .object({
    name: z.string(),
    type: z.enum(['table', 'view']),
    managed: z.boolean().meta({
      description: '`true` when Hearth created the table (it maintains id, created_at, updated_at); `false` for tables that came with an imported file.',
    }),
    columns: z.array(ColumnSchema.and(z.object({ system: z.boolean().optional() }))),
    indexes: z.array(IndexSchema),
    metadata: z.record(z.string(), z.unknown()),
    sql: z.string().nullable().meta({ description: 'The SELECT of a view; null for tables.' }),
    row_count_estimate: z.number().int().nullable().meta({ description: 'Exact up to 10,000 rows, otherwise the largest id (no full scan); null for views.' }),
  })
  .meta({ id: 'TableSchema' });

export const ObjectList = z
  .object({
    data: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['table', 'view']),
        metadata: z.record(z.string(), z.unknown()),
        row_count_estimate: z.number().int().nullable(),
      }),
    ),
  })
  .meta({ id: 'ObjectList' });

export const CascadeQuery = z
  .object({
    cascade: z.enum(['true', 'false']).optional().meta({
      description:
        '`true`: views that read what the change removes or renames (a dropped table or view, a dropped or renamed column, a renamed view) are dropped too, each recorded in the changelog as `drop_view` and published. Without it such a change is refused with 409 `dependent_views` naming the views.',
    }),
  })
  .strict();

export const ChangelogQuery = z
  .object({
    table: z
      .string()
      .optional()
      .meta({ description: 'The history of the table or view that has (or last had) this name, across its renames back to its creation.' }),
    limit: z.coerce.number().int().min(1).max(1000).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  })
  .strict();

export const ChangelogEntry = z
  .object({
    id: z.number().int(),
    timestamp: z.string(),
    action: z.string(),
    table: z.string(),
    detail: z.unknown(),
    _meta: z.record(z.string(), z.unknown()).nullable(),
  })
  .meta({ id: 'ChangelogEntry' });

// What the routes answer and accept, as TypeScript types: the admin UI imports these (type-only), so a change here
// that breaks it fails its typecheck.
export type ColumnDef = z.output<typeof ColumnSchema>;
export type IndexInfo = z.output<typeof IndexSchema>;
export type TableSchema = z.output<typeof ObjectSchema>;
export type TableSummary = z.output<typeof ObjectList>['data'][number];
export type ChangelogEntry = z.output<typeof ChangelogEntry>;
export type CreateObject = z.input<typeof CreateObjectBody>;
export type UpdateObject = z.input<typeof UpdateObjectBody>;
export type CreateIndex = z.input<typeof CreateIndexBody>;
