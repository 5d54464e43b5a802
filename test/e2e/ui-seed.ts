/**
 * Seeding a Hearth server through its admin API for the UI checks that run a server of their own (the accessibility
 * spec and the documentation screenshots): an administrator account, a namespace with a table of rows, a sender
 * profile pointing at a port where nothing listens.
 */

/** A call with the admin token; a 409 (already there) counts as done, any other failure throws with the answer. */
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<unknown>;

export function adminApi(base: string, token: string): AdminCall {
  return async (method, p, body) => {
    const res = await fetch(base + p, {
      method,
      headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok && res.status !== 409) throw new Error(`${method} ${p}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
}

/** An administrator account with a password (the UI signs in with it). */
export async function seedAdmin(call: AdminCall, admin: { login: string; password: string; displayName: string }): Promise<void> {
  const account = (await call('POST', '/api/admin/core/accounts', { login: admin.login, displayName: admin.displayName, admin: true })) as { sub: string };
  await call('PUT', `/api/admin/core/accounts/${account.sub}/password`, { password: admin.password });
}

/** A namespace with one table and its rows. */
export async function seedTable(
  call: AdminCall,
  ns: string,
  table: string,
  columns: { name: string; type: string }[],
  rows: Record<string, unknown>[],
): Promise<void> {
  await call('POST', '/v1/namespaces', { name: ns });
  await call('POST', `/v1/${ns}/tables`, { type: 'table', name: table, columns });
  if (rows.length) await call('POST', `/v1/${ns}/tables/${table}/rows`, { rows });
}

/** A sender profile whose SMTP server is 127.0.0.1:`port` (a closed port makes its test send fail). */
export async function seedProfile(call: AdminCall, key: string, port: number, from = `${key}@example.com`): Promise<void> {
  await call('PUT', `/api/admin/core/outgoing-mail/profiles/${key}`, {
    name: 'Office relay',
    fromAddress: from,
    fromName: 'Example Office',
    smtpHost: '127.0.0.1',
    smtpPort: port,
    smtpSecure: false,
    smtpUser: null,
    pacePerMinute: 60,
    dailyRecipientLimit: null,
    maxAttachmentBytes: 10 * 1024 * 1024,
    imap: null,
  });
}
