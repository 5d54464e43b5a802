/**
 * `--tls acme`: certificates from an RFC 8555 server (Let's Encrypt by default; any ACME server such as step-ca or
 * pebble) with `acme-client`. The account key (ECDSA P-256) is made once and sealed at rest; the certificate and its
 * key are kept so a restart does not order again (the stored certificate serves until it expires; past its renewal
 * point the service renews it right after start-up). Challenges: HTTP-01, answered by the plain listener on
 * `--acme-http-port` (see `challenge`), or DNS-01 through `--acme-dns-hook <command>` for offices without an inbound
 * port and for wildcard names. The hook runs as `<command> present|cleanup <record name> <value>` (also in
 * HEARTH_ACME_ACTION, HEARTH_ACME_RECORD, HEARTH_ACME_VALUE, HEARTH_ACME_DOMAIN) and must publish or remove that TXT
 * value before it exits (cleanup removes only its own value: a name and its wildcard share one record name).
 */

import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import https from 'node:https';
import tls from 'node:tls';
import * as acme from 'acme-client';
import { processEnvironment } from '../../../core/config/environment.ts';
import type { CertificateSource, TlsMaterial } from './source.ts';
import type { TlsStore } from './tls.store.ts';

export interface AcmeSourceOptions {
  store: TlsStore;
  directory: string;
  email?: string;
  names: string[];
  dnsHook?: string;
  /** Extra roots to trust for the ACME server itself (PEM file). */
  caFile?: string;
  now?: () => number;
  /** Longest a DNS hook may run. */
  hookTimeoutMs?: number;
}

export interface AcmeSource extends CertificateSource {
  /** The key authorization for an HTTP-01 token of an order in progress, or null. */
  challenge(token: string): string | null;
}

export function createAcmeSource(opts: AcmeSourceOptions): AcmeSource {
  const tokens = new Map<string, string>();
  const now = opts.now ?? Date.now;
  let lastOrder: { at: string; names: string[]; challenge: string } | null = null;
  let account: string | null = null;
  // A wildcard name is validated by DNS-01 only (RFC 8555 §7.1.3); HTTP-01 alone would fail at the first order.
  const wildcard = opts.names.find((n) => n.startsWith('*.'));
  if (wildcard && !opts.dnsHook) throw new Error(`${wildcard} can only be validated by DNS-01: set --acme-dns-hook`);

  // acme-client talks through its own axios instance. A request that never answers would hold the order (and start-up,
  // and every later renewal) forever: each one fails after a minute instead, and the order is retried.
  acme.axios.defaults.timeout = 60_000;
  if (opts.caFile) {
    // Trust the private ACME server's root next to the public ones.
    let extra: string;
    try {
      extra = fs.readFileSync(opts.caFile, 'utf8');
    } catch (err) {
      throw new Error(`cannot read --acme-ca-file ${opts.caFile}: ${(err as Error).message}`);
    }
    acme.axios.defaults.httpsAgent = new https.Agent({ ca: [...tls.rootCertificates, extra], keepAlive: true });
  }

  async function accountKey(): Promise<string> {
    const stored = opts.store.readSealed('account.key');
    if (stored) return stored;
    const key = (await acme.crypto.createPrivateEcdsaKey('P-256')).toString();
    opts.store.writeSealed('account.key', key);
    return key;
  }

  function runHook(action: 'present' | 'cleanup', record: string, value: string, domain: string): Promise<void> {
    return new Promise((resolve, reject) => {
      execFile(
        '/bin/sh',
        ['-c', `${opts.dnsHook} "$@"`, 'hearth-acme-dns-hook', action, record, value],
        {
          timeout: opts.hookTimeoutMs ?? 300_000,
          env: { ...processEnvironment(), HEARTH_ACME_ACTION: action, HEARTH_ACME_RECORD: record, HEARTH_ACME_VALUE: value, HEARTH_ACME_DOMAIN: domain },
        },
        (err, _stdout, stderr) => {
          if (!err) return resolve();
          const why = stderr.trim().split('\n').pop() || err.message;
          reject(new Error(`the DNS hook failed to ${action} ${record}: ${why}`));
        },
      );
    });
  }

  async function order(): Promise<TlsMaterial> {
    const client = new acme.Client({ directoryUrl: opts.directory, accountKey: await accountKey(), backoffAttempts: 5, backoffMin: 500, backoffMax: 5000 });
    const [key, csr] = await acme.crypto.createCsr({ commonName: opts.names[0], altNames: opts.names }, await acme.crypto.createPrivateEcdsaKey('P-256'));
    const challenge = opts.dnsHook ? 'dns-01' : 'http-01';
    const cert = await client.auto({
      csr,
      email: opts.email,
      termsOfServiceAgreed: true,
      challengePriority: [challenge],
      // The ACME server checks the challenge; checking it from here first would need this machine to reach itself
      // by its public name on port 80, which a LAN host behind NAT often cannot.
      skipChallengeVerification: true,
      challengeCreateFn: async (authz, ch, keyAuthorization) => {
        if (ch.type === 'http-01') tokens.set(ch.token, keyAuthorization);
        else await runHook('present', `_acme-challenge.${authz.identifier.value}`, keyAuthorization, authz.identifier.value);
      },
      // Cleanup names the value too: `example.com` and `*.example.com` publish two TXT records under one name, and the
      // hook must remove only its own.
      challengeRemoveFn: async (authz, ch, keyAuthorization) => {
        if (ch.type === 'http-01') tokens.delete(ch.token);
        else await runHook('cleanup', `_acme-challenge.${authz.identifier.value}`, keyAuthorization, authz.identifier.value).catch(() => undefined);
      },
    });
    account = client.getAccountUrl();
    lastOrder = { at: new Date(now()).toISOString(), names: opts.names, challenge };
    const material = { cert, key: key.toString() };
    opts.store.writeSealed('cert.key', material.key);
    opts.store.write('cert.crt', material.cert);
    opts.store.write('cert.json', `${JSON.stringify({ directory: opts.directory, names: opts.names })}\n`);
    return material;
  }

  return {
    mode: 'acme',
    async start() {
      const cert = opts.store.read('cert.crt');
      const key = cert ? opts.store.readSealed('cert.key') : null;
      // Only a certificate for these names from this ACME server (moving from a staging directory to production orders anew).
      let made: { directory?: string; names?: string[] } = {};
      try {
        made = JSON.parse(opts.store.read('cert.json') ?? '{}') as typeof made;
      } catch {
        // damaged: order anew
      }
      const same = made.directory === opts.directory && made.names?.join(',') === opts.names.join(',');
      // The stored certificate serves until it expires, even past its renewal point: the service renews it at once
      // after start-up, and an ACME server that is down then does not keep Hearth from starting.
      if (cert && key && same && now() < Date.parse(new crypto.X509Certificate(cert).validTo)) return { cert, key };
      return await order();
    },
    renew: order,
    challenge: (token) => tokens.get(token) ?? null,
    status: () => ({ directory: opts.directory, email: opts.email ?? null, challenge: opts.dnsHook ? 'dns-01' : 'http-01', account, lastOrder }),
    async close() {
      tokens.clear();
    },
  };
}
