/**
 * Messages between the query pool (server process, sql.pool.ts) and a query process (sql.child.ts), over the IPC
 * channel with `serialization: 'advanced'`.
 *
 * Parent → child: one job at a time — RunRequest (read-only SQL), ReadRequest (a rows listing), ExportRequest (a
 *   CSV export) — and, during an export, CreditMessage.
 * Child → parent: `{type: 'ready'}` once; then for each job one JobReply, preceded for an export by its chunks.
 *
 * Exports are paced by credit: the child may send as many chunks as the parent has granted (EXPORT_WINDOW with the
 * request, then CreditMessage), and waits, idle and without a time limit, while it has none. So a slow client
 * holds no more than a window of chunks in memory, and the time limit counts only while SQLite works.
 */
import type { ExportPlan, ReadPlan } from '../rows/read.ts';

/** A positional parameter as it arrives in JSON. Booleans are bound as 1/0, safe integers as SQLite INTEGER. */
export type SqlParam = string | number | boolean | null;

export interface SqlStatement {
  sql: string;
  params: SqlParam[];
}

/** Chunks an export may have in flight when it starts (the credit that comes with the request). */
export const EXPORT_WINDOW = 4;

interface JobCommon {
  id: number;
  /** Absolute path of the namespace's current database file. */
  file: string;
  busyTimeout: number;
  /**
   * Milliseconds after which the child kills itself (a watchdog thread), in case the server process cannot do it
   * in time: a server blocked in a synchronous SQLite busy wait on a lock this query holds would otherwise wait
   * for its busy timeout. The server's own timer (the query_timeout) normally fires first. For an export the
   * watchdog is armed for each chunk while the child works on it.
   */
  selfKillMs: number;
  /**
   * Bytes of memory (resident set) the child may use while it works; past it the watchdog writes `memory` on the
   * child's fd 4 and kills the process, and the server answers 422 `query_memory_exceeded`.
   */
  memoryLimit: number;
}

export interface RunRequest extends JobCommon {
  type: 'run';
  statements: SqlStatement[];
  /** `true`: answer `{results: [...]}`; `false`: answer the single form `{data: [...]}`. */
  batch: boolean;
  /** Rows returned per statement at most; the rest are not read and the result says `truncated: true`. */
  maxRows: number;
  /** Bytes of row JSON per request at most (all statements together); past it results are truncated. */
  maxBytes: number;
}

export interface ReadRequest extends JobCommon {
  type: 'read';
  plan: ReadPlan;
}

export interface ExportRequest extends JobCommon {
  type: 'export';
  plan: ExportPlan;
  /** Size of a chunk in characters (a chunk ends after the row that reaches it). */
  chunkChars: number;
}

export type JobRequest = RunRequest | ReadRequest | ExportRequest;

export interface CreditMessage {
  type: 'credit';
  id: number;
  /** Further chunks the child may send. */
  chunks: number;
}

export interface ReadyMessage {
  type: 'ready';
}

export interface JobOk {
  type: 'result';
  id: number;
  ok: true;
  /**
   * The answer, already JSON (so the server process only forwards it): for `run` the response body, for `read`
   * the rows as a JSON array; empty for `export`.
   */
  body: string;
  rows: number;
  /** `run`: whether a result was cut at the row or size limit. */
  truncated?: boolean;
  /** `read` with counts. */
  counts?: { total: number; filtered: number };
  /** The child's resident set after the job (bytes). */
  rss?: number;
}

/**
 * `file_gone`: the file could not be opened (replaced by an import or removed since the path was looked up);
 * the service retries with the current path. `busy`: SQLite stayed busy past the busy timeout. `invalid_filter`:
 * a regular expression that RE2 cannot read (hearth_match).
 */
export type RunFailureCode = 'invalid_sql' | 'not_read_only' | 'invalid_request' | 'invalid_filter' | 'file_gone' | 'busy' | 'read_error' | 'internal';

export interface RunFailed {
  type: 'result';
  id: number;
  ok: false;
  code: RunFailureCode;
  message: string;
  /** Index of the failing statement (0 for the single form), or null when no statement is to blame. */
  index: number | null;
  /** Whether the statement's text or its parameters are at fault. */
  where: 'sql' | 'params' | null;
  /** The SQLite error code, for `read_error` (the server maps it as it maps errors of its own connection). */
  sqliteCode?: string;
  /** The child's resident set after the job (bytes). */
  rss?: number;
}

export interface ChunkMessage {
  type: 'chunk';
  id: number;
  /** CSV text (a string: the server's young generation reclaims it at once, unlike a Buffer's external memory). */
  data: string;
}

export type JobReply = JobOk | RunFailed;
export type ChildMessage = ReadyMessage | JobReply | ChunkMessage;
export type ParentMessage = JobRequest | CreditMessage;
