import { describe, expect, it } from 'vitest';
import { headerValue, parseDeliveryStatus } from './dsn.ts';

describe('RFC 3464 delivery-status parsing', () => {
  it('reads the per-message block and every recipient block, unfolding Diagnostic-Code', () => {
    const ds = parseDeliveryStatus(
      [
        'Reporting-MTA: dns; mx.example.test',
        'Original-Envelope-Id: 0b5f1e0e-1234',
        'Arrival-Date: Mon, 23 Nov 2026 10:00:00 +0000',
        '',
        'Final-Recipient: rfc822; Alice@Example.test',
        'Original-Recipient: rfc822;alice@example.test',
        'Action: failed',
        'Status: 5.1.1',
        'Diagnostic-Code: smtp; 550 5.1.1 <alice@example.test>:',
        '    Recipient address rejected: User unknown',
        '',
        'Final-Recipient: bob@example.test',
        'Action: delayed',
        'Status: 4.4.1',
        '',
      ].join('\r\n'),
    );
    expect(ds.envelopeId).toBe('0b5f1e0e-1234');
    expect(ds.recipients).toEqual([
      {
        action: 'failed',
        finalRecipient: 'Alice@Example.test',
        originalRecipient: 'alice@example.test',
        status: '5.1.1',
        diagnosticCode: 'smtp; 550 5.1.1 <alice@example.test>: Recipient address rejected: User unknown',
      },
      { action: 'delayed', finalRecipient: 'bob@example.test', originalRecipient: null, status: '4.4.1', diagnosticCode: null },
    ]);
  });

  it('finds a folded header', () => {
    expect(headerValue('Subject: x\r\nMessage-ID:\r\n <abc@example.test>\r\n', 'message-id')).toBe('<abc@example.test>');
    expect(headerValue('Subject: x\r\n', 'Message-ID')).toBeNull();
  });
});
