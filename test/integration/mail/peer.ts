/** A real SMTP peer for the mail tests: `smtp-server` on 127.0.0.1, port 0, with scriptable faults. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { until } from '../../helpers/wait.ts';

export interface Received {
  at: number;
  from: string;
  to: string[];
  raw: Buffer;
  parsed: ParsedMail;
  user: string | null;
}

export interface PeerOptions {
  /** 'plain' (no TLS), 'starttls' or 'implicit' (needs a certificate). */
  tls?: 'plain' | 'starttls' | 'implicit';
  auth?: { user: string; pass: string };
  /** Milliseconds the peer waits before answering the final dot. */
  dataDelayMs?: number;
  /** The TLS key and certificate (default: the self-signed one of `selfSigned()`). */
  certificate?: { key: string; cert: string };
  /** The text of a refused login (default `Invalid username or password`); a test may echo the credentials in it. */
  authFailMessage?: (user: string, pass: string) => string;
}

let cert: { key: string; cert: string } | null = null;
/** A self-signed certificate for 127.0.0.1 / localhost (smtp-server's own one has expired). */
export function selfSigned(): { key: string; cert: string } {
  if (cert) return cert;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-cert-'));
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ],
    { stdio: 'ignore' },
  );
  cert = { key: fs.readFileSync(path.join(dir, 'key.pem'), 'utf8'), cert: fs.readFileSync(path.join(dir, 'cert.pem'), 'utf8') };
  fs.rmSync(dir, { recursive: true, force: true });
  return cert;
}

export async function startPeer(opts: PeerOptions = {}) {
  const received: Received[] = [];
  /** Scripted faults, consumed in order: each DATA answers the next one (null = accept). */
  const dataFaults: Array<{ code: number; message: string } | null> = [];
  const rejectRcpt = new Map<string, { code: number; message: string }>();
  /** Sender addresses MAIL FROM refuses. */
  const rejectMail = new Map<string, { code: number; message: string }>();
  let connections = 0;
  /** While holding, each message waits after its final dot until the test releases it (an SMTP attempt in progress). */
  let holding = false;
  const held: Array<() => void> = [];
  let open = 0;
  let maxOpen = 0;
  const mode = opts.tls ?? 'plain';
  const tls = mode === 'plain' ? {} : (opts.certificate ?? selfSigned());
  const server = new SMTPServer({
    ...tls,
    secure: mode === 'implicit',
    disabledCommands: [...(mode === 'plain' ? ['STARTTLS'] : []), ...(opts.auth ? [] : ['AUTH'])],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    logger: false,
    size: 64 * 1024 * 1024,
    onConnect(_session, cb) {
      connections++;
      maxOpen = Math.max(maxOpen, ++open);
      cb();
    },
    onClose() {
      open--;
    },
    onAuth(auth, _session, cb) {
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) return cb(null, { user: auth.username });
      const err = Object.assign(new Error(opts.authFailMessage?.(auth.username ?? '', auth.password ?? '') ?? 'Invalid username or password'), {
        responseCode: 535,
      });
      cb(err);
    },
    onMailFrom(address, _session, cb) {
      const r = rejectMail.get(address.address.toLowerCase());
      if (r) return cb(Object.assign(new Error(r.message), { responseCode: r.code }));
      cb();
    },
    onRcptTo(address, _session, cb) {
      const r = rejectRcpt.get(address.address.toLowerCase());
      if (r) return cb(Object.assign(new Error(r.message), { responseCode: r.code }));
      cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const fault = dataFaults.shift();
        if (fault) return cb(Object.assign(new Error(fault.message), { responseCode: fault.code }));
        const raw = Buffer.concat(chunks);
        if (holding) await new Promise<void>((resolve) => held.push(resolve));
        if (opts.dataDelayMs) await new Promise((r) => setTimeout(r, opts.dataDelayMs));
        received.push({
          at: Date.now(),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
          user: (session.user as string | undefined) ?? null,
        });
        cb(null, `Message queued as test-${received.length}`);
      });
    },
  });
  // A client killed mid-session (the crash-safety test SIGKILLs the server) resets its connection: that is expected
  // here, not an error of the test run.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as { port: number }).port;
  return {
    port,
    received,
    dataFaults,
    rejectRcpt,
    rejectMail,
    connections: () => connections,
    /** The most SMTP sessions open at the same time. */
    maxConcurrent: () => maxOpen,
    /** Resolves once `n` messages arrived (or rejects after `ms`). */
    waitFor(n: number, ms = 10_000): Promise<Received[]> {
      return until(
        () => received.length >= n && received,
        () => `${n} messages at the peer (got ${received.length})`,
        ms,
      );
    },
    /** Starts or stops holding messages after their final dot (stopping releases every held one). */
    hold(on: boolean) {
      holding = on;
      if (!on) for (const r of held.splice(0)) r();
    },
    /** How many messages wait for their answer right now. */
    held: () => held.length,
    /** Lets the oldest held message be accepted. */
    releaseOne: () => held.shift()?.(),
    /** Resolves once `n` messages are held (or rejects after `ms`). */
    async waitHeld(n: number, ms = 10_000): Promise<void> {
      await until(
        () => held.length >= n,
        () => `${n} held messages at the peer (got ${held.length})`,
        ms,
      );
    },
    close: () => {
      holding = false;
      for (const r of held.splice(0)) r();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
export type Peer = Awaited<ReturnType<typeof startPeer>>;
