/** A real IMAP server for the bounce tests: Debian's dovecot on loopback ports, a passwd-file user, Maildir in a temp folder. */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { ImapFlow } from 'imapflow';
import { freePort } from '../../helpers/ports.ts';
import { until } from '../../helpers/wait.ts';
import { selfSigned } from './peer.ts';

export const DOVECOT = ['/usr/sbin/dovecot', '/usr/bin/dovecot'].find((f) => fs.existsSync(f)) ?? null;

/**
 * `certificate`: the server's TLS key and certificate (default: the self-signed one of `selfSigned()`); `trust`: the
 * CA the helper's own client trusts to reach it (default: that certificate).
 */
export async function startDovecot(
  opts: { user?: string; pass?: string; noEsearch?: boolean; certificate?: { key: string; cert: string }; trust?: string } = {},
) {
  if (!DOVECOT) throw new Error('dovecot is not installed (apt-get install dovecot-imapd)');
  const user = opts.user ?? 'bounce';
  const pass = opts.pass ?? 'imap-Pass-1';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-dovecot-'));
  fs.chmodSync(dir, 0o755);
  const home = path.join(dir, 'home');
  fs.mkdirSync(path.join(home, user), { recursive: true });
  execFileSync('chown', ['-R', '65534:65534', home]);
  const { key, cert } = opts.certificate ?? selfSigned();
  fs.writeFileSync(path.join(dir, 'cert.pem'), cert);
  fs.writeFileSync(path.join(dir, 'key.pem'), key, { mode: 0o600 });
  fs.writeFileSync(path.join(dir, 'passwd'), `${user}:{PLAIN}${pass}::::::\n`);
  const imapPort = await freePort();
  const imapsPort = await freePort();
  const conf = path.join(dir, 'dovecot.conf');
  fs.writeFileSync(
    conf,
    `
protocols = imap
listen = 127.0.0.1
base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
ssl = yes
ssl_cert = <${dir}/cert.pem
ssl_key = <${dir}/key.pem
disable_plaintext_auth = yes
auth_mechanisms = plain login
first_valid_uid = 1
default_login_user = dovenull
default_internal_user = dovecot
${opts.noEsearch ? 'imap_capability = IMAP4rev1 LITERAL+ SASL-IR LOGIN-REFERRALS ID ENABLE IDLE NAMESPACE UIDPLUS' : ''}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${dir}/passwd
}
userdb {
  driver = static
  args = uid=65534 gid=65534 home=${home}/%u
}
mail_location = maildir:~/Maildir
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${imapPort}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${imapsPort}
    ssl = yes
  }
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
  // wait until it accepts connections
  await until(
    async () => {
      const ok = await new Promise<boolean>((resolve) => {
        const s = net
          .connect(imapPort, '127.0.0.1', () => {
            s.destroy();
            resolve(true);
          })
          .on('error', () => resolve(false));
      });
      if (!ok && child.exitCode !== null) throw new Error(`dovecot exited (${child.exitCode})`);
      return ok;
    },
    'dovecot to accept connections',
    10_000,
  ).catch((err: Error) => {
    const log = fs.existsSync(`${dir}/dovecot.log`) ? fs.readFileSync(`${dir}/dovecot.log`, 'utf8') : '';
    throw new Error(`dovecot did not start (${err.message}): ${stderr} ${log}`);
  });
  const client = async () => {
    const c = new ImapFlow({ host: '127.0.0.1', port: imapsPort, secure: true, auth: { user, pass }, tls: { ca: opts.trust ?? cert }, logger: false });
    c.on('error', () => {});
    await c.connect();
    return c;
  };
  return {
    user,
    pass,
    imapPort,
    imapsPort,
    dir,
    /** Appends a message to a folder (created when missing); `date` sets the internal date. */
    async append(folder: string, raw: string, date?: Date) {
      const c = await client();
      try {
        await c.mailboxCreate(folder).catch(() => {});
        await c.append(folder, raw, [], date);
      } finally {
        await c.logout();
      }
    },
    /** The flags of every message (to show nothing was marked read, moved or deleted). */
    async flags(folder: string) {
      const c = await client();
      try {
        await c.mailboxOpen(folder, { readOnly: true });
        const out: Array<{ uid: number; flags: string[] }> = [];
        for await (const m of c.fetch('1:*', { uid: true, flags: true })) out.push({ uid: m.uid, flags: [...(m.flags ?? [])] });
        return out;
      } finally {
        await c.logout();
      }
    },
    /** Deletes a folder and its messages (a mailbox removed under a configured profile). */
    async deleteFolder(folder: string) {
      const c = await client();
      try {
        await c.mailboxDelete(folder);
      } finally {
        await c.logout();
      }
    },
    setUidValidity(folder: string, value: number) {
      execFileSync('doveadm', ['-c', conf, 'mailbox', 'update', '-u', user, '--uid-validity', String(value), folder]);
    },
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
export type Dovecot = Awaited<ReturnType<typeof startDovecot>>;

/**
 * A real IMAP peer with scriptable faults: a TLS proxy (implicit TLS, the test certificate) in front of dovecot's
 * IMAPS port. Each command line of the client passes through `onCommand`, which may let it through (`'pass'`), drop
 * the connection (both sides are closed, as a server or network failure would), or hold it (return a promise).
 * `refuse` closes every new connection at once (Core's reconnection fails).
 */
export async function startImapProxy(target: number) {
  const { key, cert } = selfSigned();
  let connections = 0;
  const sockets = new Set<tls.TLSSocket>();
  const state = {
    refuse: false,
    /** Every command line clients sent, in order. */
    commands: [] as string[],
    onCommand: null as null | ((line: string) => 'pass' | 'drop' | Promise<'pass' | 'drop'>),
  };
  const server = tls.createServer({ key, cert }, (client) => {
    connections++;
    if (state.refuse) {
      client.destroy();
      return;
    }
    const upstream = tls.connect({ host: '127.0.0.1', port: target, ca: cert });
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
    };
    upstream.on('data', (d: Buffer) => client.write(d));
    for (const sock of [client, upstream]) {
      sock.on('error', drop);
      sock.on('close', () => {
        sockets.delete(sock);
        drop();
      });
    }
    let buf = '';
    let chain = Promise.resolve();
    client.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let i = buf.indexOf('\r\n'); i >= 0; i = buf.indexOf('\r\n')) {
        const line = buf.slice(0, i + 2);
        buf = buf.slice(i + 2);
        chain = chain.then(async () => {
          if (client.destroyed) return;
          state.commands.push(line.trimEnd());
          const verdict = state.onCommand ? await state.onCommand(line.trimEnd()) : 'pass';
          if (verdict === 'drop') drop();
          else if (!upstream.destroyed) upstream.write(Buffer.from(line, 'latin1'));
        });
      }
    });
  });
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, {
    port: (server.address() as net.AddressInfo).port,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const sock of sockets) sock.destroy();
      }),
  });
}
export type ImapProxy = Awaited<ReturnType<typeof startImapProxy>>;

/** A standard RFC 3464 report for `messageId` (original headers as text/rfc822-headers). */
export function dsnReport(opts: {
  messageId: string;
  recipients: Array<{ final?: string; original?: string; action: string; diag?: string; status?: string }>;
  envelopeId?: string;
  rfc822?: boolean;
  bigDs?: boolean;
}) {
  const b = 'REPORT-BOUNDARY';
  const blocks = opts.recipients.map((r) =>
    [
      r.final ? `Final-Recipient: ${r.final}` : null,
      r.original ? `Original-Recipient: ${r.original}` : null,
      `Action: ${r.action}`,
      `Status: ${r.status ?? '5.1.1'}`,
      r.diag ? `Diagnostic-Code: ${r.diag}` : null,
    ]
      .filter(Boolean)
      .join('\r\n'),
  );
  const pad = opts.bigDs ? `X-Padding: ${'x'.repeat(70 * 1024)}\r\n` : '';
  const original = `Message-ID: ${opts.messageId}\r\nFrom: noreply@example.test\r\nTo: someone@example.test\r\nSubject: original\r\n`;
  return [
    'From: MAILER-DAEMON@mx.example.test',
    'To: noreply@example.test',
    'Subject: Undelivered Mail Returned to Sender',
    `Message-ID: <report-${Math.random().toString(36).slice(2)}@mx.example.test>`,
    'MIME-Version: 1.0',
    `Content-Type: multipart/report; report-type=delivery-status; boundary="${b}"`,
    '',
    `--${b}`,
    'Content-Type: text/plain',
    '',
    'Your message could not be delivered.',
    `--${b}`,
    'Content-Type: message/delivery-status',
    '',
    `Reporting-MTA: dns; mx.example.test\r\n${opts.envelopeId ? `Original-Envelope-Id: ${opts.envelopeId}\r\n` : ''}${pad}`,
    blocks.join('\r\n\r\n'),
    '',
    `--${b}`,
    opts.rfc822 ? 'Content-Type: message/rfc822' : 'Content-Type: text/rfc822-headers',
    '',
    opts.rfc822 ? `${original}\r\nThe original body.\r\n` : original,
    `--${b}--`,
    '',
  ].join('\r\n');
}
