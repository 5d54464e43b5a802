import { z } from 'zod';

/** Rows per statement at most; further rows are not read and the result carries `truncated: true`. */
export const MAX_ROWS = 10_000;
/** Bytes of row JSON per request at most (all statements together); past it, results are truncated the same way. */
export const MAX_RESULT_BYTES = 32 * 1024 * 1024;
export const MAX_STATEMENTS = 50;
/** SQLite's own limit on `?` parameters per statement (SQLITE_MAX_VARIABLE_NUMBER). */
export const MAX_PARAMS = 32_766;

const Sql = z
  .string()
  .min(1)
  .max(100_000)
  .meta({ description: 'One read-only SQL statement with positional `?` placeholders.', example: 'SELECT * FROM people WHERE city = ?' });

const Param = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const Params = z
  .array(Param)
  .max(MAX_PARAMS)
  .meta({
    description:
      'Values for the `?` placeholders, in order: strings, numbers, booleans (bound as 1/0) or null. Whole numbers are bound as INTEGER. Defaults to `[]`.',
    example: ['Lyon'],
  });

export const QueryStatement = z.strictObject({ sql: Sql, params: Params.optional() }).meta({ id: 'QueryStatement' });

export const QueryBody = z
  .strictObject({
    sql: Sql.optional(),
    params: Params.optional(),
    statements: z
      .array(QueryStatement)
      .min(1)
      .max(MAX_STATEMENTS)
      .optional()
      .meta({ description: `Batch form: 1–${MAX_STATEMENTS} statements, run one after another (not a transaction).` }),
  })
  .superRefine((b, ctx) => {
    if (b.sql !== undefined && b.statements !== undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give either `sql` (single form) or `statements` (batch form), not both' });
    } else if (b.sql === undefined && b.statements === undefined) {
      ctx.addIssue({ code: 'custom', path: [], message: 'give `sql` (single form) or `statements` (batch form)' });
    } else if (b.statements !== undefined && b.params !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['params'], message: 'in the batch form each statement carries its own `params`' });
    }
  })
  .meta({
    id: 'QueryRequest',
    description: 'Exactly one of: `{sql, params?}` (single form) or `{statements: [{sql, params?}…]}` (batch form).',
  });
export type QueryBody = z.infer<typeof QueryBody>;

const Row = z.record(z.string(), z.unknown()).meta({
  description:
    'One row, column name → value. INTEGER: number, or a decimal string beyond ±(2^53−1); REAL: number (±Infinity as a string); TEXT: string; BLOB: base64 string; NULL: null. With duplicate column names the last one wins.',
});

export const QueryResult = z
  .object({
    data: z.array(Row),
    truncated: z
      .literal(true)
      .optional()
      .meta({
        description: `Present (true) only when rows were left out: the statement returned more than ${MAX_ROWS} rows, or the response reached ${MAX_RESULT_BYTES / 1024 / 1024} MiB.`,
      }),
  })
  .meta({ id: 'QueryResult' });

export const QueryResponse = z
  .union([
    QueryResult,
    z.object({ results: z.array(QueryResult).meta({ description: 'One result per statement, in order.' }) }).meta({ id: 'QueryBatchResult' }),
  ])
  .meta({ id: 'QueryResponse', description: 'Single form: `{data, truncated?}`. Batch form: `{results: [{data, truncated?}…]}`.' });
/** The single form's answer (the admin UI imports this type). */
export type QueryResult = z.output<typeof QueryResult>;
