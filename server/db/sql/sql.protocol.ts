/**
 * Messages between the SQL pool (server process) and a query child (`sql.child.ts`), over the IPC channel with
 * `serialization: 'advanced'`. Types only: both sides import this file with `import type`.
 *
 * Parent → child: RunRequest. Child → parent: `{type: 'ready'}` once, then one RunReply per RunRequest.
 */

/** A positional parameter as it arrives in JSON. Booleans are bound as 1/0, safe integers as SQLite INTEGER. */
export type SqlParam = string | number | boolean | null;

export interface SqlStatement {
  sql: string;
  params: SqlParam[];
}

export interface RunRequest {
  type: 'run';
  id: number;
  /** Absolute path of the namespace's current database file. */
  file: string;
  busyTimeout: number;
  statements: SqlStatement[];
  /** `true`: answer `{results: [...]}`; `false`: answer the single form `{data: [...]}`. */
  batch: boolean;
  /** Rows returned per statement at most; the rest are not read and the result says `truncated: true`. */
  maxRows: number;
  /** Bytes of row JSON per request at most (all statements together); past it results are truncated. */
  maxBytes: number;
  /**
   * Milliseconds after which the child kills itself (a watchdog thread), in case the server process cannot do it
   * in time: a server blocked in a synchronous SQLite busy wait on a lock this query holds would otherwise wait
   * for its busy timeout. The server's own timer (the query_timeout) normally fires first.
   */
  selfKillMs: number;
}

export interface ReadyMessage {
  type: 'ready';
}

export interface RunOk {
  type: 'result';
  id: number;
  ok: true;
  /** The response body, already JSON (so the server process only forwards it). */
  body: string;
  rows: number;
  truncated: boolean;
}

/**
 * `file_gone`: the file could not be opened (replaced by an import or removed since the path was looked up);
 * the service retries with the current path. `busy`: SQLite stayed busy past the busy timeout.
 */
export type RunFailureCode = 'invalid_sql' | 'not_read_only' | 'invalid_request' | 'file_gone' | 'busy' | 'internal';

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
}

export type RunReply = RunOk | RunFailed;
export type ChildMessage = ReadyMessage | RunReply;
