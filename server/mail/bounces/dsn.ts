/**
 * The fields of an RFC 3464 `message/delivery-status` body: one per-message block, then one block per recipient,
 * blocks separated by blank lines, header-style fields with folded continuation lines. Only what bounce
 * collection needs is kept.
 */
export interface DsnRecipient {
  action: string;
  finalRecipient: string | null;
  originalRecipient: string | null;
  status: string | null;
  diagnosticCode: string | null;
}
export interface DeliveryStatus {
  envelopeId: string | null;
  recipients: DsnRecipient[];
}

function blocks(text: string): Array<Map<string, string>> {
  const out: Array<Map<string, string>> = [];
  let current: Map<string, string> | null = null;
  let last: string | null = null;
  for (const line of text.replace(/\r\n?/g, '\n').split('\n')) {
    if (line.trim() === '') {
      if (current?.size) out.push(current);
      current = null;
      last = null;
      continue;
    }
    if (/^[ \t]/.test(line) && current && last) {
      current.set(last, `${current.get(last)} ${line.trim()}`);
      continue;
    }
    const m = /^([A-Za-z0-9-]+)[ \t]*:[ \t]*(.*)$/.exec(line);
    if (!m) continue;
    current ??= new Map();
    last = m[1]!.toLowerCase();
    if (!current.has(last)) current.set(last, m[2]!.trim());
  }
  if (current?.size) out.push(current);
  return out;
}

/** `rfc822; a@b` → `a@b`; the address type is sometimes missing; angle brackets are dropped. */
export function addressOf(value: string | undefined): string | null {
  if (!value) return null;
  const v = value.includes(';') ? value.slice(value.indexOf(';') + 1) : value;
  const a = v
    .trim()
    .replace(/^<(.*)>$/, '$1')
    .trim();
  return a || null;
}

export function parseDeliveryStatus(text: string): DeliveryStatus {
  const all = blocks(text);
  const perMessage = all.find((b) => !b.has('action') && !b.has('final-recipient') && !b.has('original-recipient'));
  const recipients = all
    .filter((b) => b.has('action') && (b.has('final-recipient') || b.has('original-recipient')))
    .map((b) => ({
      action: b.get('action')!.toLowerCase().split(/[\s(]/)[0]!,
      finalRecipient: addressOf(b.get('final-recipient')),
      originalRecipient: addressOf(b.get('original-recipient')),
      status: b.get('status') ?? null,
      diagnosticCode: b.get('diagnostic-code') ?? null,
    }));
  return { envelopeId: perMessage?.get('original-envelope-id')?.trim() || null, recipients };
}

/** The value of one header in a header block (unfolded), or null. */
export function headerValue(headers: string, name: string): string | null {
  const unfolded = headers.replace(/\r\n?/g, '\n').replace(/\n[ \t]+/g, ' ');
  const re = new RegExp(`^${name.replace(/[-]/g, '\\-')}[ \\t]*:[ \\t]*(.*)$`, 'im');
  const m = re.exec(unfolded);
  return m ? m[1]!.trim() : null;
}
