/**
 * Why an SMTP attempt failed, as a stable reason code, and what an administrator should check, as one sentence. The
 * reason is read from the error of nodemailer's SMTP client (its code, the system or OpenSSL code underneath, the SMTP
 * command and reply code); the sentence names only what the profile already shows (host, port, addresses), never a
 * credential. No zod here: the SMTP thread classifies too.
 */
import { describeTlsFailure } from '../tls-ca.ts';

export const SMTP_FAILURE_REASONS = [
  'connection_refused',
  'host_not_found',
  'tls_required',
  'tls_not_supported',
  'certificate_untrusted',
  'auth_failed',
  'auth_required',
  'timeout',
  'sender_refused',
  'recipient_refused',
  'message_refused',
  'smtp_error',
] as const;
export type SmtpFailureReason = (typeof SMTP_FAILURE_REASONS)[number];

interface ErrorLike {
  code?: unknown;
  originalCode?: unknown;
  timeoutType?: unknown;
  command?: unknown;
  responseCode?: unknown;
  message?: unknown;
  cause?: unknown;
}

/** Every code and message along the error and its causes. */
function trail(err: unknown): { codes: Set<string>; text: string; command: string; responseCode: number | undefined } {
  const codes = new Set<string>();
  const texts: string[] = [];
  let command = '';
  let responseCode: number | undefined;
  for (let e = err as ErrorLike | undefined, depth = 0; e && typeof e === 'object' && depth < 4; e = e.cause as ErrorLike | undefined, depth++) {
    for (const c of [e.code, e.originalCode, e.timeoutType]) if (typeof c === 'string') codes.add(c);
    if (typeof e.message === 'string') texts.push(e.message);
    if (!command && typeof e.command === 'string') command = e.command.toUpperCase();
    if (responseCode === undefined && typeof e.responseCode === 'number') responseCode = e.responseCode;
  }
  return { codes, text: texts.join('\n'), command, responseCode };
}

/**
 * The reason of a failed attempt. `noGreeting`: the attempt budget ran out on a connection that was open but had not
 * heard the server's greeting yet (what a plain client sees from a server that waits for TLS).
 */
export function smtpFailureReason(err: unknown, secure: boolean, o: { timedOut: boolean; noGreeting: boolean }): SmtpFailureReason {
  const { codes, text, command, responseCode } = trail(err);
  const has = (...c: string[]) => c.some((x) => codes.has(x) || text.includes(x));
  const greetingTimeout = codes.has('GREETING_TIMEOUT') || (o.timedOut && o.noGreeting);
  if (!secure && greetingTimeout) return 'tls_required';
  if (o.timedOut || has('ETIMEDOUT', 'CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'UPGRADE_TIMEOUT')) return 'timeout';
  if (has('ECONNREFUSED')) return 'connection_refused';
  if (has('ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_NODATA')) return 'host_not_found';
  if (describeTlsFailure(err) !== null) return 'certificate_untrusted';
  if (
    secure &&
    (has('ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG') || /wrong version number|packet length too long|unknown protocol/i.test(text))
  )
    return 'tls_not_supported';
  if (responseCode === 530 && !has('EAUTH')) return 'auth_required';
  if (has('EAUTH', 'ENOAUTH') || responseCode === 535 || responseCode === 534) return 'auth_failed';
  if (command.startsWith('MAIL')) return 'sender_refused';
  if (command.startsWith('RCPT') || /recipients were rejected/.test(text)) return 'recipient_refused';
  if (command === 'DATA' || has('EMESSAGE')) return 'message_refused';
  return 'smtp_error';
}

/** The sentence for a failed test send: what went wrong and what to check. */
export function explainSmtpFailure(
  reason: SmtpFailureReason,
  s: { host: string; port: number; from: string; to: string; certificateHint?: string | null },
): string {
  switch (reason) {
    case 'connection_refused':
      return `Nothing is listening on ${s.host}:${s.port}: check the host name and port, and that the mail server is running.`;
    case 'host_not_found':
      return `The host name ${s.host} was not found: check its spelling, and that this server can look it up (DNS).`;
    case 'tls_required':
      return s.port === 465
        ? 'Port 465 needs Secure on: this server expects TLS from the first byte.'
        : `The server on port ${s.port} expects TLS from the first byte: turn Secure on (implicit TLS).`;
    case 'tls_not_supported':
      return 'This server does not use TLS on this port — turn Secure off and use STARTTLS.';
    case 'certificate_untrusted':
      return `The server's certificate is not trusted: ${s.certificateHint ?? "if it comes from a private CA, add that CA's certificate to the profile"}.`;
    case 'auth_failed':
      return 'The server refused the user name or password: check them (some providers want an app password).';
    case 'auth_required':
      return 'The server requires a user name and password: enter them in the profile.';
    case 'timeout':
      return `The server at ${s.host}:${s.port} did not answer in time: check that it is working and that no firewall holds the connection.`;
    case 'sender_refused':
      return `The server refused the sender address ${s.from}: use an address this account may send from.`;
    case 'recipient_refused':
      return `The server refused the recipient ${s.to}: check the address, or whether this account may send to it.`;
    case 'message_refused':
      return 'The server refused the message itself: its answer under Details says why.';
    case 'smtp_error':
      return 'The SMTP server did not accept the test message: its answer under Details says why.';
  }
}

/** The remedy part of a certificate failure, in words (the certificate's own codes stay in the detail). */
export function certificateHint(detail: string): string {
  if (/ERR_TLS_CERT_ALTNAME_INVALID/.test(detail)) return 'it does not name the configured host; use the host name the certificate is issued for';
  if (/CERT_HAS_EXPIRED|CERT_NOT_YET_VALID/.test(detail)) return 'it has expired or is not valid yet; the server must present a valid certificate';
  return "if it comes from a private CA, add that CA's certificate to the profile";
}
