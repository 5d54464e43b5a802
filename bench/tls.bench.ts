/**
 * HTTPS: Hearth serving TLS (`--tls files`) against servers presenting the same certificate, measured in the same run.
 *
 *   row by id         GET /v1/{ns}/tables/items/rows/{id} with a bearer token (ids spread over the table), CONNECTIONS
 *                     keep-alive TLS connections, one request in flight on each; vs bench/rows-baseline-child.ts as a
 *                     bare `node:https` server (minimal Koa + better-sqlite3) on a copy of the same database answering
 *                     the same JSON bytes. Goal: hearth / bare ≥ 0.6 (requests per second).
 *   token endpoint    POST /oauth/token, client_credentials with HTTP Basic client authentication, answered with an RS256
 *                     JWT (as bench/oauth.bench.ts), OAUTH_CONNECTIONS keep-alive TLS connections; vs oidc-provider
 *                     over TLS (bench/oauth-provider-child.ts, the same client id and secret). Goal: ≥ 1.2.
 *   fresh connection  one connection at a time: TCP connect, TLS handshake, `GET /healthz` (Connection: close), timed to
 *                     the first byte of the answer; on Hearth and on the bare server (whose /healthz does the work of
 *                     Hearth's: one UPSERT into a probe table). Full handshakes, and resumed ones (each offering the
 *                     last session ticket the server gave). Milliseconds, hearth ÷ bare (lower is better; no goal).
 *
 * The certificate: a bench root (ECDSA P-256) signs an ECDSA P-256 leaf for `localhost` and 127.0.0.1, as Hearth's own
 * CA and its ACME client make them (server/identity/keys/tls/internal-ca.ts, acme.ts); BENCH_TLS_LEAF=rsa makes it an
 * RSA 2048 leaf instead (what `--tls files` may be given), to see what that costs. Every server presents that leaf;
 * every client trusts only the bench root and verifies the chain and the name (SNI `localhost`). TLS 1.3, Node's
 * defaults on both sides.
 *
 * Hearth runs in its own process (test/helpers/server-child.ts), the baselines in theirs; this process generates
 * load with raw keep-alive TLS sockets (bench/rows-http.ts). After a warm-up of each server, the measurement
 * alternates in short slices (row reads hearth/bare, token requests hearth/oidc-provider, fresh connections
 * hearth/bare, the order flipped every slice) so that background load on the machine falls on every figure alike;
 * the spread of the per-slice ratios is printed as a noise indicator. Every answer must be 200 (and the sample answers
 * byte-identical rows, verified JWTs): anything else fails the run; a missed goal does not.
 *
 * Knobs (environment): BENCH_TLS_ROWS (10000 rows in the table), BENCH_TLS_CONNECTIONS (8, row reads),
 * BENCH_TLS_OAUTH_CONNECTIONS (20), BENCH_TLS_SECONDS (5 per server, row reads), BENCH_TLS_OAUTH_SECONDS (10 per
 * server), BENCH_TLS_SLICES (10), BENCH_TLS_WARMUP_MS (1000), BENCH_TLS_CONNECTS (30 fresh connections per server,
 * kind and slice), BENCH_TLS_LEAF (ecdsa | rsa).
 */
import 'reflect-metadata';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import * as x509 from '@peculiar/x509';
import {
  benchRun,
  envInt,
  fmtMs,
  fmtRate,
  fmtS,
  heading,
  keepAliveAgent,
  median,
  now,
  printTable,
  processCpuMs,
  ratio,
  startChild,
  summarize,
  type TlsClient,
  verdict,
} from './lib.ts';
import { checkToken, createBenchClient, providerJwk, tokenRequest } from './oauth-common.ts';
import { copyItemsDatabase, createItemsNamespace, type Hearth, items, postRows, rowId, rowRequests } from './rows-common.ts';
import { Loader, mergeRates, type RateResult, RawConnection } from './rows-http.ts';

const TABLE_ROWS = envInt('BENCH_TLS_ROWS', 10_000);
const CONNECTIONS = envInt('BENCH_TLS_CONNECTIONS', 8);
const OAUTH_CONNECTIONS = envInt('BENCH_TLS_OAUTH_CONNECTIONS', 20);
const SECONDS = envInt('BENCH_TLS_SECONDS', 5);
const OAUTH_SECONDS = envInt('BENCH_TLS_OAUTH_SECONDS', 10);
const SLICES = envInt('BENCH_TLS_SLICES', 10);
const WARMUP_MS = envInt('BENCH_TLS_WARMUP_MS', 1000);
const CONNECTS = envInt('BENCH_TLS_CONNECTS', 30);
const LEAF = process.env.BENCH_TLS_LEAF || 'ecdsa';
if (LEAF !== 'ecdsa' && LEAF !== 'rsa') throw new Error(`BENCH_TLS_LEAF must be ecdsa or rsa (got ${JSON.stringify(LEAF)})`);
const ROWS_GOAL = 0.6;
const OAUTH_GOAL = 1.2;
const NS = 'bench';
const SERVERNAME = 'localhost';

const run = benchRun('hearth-bench-tls-');
const tmp = run.tmp;
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;

// ---------------------------------------------------------------------------------------------------------------
// The certificate

x509.cryptoProvider.set(globalThis.crypto);
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/** A positive 128-bit serial number (hex). */
function serial(): string {
  const b = crypto.randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
}

/** A bench root (ECDSA P-256) and a leaf it signs for localhost and 127.0.0.1 (ECDSA P-256 or RSA 2048, one day), in `dir`. */
async function makeCertificate(dir: string): Promise<{ rootPem: string; cert: string; key: string; certFile: string; keyFile: string }> {
  const subtle = globalThis.crypto.subtle;
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(notBefore.getTime() + 86_400_000);
  const rootKeys = (await subtle.generateKey(EC, true, ['sign', 'verify'])) as CryptoKeyPair;
  const root = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: 'CN=Hearth Bench Root, O=Hearth bench',
    notBefore,
    notAfter,
    keys: rootKeys,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(rootKeys.publicKey),
    ],
  });
  const leafAlgorithm = LEAF === 'rsa' ? { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' } : EC;
  const leafKeys = (await subtle.generateKey(leafAlgorithm, true, ['sign', 'verify'])) as CryptoKeyPair;
  const leaf = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${SERVERNAME}`,
    issuer: root.subject,
    notBefore,
    notAfter,
    publicKey: leafKeys.publicKey,
    signingKey: rootKeys.privateKey,
    signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: 'dns', value: SERVERNAME },
        { type: 'ip', value: '127.0.0.1' },
      ]),
      await x509.SubjectKeyIdentifierExtension.create(leafKeys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(root),
    ],
  });
  const pkcs8 = Buffer.from(await subtle.exportKey('pkcs8', leafKeys.privateKey));
  const key = crypto.createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }) as string;
  const cert = `${leaf.toString('pem')}\n`;
  fs.mkdirSync(dir, { recursive: true });
  const certFile = path.join(dir, 'leaf.crt');
  const keyFile = path.join(dir, 'leaf.key');
  fs.writeFileSync(certFile, cert);
  fs.writeFileSync(keyFile, key, { mode: 0o600 });
  return { rootPem: `${root.toString('pem')}\n`, cert, key, certFile, keyFile };
}

// ---------------------------------------------------------------------------------------------------------------
// Keep-alive load (row reads, token requests)

interface Side {
  pid: number;
  url: string;
  connections: number;
  req: (i: number) => Buffer;
  slices: RateResult[];
  /** CPU ms of the server process (all threads) and of this load generator during the measured slices. */
  serverCpu: number;
  clientCpu: number;
}

function side(pid: number, url: string, connections: number, req: (i: number) => Buffer): Side {
  return { pid, url, connections, req, slices: [], serverCpu: 0, clientCpu: 0 };
}

let tlsClient: TlsClient;

/**
 * One measured slice on fresh connections (their handshakes are not timed; a server may close keep-alive connections
 * left idle while the other figures are measured).
 */
async function slice(s: Side, ms: number): Promise<void> {
  const loader = await Loader.open(s.url, s.connections, tlsClient);
  try {
    const s0 = processCpuMs(s.pid);
    const c0 = process.cpuUsage();
    s.slices.push(await loader.run(ms, s.req));
    const c1 = process.cpuUsage(c0);
    s.serverCpu += processCpuMs(s.pid) - s0;
    s.clientCpu += (c1.user + c1.system) / 1000;
  } finally {
    loader.close();
  }
}

async function warm(s: Side): Promise<RateResult> {
  const loader = await Loader.open(s.url, s.connections, tlsClient);
  try {
    return await loader.run(WARMUP_MS, s.req);
  } finally {
    loader.close();
  }
}

/** A few rows read from both servers must be the same bytes. */
async function sameRows(hearthUrl: string, bareUrl: string, authLine: string): Promise<string | null> {
  const h = await RawConnection.open(hearthUrl, tlsClient);
  const b = await RawConnection.open(bareUrl, tlsClient);
  try {
    for (const i of [0, 1, 7, 99, 12345]) {
      const p = `/v1/${NS}/tables/items/rows/${rowId(i, TABLE_ROWS)}`;
      const hr = await h.send(h.requestBytes(p, [authLine]));
      const br = await b.send(b.requestBytes(p));
      if (hr.status !== 200 || br.status !== 200 || !hr.body.equals(br.body)) {
        return `${p}: hearth ${hr.status} ${hr.body.toString('utf8', 0, 200)} | bare ${br.status} ${br.body.toString('utf8', 0, 200)}`;
      }
    }
    return null;
  } finally {
    h.close();
    b.close();
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Fresh connections

interface Connect {
  /** From the start to the TCP connection, the TLS handshake done, the first byte of the answer (ms). */
  tcpMs: number;
  handshakeMs: number;
  firstByteMs: number;
  /** The server resumed the session offered. */
  reused: boolean;
  /** The last session ticket the server gave (TLS 1.3 sends it after the handshake; none after a resumption). */
  ticket: Buffer | null;
}

/** One fresh TLS connection sending `GET /healthz` with Connection: close; the answer must be 200 with status ok. */
function connectOnce(url: string, session: Buffer | null): Promise<Connect> {
  const u = new URL(url);
  const req = Buffer.from(`GET /healthz HTTP/1.1\r\nHost: ${u.host}\r\nConnection: close\r\n\r\n`, 'latin1');
  return new Promise((resolve, reject) => {
    const start = now();
    let tcp = NaN;
    let secure = NaN;
    let first = NaN;
    let reused = false;
    let ticket: Buffer | null = null;
    const chunks: Buffer[] = [];
    const s = tls.connect({ host: u.hostname, port: Number(u.port), ca: tlsClient.ca, servername: tlsClient.servername, session: session ?? undefined });
    s.setNoDelay(true);
    s.once('connect', () => (tcp = now()));
    s.once('secureConnect', () => {
      secure = now();
      reused = s.isSessionReused(); // (not known any more once the socket is closed)
      s.write(req);
    });
    s.on('session', (t: Buffer) => (ticket = t));
    s.on('data', (c: Buffer) => {
      if (chunks.length === 0) first = now();
      chunks.push(c);
    });
    s.once('error', reject);
    s.once('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const status = Number(text.slice(9, 12));
      if (status !== 200 || !text.includes('"status":"ok"')) {
        return reject(new Error(`${url}/healthz on a fresh connection → ${status || 'no answer'}: ${text.slice(0, 300)}`));
      }
      resolve({ tcpMs: tcp - start, handshakeMs: secure - start, firstByteMs: first - start, reused, ticket });
    });
  });
}

interface ConnectSide {
  name: string;
  pid: number;
  url: string;
  full: Connect[];
  resumed: Connect[];
  /** Per slice: median first byte of full and resumed handshakes. */
  fullSlices: number[];
  resumedSlices: number[];
  /** CPU ms of the server process during the full and the resumed connections. */
  cpu: { full: number; resumed: number };
}

function connectSide(name: string, pid: number, url: string): ConnectSide {
  return { name, pid, url, full: [], resumed: [], fullSlices: [], resumedSlices: [], cpu: { full: 0, resumed: 0 } };
}

/** CONNECTS full handshakes, then CONNECTS offering the last ticket the server gave, one at a time. */
async function connectSlice(s: ConnectSide): Promise<void> {
  const full: Connect[] = [];
  const resumed: Connect[] = [];
  let ticket: Buffer | null = null;
  const c0 = processCpuMs(s.pid);
  for (let k = 0; k < CONNECTS; k++) {
    const c = await connectOnce(s.url, null);
    full.push(c);
    ticket = c.ticket ?? ticket;
  }
  const c1 = processCpuMs(s.pid);
  for (let k = 0; k < CONNECTS; k++) {
    const c = await connectOnce(s.url, ticket);
    resumed.push(c);
    ticket = c.ticket ?? ticket;
  }
  s.cpu.full += c1 - c0;
  s.cpu.resumed += processCpuMs(s.pid) - c1;
  s.full.push(...full);
  s.resumed.push(...resumed);
  s.fullSlices.push(median(full.map((c) => c.firstByteMs)));
  s.resumedSlices.push(median(resumed.map((c) => c.firstByteMs)));
}

// ---------------------------------------------------------------------------------------------------------------

const rate = (r: RateResult) => fmtRate(r.perSec, 'req');
/** Microseconds per request of `ms` CPU milliseconds over `n` requests. */
const perRequest = (ms: number, n: number) => (n > 0 && Number.isFinite(ms) ? ((ms * 1000) / n).toFixed(0) : 'n/a');
const spread = (values: number[], digits = 2) => {
  const s = summarize(values);
  return `${s.min.toFixed(digits)} / ${median(values).toFixed(digits)} / ${s.max.toFixed(digits)}`;
};

async function main(): Promise<number> {
  console.log(
    `tls benchmark: ${TABLE_ROWS} rows; row reads ${CONNECTIONS} connections, ${SECONDS} s per server; token requests ${OAUTH_CONNECTIONS} connections, ` +
      `${OAUTH_SECONDS} s per server; ${CONNECTS} fresh connections per server, kind and slice; ${SLICES} alternating slices after ${WARMUP_MS} ms warm-up`,
  );
  console.log(
    `node ${process.version} (${process.versions.openssl ? `OpenSSL ${process.versions.openssl}` : 'no OpenSSL version'}), ${process.platform}/${process.arch}, ` +
      `${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${tmp.dir}`,
  );

  // 1. One certificate for every server; the clients trust only its root.
  const certificate = await makeCertificate(path.join(tmp.dir, 'tls'));
  tlsClient = { ca: certificate.rootPem, servername: SERVERNAME };
  const serverTls = { cert: certificate.cert, key: certificate.key };

  // 2. Hearth with --tls files, a namespace holding TABLE_ROWS rows, and a confidential OAuth client.
  const hearthDir = path.join(tmp.dir, 'hearth');
  const hearth = await startChild('../test/helpers/server-child.ts', {
    dataDir: hearthDir,
    adminToken: token,
    tls: 'files',
    tlsCert: certificate.certFile,
    tlsKey: certificate.keyFile,
  });
  run.children.add(hearth);
  const h: Hearth = { url: hearth.url, agent: keepAliveAgent(1, tlsClient), auth: { authorization: `Bearer ${token}` } };
  await createItemsNamespace(h, NS);
  const fill = now();
  for (let from = 0; from < TABLE_ROWS; from += 100_000) await postRows(h, NS, JSON.stringify({ rows: items(from, Math.min(100_000, TABLE_ROWS - from)) }));
  h.agent.destroy();
  const client = await createBenchClient(hearth.url, token, NS, { tlsClient });
  console.log(
    `${elapsed()} hearth started (${hearth.url}, --tls files); ${TABLE_ROWS} rows inserted over https in ${fmtS(now() - fill)}; OAuth client ${client.clientId}`,
  );

  // 3. The bare https server on a copy of the database, and oidc-provider over TLS.
  const copy = path.join(tmp.dir, 'bare', 'copy.db');
  fs.mkdirSync(path.dirname(copy));
  copyItemsDatabase(hearthDir, copy);
  const bare = await startChild('rows-baseline-child.ts', { dbFile: copy, tls: serverTls });
  run.children.add(bare);
  const provider = await startChild('oauth-provider-child.ts', {
    jwk: providerJwk(),
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    audience: client.audience,
    tls: serverTls,
  });
  run.children.add(provider);
  console.log(`${elapsed()} bare https server (${bare.url}) and oidc-provider (${provider.url}) started with the same certificate`);

  // 4. Sample answers: the same row bytes; JWT access tokens verified against each server's JWKS; /healthz 200.
  const authLine = `Authorization: Bearer ${token}`;
  const differ = await sameRows(hearth.url, bare.url, authLine);
  if (differ) throw new Error(`hearth and the bare server answer differently: ${differ}`);
  const hTok = tokenRequest(hearth.url, '/oauth/token', client.authorization);
  const pTok = tokenRequest(provider.url, '/token', client.authorization);
  const hc = await checkToken('hearth', hearth.url, hTok, `${hearth.url}/.well-known/jwks.json`, client.audience, tlsClient);
  const pc = await checkToken('oidc-provider', provider.url, pTok, `${provider.url}/jwks`, client.audience, tlsClient);
  const hello = await connectOnce(hearth.url, null);
  const peer = await new Promise<tls.PeerCertificate & { protocol: string | null; cipher: string }>((resolve, reject) => {
    const u = new URL(hearth.url);
    const s = tls.connect({ host: u.hostname, port: Number(u.port), ...tlsClient }, () => {
      resolve({ ...s.getPeerCertificate(), protocol: s.getProtocol(), cipher: s.getCipher().name });
      s.end();
    });
    s.once('error', reject);
  });
  console.log(
    `${elapsed()} answers checked: rows byte-identical; tokens verified (hearth ${hc.header.alg} ${hc.bytes} bytes, oidc-provider ${pc.header.alg} ${pc.bytes} bytes); ` +
      `hearth /healthz on a fresh connection ${fmtMs(hello.firstByteMs)}`,
  );
  console.log(
    `  hearth presents ${peer.subject?.CN} (issuer ${peer.issuer?.CN}, ${peer.bits ?? '?'}-bit ${peer.asn1Curve ?? peer.nistCurve ?? 'key'}), ${peer.protocol}, ${peer.cipher}`,
  );

  // 5. Warm-up of each server, then alternating slices of every figure.
  const hRows = side(hearth.pid, hearth.url, CONNECTIONS, rowRequests(hearth.url, NS, TABLE_ROWS, [authLine]));
  const bRows = side(bare.pid, bare.url, CONNECTIONS, rowRequests(bare.url, NS, TABLE_ROWS, []));
  const hOauth = side(hearth.pid, hearth.url, OAUTH_CONNECTIONS, () => hTok);
  const pOauth = side(provider.pid, provider.url, OAUTH_CONNECTIONS, () => pTok);
  const hConn = connectSide('hearth', hearth.pid, hearth.url);
  const bConn = connectSide('bare', bare.pid, bare.url);
  const rowsSliceMs = (SECONDS * 1000) / SLICES;
  const oauthSliceMs = (OAUTH_SECONDS * 1000) / SLICES;
  heading(
    `measuring: ${SLICES} alternating slices of row reads (${fmtMs(rowsSliceMs)} per server), token requests (${fmtMs(oauthSliceMs)} per server) ` +
      `and ${CONNECTS} + ${CONNECTS} fresh connections per server`,
  );
  const warmed = [await warm(hRows), await warm(bRows), await warm(hOauth), await warm(pOauth)];
  for (const url of [hearth.url, bare.url]) for (let k = 0; k < CONNECTS; k++) await connectOnce(url, null);
  console.log(
    `${elapsed()} warm-up (not counted): rows hearth ${rate(warmed[0]!)}, bare ${rate(warmed[1]!)}; tokens hearth ${rate(warmed[2]!)}, oidc-provider ${rate(warmed[3]!)}`,
  );
  for (let k = 0; k < SLICES; k++) {
    const flip = k % 2 === 1;
    for (const s of flip ? [bRows, hRows] : [hRows, bRows]) await slice(s, rowsSliceMs);
    for (const s of flip ? [pOauth, hOauth] : [hOauth, pOauth]) await slice(s, oauthSliceMs);
    for (const s of flip ? [bConn, hConn] : [hConn, bConn]) await connectSlice(s);
  }
  console.log(`${elapsed()} measured`);

  // The endpoints still answer verified tokens after the load.
  await checkToken('hearth', hearth.url, hTok, `${hearth.url}/.well-known/jwks.json`, client.audience, tlsClient);
  await checkToken('oidc-provider', provider.url, pTok, `${provider.url}/jwks`, client.audience, tlsClient);

  // 6. Keep-alive figures.
  const rowsH = mergeRates(hRows.slices);
  const rowsB = mergeRates(bRows.slices);
  const oauthH = mergeRates(hOauth.slices);
  const oauthP = mergeRates(pOauth.slices);
  const rowsRatios = hRows.slices.map((x, k) => x.perSec / bRows.slices[k]!.perSec);
  const oauthRatios = hOauth.slices.map((x, k) => x.perSec / pOauth.slices[k]!.perSec);
  const lat = (r: RateResult) => {
    const s = summarize(r.latencies);
    return `${fmtMs(s.p50)} / ${fmtMs(s.p99)}`;
  };
  const cpu = (s: Side, r: RateResult) => `${perRequest(s.serverCpu, r.requests)} + ${perRequest(s.clientCpu, r.requests)}`;
  heading('keep-alive TLS connections (requests per second over every slice)');
  printTable([
    [
      '',
      'hearth',
      'other',
      'hearth ÷ other',
      'slice ratios min / median / max',
      'p50 / p99 hearth',
      'p50 / p99 other',
      'CPU µs/req server + client: hearth | other',
    ],
    [
      `GET row by id, ${CONNECTIONS} conn. (other: bare node:https)`,
      rate(rowsH),
      rate(rowsB),
      ratio(rowsH.perSec, rowsB.perSec),
      spread(rowsRatios),
      lat(rowsH),
      lat(rowsB),
      `${cpu(hRows, rowsH)} | ${cpu(bRows, rowsB)}`,
    ],
    [
      `POST token, ${OAUTH_CONNECTIONS} conn. (other: oidc-provider)`,
      rate(oauthH),
      rate(oauthP),
      ratio(oauthH.perSec, oauthP.perSec),
      spread(oauthRatios),
      lat(oauthH),
      lat(oauthP),
      `${cpu(hOauth, oauthH)} | ${cpu(pOauth, oauthP)}`,
    ],
  ]);
  console.log('  CPU µs/req: the server process (all threads, /proc, 10 ms ticks) + this load generator (its TLS included), per request.');

  // 7. Fresh connections.
  const connRow = (label: string, s: ConnectSide, kind: 'full' | 'resumed') => {
    const list = s[kind];
    const fb = summarize(list.map((c) => c.firstByteMs));
    return [
      label,
      s.name,
      fmtMs(median(list.map((c) => c.tcpMs))),
      fmtMs(median(list.map((c) => c.handshakeMs))),
      `${fmtMs(fb.min)} / ${fmtMs(fb.p50)} / ${fmtMs(fb.p90)} / ${fmtMs(fb.max)}`,
      `${list.filter((c) => c.reused).length}/${list.length}`,
      perRequest(s.cpu[kind], list.length),
    ];
  };
  const fullRatios = hConn.fullSlices.map((x, k) => x / bConn.fullSlices[k]!);
  const resumedRatios = hConn.resumedSlices.map((x, k) => x / bConn.resumedSlices[k]!);
  const p50 = (list: Connect[], f: (c: Connect) => number = (c) => c.firstByteMs) => median(list.map(f));
  heading('fresh TLS connection: TCP connect + handshake + GET /healthz, one at a time (ms from the start)');
  printTable([
    ['', 'server', 'TCP p50', 'handshake p50', 'first byte min / p50 / p90 / max', 'resumed', 'server CPU µs/conn.'],
    connRow('full handshake', hConn, 'full'),
    connRow('', bConn, 'full'),
    connRow('resumed (session ticket)', hConn, 'resumed'),
    connRow('', bConn, 'resumed'),
  ]);
  console.log(
    `  hearth ÷ bare, first byte p50: full ${ratio(p50(hConn.full), p50(bConn.full))} (slice ratios ${spread(fullRatios)}), ` +
      `resumed ${ratio(p50(hConn.resumed), p50(bConn.resumed))} (slice ratios ${spread(resumedRatios)}); handshake alone: ` +
      `full ${ratio(
        p50(hConn.full, (c) => c.handshakeMs),
        p50(bConn.full, (c) => c.handshakeMs),
      )}, ` +
      `resumed ${ratio(
        p50(hConn.resumed, (c) => c.handshakeMs),
        p50(bConn.resumed, (c) => c.handshakeMs),
      )}. Lower is better.`,
  );
  const reusedH = hConn.resumed.filter((c) => c.reused).length;
  const reusedB = bConn.resumed.filter((c) => c.reused).length;
  if (reusedH < reusedB) console.log(`  NOTE: hearth resumed ${reusedH} of ${hConn.resumed.length} sessions offered, the bare server ${reusedB}.`);

  // 8. Summary.
  const rowsRatio = rowsH.perSec / rowsB.perSec;
  const oauthRatio = oauthH.perSec / oauthP.perSec;
  heading('summary');
  printTable([
    ['figure', 'hearth ÷ other', 'slice ratios min / median / max', 'goal'],
    [`HTTPS GET row by id: requests/s vs bare node:https`, ratio(rowsRatio, 1), spread(rowsRatios), verdict(rowsRatio, ROWS_GOAL)],
    [`token endpoint over TLS: requests/s vs oidc-provider`, ratio(oauthRatio, 1), spread(oauthRatios), verdict(oauthRatio, OAUTH_GOAL)],
    [
      `fresh TLS connection: first byte p50 vs bare (${fmtMs(p50(hConn.full))} vs ${fmtMs(p50(bConn.full))})`,
      ratio(p50(hConn.full), p50(bConn.full)),
      spread(fullRatios),
      'none (lower is better)',
    ],
  ]);
  const wide = (r: number[]) => Math.max(...r) / Math.min(...r) > 1.5;
  const busy = os.loadavg()[0]! > os.cpus().length || wide(rowsRatios) || wide(oauthRatios);
  if (busy)
    console.log(
      `  NOTE: the machine was busy (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cpus): the ratios are noisy; compare the CPU µs/req.`,
    );
  console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cpus: other work on the machine shows up as noise)`);
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\ntls benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
