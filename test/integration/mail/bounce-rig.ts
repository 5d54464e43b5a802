/**
 * The rig of the bounce-collection tests that need faults or log lines: an SMTP peer, real dovecot behind a scriptable
 * IMAP proxy (dovecot.ts), and a server that trusts their test certificate, checks mailboxes only when asked (the
 * five-minute schedule is an hour away) and logs at `logLevel` into `logLines`. Profile `main` (the default) sends
 * to the peer for application `crm`, whose token is `app`.
 */

import { startDovecot, startImapProxy } from './dovecot.ts';
import { call, M, profileBody, registerApp, startMailServer } from './helpers.ts';
import { selfSigned, startPeer } from './peer.ts';

export async function startBounceRig(opts: { logLevel: 'warn' | 'info'; logLines: Array<Record<string, any>> }) {
  const peer = await startPeer();
  const dove = await startDovecot();
  const proxy = await startImapProxy(dove.imapsPort);
  const s = await startMailServer({
    logLevel: opts.logLevel,
    logDestination: { write: (l: string) => void opts.logLines.push(JSON.parse(l)) },
    mail: { bounces: { tls: { ca: selfSigned().cert }, intervalMs: 3600_000 } },
  });
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port), 201);
  const app = await registerApp(s, 'crm');
  return {
    s,
    peer,
    dove,
    proxy,
    app,
    async stop() {
      await s.stop();
      await proxy.close();
      await peer.close();
      await dove.stop();
    },
  };
}
export type BounceRig = Awaited<ReturnType<typeof startBounceRig>>;
