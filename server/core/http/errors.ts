/**
 * The one error type of Hearth. Every non-2xx answer is `{error, message}` where `error` is a stable
 * snake_case code; the status is part of the code's definition so a code always maps to one status (an error cannot
 * be given another: an answer that needs another status needs another code in `ERROR_CODES`).
 */
export const ERROR_CODES = {
  invalid_request: 400,
  invalid_json: 400,
  invalid_database: 400,
  invalid_identifier: 400,
  reserved_name: 400,
  unknown_column: 400,
  invalid_filter: 400,
  invalid_value: 400,
  not_null_violation: 400,
  max_length_violation: 400,
  min_violation: 400,
  max_violation: 400,
  check_violation: 400,
  foreign_key_violation: 400,
  trigger_violation: 400,
  constraint_violation: 400,
  datatype_mismatch: 400,
  value_too_large: 400,
  value_out_of_range: 400,
  invalid_sql: 400,
  not_read_only: 400,
  object_is_view: 400,
  invalid_csv: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  namespace_not_found: 404,
  token_not_found: 404,
  table_not_found: 404,
  row_not_found: 404,
  index_not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  namespace_exists: 409,
  table_exists: 409,
  column_exists: 409,
  index_exists: 409,
  unique_violation: 409,
  dependent_views: 409,
  namespace_read_only: 409,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  query_memory_exceeded: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
  namespace_unavailable: 503,
  query_timeout: 504,
  quota_exceeded: 507,
  disk_full: 507,
  key_not_found: 404,
  key_not_revocable: 409,
  signing_unavailable: 503,
  account_not_found: 404,
  group_not_found: 404,
  service_account_not_found: 404,
  login_taken: 409,
  email_taken: 409,
  group_exists: 409,
  group_cycle: 409,
  service_account_exists: 409,
  invalid_credentials: 401,
  origin_mismatch: 403,
  recent_auth_required: 403,
  already_set_up: 409,
  last_admin: 409,
  linux_disabled: 409,
  linux_conflict: 409,
  linux_range_exhausted: 409,
  linux_not_eligible: 409,
  linux_identity_not_found: 404,
  range_not_confirmed: 400,
  passkey_not_found: 404,
  // Namespaces on nodes (server/db/nodes).
  node_unknown: 400,
  node_unavailable: 409,
  namespace_elsewhere: 421,
  already_on_node: 409,
  move_in_progress: 409,
  move_failed: 502,
  // OAuth 2.0 (RFC 6749 §5.2, RFC 6750 §3.1, RFC 7009, RFC 7591, RFC 8707); these bodies also carry `error_description`.
  invalid_client: 401,
  invalid_grant: 400,
  invalid_scope: 400,
  invalid_target: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_token: 401,
  insufficient_scope: 403,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  server_error: 503,
  temporarily_unavailable: 503,
  client_not_found: 404,
  client_protected: 409,
  client_revoked: 409,
  client_is_public: 409,
  // OAuth 2.0 device authorization polling (RFC 8628 §3.5): 400 like every RFC 6749 §5.2 error.
  authorization_pending: 400,
  slow_down: 400,
  access_denied: 400,
  expired_token: 400,
  // Outgoing mail (server/mail).
  profile_unknown: 404,
  profile_exists: 409,
  revision_conflict: 409,
  password_required: 400,
  profile_is_default: 409,
  smtp_failed: 502,
  message_not_queued: 409,
  message_unknown: 404,
  batch_unknown: 404,
  backlog_full: 409,
  attachment_storage_full: 507,
  attachment_too_large: 413,
  daily_limit_exceeded: 429,
  profile_not_allowed: 403,
  mail_send_not_declared: 403,
  mail_not_configured: 409,
  app_unknown: 404,
  app_exists: 409,
  core_policy_fixed: 409,
  bounce_collection_off: 409,
  // TLS (server/identity/keys/tls).
  tls_off: 409,
  renewal_failed: 502,
  // Authenticator approval hearth-app-approval-v1 (server/identity/approval: 400 invalid input,
  // 403 forbidden or wrong/revoked device or key mismatch, 404 unavailable, 409 used, stale or conflicting, 503
  // disabled or an unavailable dependency).
  comparison_mismatch: 400,
  invalid_signature: 400,
  invalid_proof: 400,
  bad_signature: 403,
  key_mismatch: 403,
  login_refused: 403,
  wrong_issuer: 403,
  device_unknown: 403,
  device_revoked: 403,
  device_not_found: 404,
  account_not_eligible: 409,
  email_required: 409,
  pairing_limit: 409,
  device_limit: 409,
  pairing_claimed: 409,
  pairing_expired: 409,
  pairing_cancelled: 409,
  pairing_not_claimed: 409,
  pairing_confirmed: 409,
  device_already_revoked: 409,
  change_not_pending: 409,
  change_changed: 409,
  change_not_listed: 409,
  login_not_approved: 409,
  login_consumed: 409,
  request_not_pending: 409,
  request_changed: 409,
  not_opted_in: 409,
  self_deny: 409,
  proof_replayed: 409,
  approval_disabled: 503,
  approval_unavailable: 503,
  // Backups (server/core/backup).
  backup_running: 409,
  backup_failed: 500,
  backup_no_space: 507,
  backup_invalid: 422,
  backup_too_new: 409,
  wrong_passphrase: 400,
  passphrase_required: 400,
  target_not_empty: 409,
  backup_not_found: 404,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export class HearthError extends Error {
  readonly code: string;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string> | undefined;
  /**
   * Members of the envelope beside `error` and `message`, documented by the route that answers them (a failed SMTP
   * test's `reason` and `detail`, a CSV import's `details`). `details` alone stays on the server (logs).
   */
  readonly fields: Record<string, unknown> | undefined;

  constructor(
    code: ErrorCode | (string & {}),
    message: string,
    opts: { details?: Record<string, unknown>; headers?: Record<string, string>; fields?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'HearthError';
    this.code = code;
    this.status = (ERROR_CODES as Record<string, number>)[code] ?? 500;
    this.details = opts.details;
    this.headers = opts.headers;
    this.fields = opts.fields;
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) => new HearthError('invalid_request', message, { details });
export const notFound = (code: ErrorCode, message: string) => new HearthError(code, message);

/** How many characters of a client's value an error message quotes (`quoteInput`). */
export const QUOTE_LIMIT = 100;

/**
 * A client's value as an error message quotes it: JSON-quoted, cut after `max` characters with an ellipsis and the
 * full length (`"aaaa…" (1048576 characters)`), so that a message never echoes a huge key or value whole. A cut never
 * splits a surrogate pair.
 */
export function quoteInput(value: unknown, max = QUOTE_LIMIT): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
  if (text.length <= max) return typeof value === 'string' ? JSON.stringify(text) : text;
  let end = max;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  if (typeof value !== 'string') return `${text.slice(0, end)}… (${text.length} characters)`;
  return `${JSON.stringify(text.slice(0, end)).slice(0, -1)}…" (${text.length} characters)`;
}
