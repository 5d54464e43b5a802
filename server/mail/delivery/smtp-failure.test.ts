import { describe, expect, it } from 'vitest';
import { explainSmtpFailure, smtpFailureReason } from './smtp-failure.ts';

const at = { host: 'smtp.example.test', port: 465, from: 'noreply@example.test', to: 'admin@example.test' };

describe('SMTP failure reasons', () => {
  it('port 465 with Secure off: "Port 465 needs Secure on"', () => {
    expect(explainSmtpFailure('tls_required', at)).toBe('Port 465 needs Secure on: this server expects TLS from the first byte.');
  });
  it("nodemailer's own greeting timeout on a plain connection is a TLS mismatch, on a TLS one a timeout", () => {
    const err = Object.assign(new Error('Greeting never received'), { code: 'ETIMEDOUT', timeoutType: 'GREETING_TIMEOUT' });
    expect(smtpFailureReason(err, false, { timedOut: false, noGreeting: false })).toBe('tls_required');
    expect(smtpFailureReason(err, true, { timedOut: false, noGreeting: false })).toBe('timeout');
  });
});
