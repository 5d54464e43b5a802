/**
 * The one error type of the SDK. `code` is stable (apps branch on it); `status` is the HTTP status when the instance
 * answered with an error; `retryAfterSeconds` comes from a 429's `Retry-After`. The message is written here, never
 * copied from a remote body (a hostile or broken instance cannot put text into the app's UI through it).
 */

/** Stable codes. See docs/sdk/app-approval.md for when each one happens. */
export const APP_APPROVAL_ERROR_CODES = [
  // transport
  'network',
  'timeout',
  'aborted',
  'redirected',
  'response_too_large',
  'request_too_large',
  'invalid_response',
  // discovery and bindings
  'protocol_mismatch',
  'issuer_mismatch',
  'origin_mismatch',
  'wrong_instance',
  'invalid_pairing_link',
  'invalid_argument',
  // HTTP statuses of the instance
  'bad_request',
  'unauthorized',
  'forbidden',
  'not_found',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'unavailable',
  'server_error',
  'unexpected_status',
  // local vault
  'vault_locked',
  'vault_invalid_config',
  'vault_unlock_failed',
  'vault_unsupported',
  'vault_cancelled',
  'vault_record_invalid',
] as const;
export type AppApprovalErrorCode = (typeof APP_APPROVAL_ERROR_CODES)[number];

export class AppApprovalClientError extends Error {
  readonly code: AppApprovalErrorCode;
  readonly status?: number;
  readonly retryAfterSeconds?: number;

  constructor(code: AppApprovalErrorCode, message: string, opts: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'AppApprovalClientError';
    this.code = code;
    if (opts.status !== undefined) this.status = opts.status;
    if (opts.retryAfterSeconds !== undefined) this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

/** The code of an HTTP error status. */
export function codeForStatus(status: number): AppApprovalErrorCode {
  switch (status) {
    case 400:
      return 'bad_request';
    case 401:
      return 'unauthorized';
    case 403:
      return 'forbidden';
    case 404:
      return 'not_found';
    case 409:
      return 'conflict';
    case 413:
      return 'payload_too_large';
    case 429:
      return 'rate_limited';
    case 503:
      return 'unavailable';
    default:
      return status >= 500 && status <= 599 ? 'server_error' : 'unexpected_status';
  }
}

const STATUS_TEXT: Partial<Record<AppApprovalErrorCode, string>> = {
  bad_request: 'The instance refused the request as invalid (or does not support this command).',
  unauthorized: 'The instance requires a session for this request.',
  forbidden: 'The instance refused this device or key (revoked, another account, or another key).',
  not_found: 'The instance no longer knows this object (it expired or was removed).',
  conflict: 'The request was already used, changed, expired or decided.',
  payload_too_large: 'The instance refused the request as too large.',
  rate_limited: 'Too many requests: the instance asks to wait before trying again.',
  unavailable: 'The instance has this feature disabled or is temporarily unavailable.',
  server_error: 'The instance failed to answer the request.',
  unexpected_status: 'The instance answered with an unexpected status.',
};

export function statusError(status: number, retryAfterSeconds?: number): AppApprovalClientError {
  const code = codeForStatus(status);
  return new AppApprovalClientError(code, `${STATUS_TEXT[code]} (HTTP ${status})`, { status, retryAfterSeconds });
}
