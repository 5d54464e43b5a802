/**
 * OAuth token endpoint: `client_credentials` requests per second, against baselines measured in the same run.
 *
 *   hearth          POST /oauth/token `grant_type=client_credentials&scope=read` with HTTP Basic client
 *                   authentication (a confidential client bound to a namespace service account), answered with an
 *                   RS256 JWT access token (RSA 2048). Hearth runs in its own process (test/helpers/server-child.ts).
 *   oidc-provider   panva's certified provider in another child process (bench/oauth-provider-child.ts), configured
 *                   for the same grant: one client_secret_basic client (the same id and secret), resource
 *                   indicators resolving to one resource server with JWT access tokens, RS256, a 2048-bit key.
 *                   Target: hearth / oidc-provider ≥ 1.2 (requests per second).
 *   jose            raw RS256 signing (jose SignJWT with a non-extractable WebCrypto key from importJWK, as Hearth
 *                   does) of an equivalent claim set in this process (RSA 2048): one signature at a time, and eight
 *                   in parallel. The ceiling a token endpoint signing one JWT per request could reach on this machine.
 *
 * Both servers get the same load: CONNECTIONS keep-alive connections (raw sockets, bench/rows-http.ts), one request in
 * flight on each, after a warm-up of each; the measurement alternates between the two servers (and the two jose
 * modes, while both servers are idle) in short slices so that background load on the machine falls on every figure
 * alike (the spread of the per-slice hearth/oidc-provider ratios is printed). Every
 * answer must be 200; sample answers are checked to be JWT access tokens that verify against each server's JWKS.
 * The CPU time of each server process (all its threads, from /proc) per request is printed as well.
 *
 * Knobs (environment): BENCH_OAUTH_CONNECTIONS (20), BENCH_OAUTH_SECONDS (10 per server), BENCH_OAUTH_SLICES (10),
 * BENCH_OAUTH_WARMUP_MS (2000), BENCH_OAUTH_JOSE_SECONDS (5 per mode), BENCH_OAUTH_PARALLEL (8).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLocalJWKSet, importJWK, type JWTPayload, jwtVerify, SignJWT } from 'jose';
import { benchRun, envInt, fmtMs, fmtRate, heading, median, now, printTable, ratio, startChild, summarize } from './lib.ts';
import { checkToken, createBenchClient, providerJwk, tokenRequest } from './oauth-common.ts';
import { Loader, mergeRates, type RateResult } from './rows-http.ts';

const CONNECTIONS = envInt('BENCH_OAUTH_CONNECTIONS', 20);
const SECONDS = envInt('BENCH_OAUTH_SECONDS', 10);
const SLICES = envInt('BENCH_OAUTH_SLICES', 10);
const WARMUP_MS = envInt('BENCH_OAUTH_WARMUP_MS', 2000);
const JOSE_SECONDS = envInt('BENCH_OAUTH_JOSE_SECONDS', 5);
const PARALLEL = envInt('BENCH_OAUTH_PARALLEL', 8);
const TARGET = 1.2;
const NS = 'bench';

const run = benchRun('hearth-bench-oauth-');
const tmp = run.tmp;
const token = `bench-admin-${crypto.randomBytes(16).toString('hex')}`;
const t0 = now();
const elapsed = () => `[${((now() - t0) / 1000).toFixed(1).padStart(5)} s]`;

// ---------------------------------------------------------------------------------------------------------------
// Helpers

interface Cpu {
  /** The JavaScript thread (HTTP, routing, handlers, JSON). */
  main: number;
  /** libuv's thread pool: WebCrypto signatures run there. */
  pool: number;
  /** Everything else (V8's garbage collector and compiler helpers…). */
  other: number;
}

/** CPU time (user + system) a process has used so far, per kind of thread, in ms (/proc/<pid>/task/<tid>/stat). */
function cpuMs(pid: number): Cpu {
  const out: Cpu = { main: 0, pool: 0, other: 0 };
  let tids: string[];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return { main: NaN, pool: NaN, other: NaN };
  }
  for (const tid of tids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ms = ((Number(f[11]) + Number(f[12])) * 1000) / 100; // utime + stime, in clock ticks (USER_HZ = 100)
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (tid === String(pid)) out.main += ms;
      else if (comm.startsWith('libuv-worker')) out.pool += ms;
      else out.other += ms;
    } catch {
      // the thread ended between readdir and read
    }
  }
  return out;
}

const cpuTotal = (c: Cpu) => c.main + c.pool + c.other;

interface Side {
  name: string;
  pid: number;
  url: string;
  req: (i: number) => Buffer;
  slices: RateResult[];
  cpu: Cpu;
}

async function slice(s: Side, ms: number): Promise<void> {
  // Fresh connections for every slice: a server may close keep-alive connections left idle for a few seconds.
  const loader = await Loader.open(s.url, CONNECTIONS);
  const c0 = cpuMs(s.pid);
  try {
    s.slices.push(await loader.run(ms, s.req));
  } finally {
    loader.close();
  }
  const c1 = cpuMs(s.pid);
  s.cpu.main += c1.main - c0.main;
  s.cpu.pool += c1.pool - c0.pool;
  s.cpu.other += c1.other - c0.other;
}

// ---------------------------------------------------------------------------------------------------------------
// Raw jose

interface SignResult {
  signs: number;
  elapsedMs: number;
  latencies: number[];
  perSec: number;
}

async function joseSigning(key: CryptoKey, kid: string, claims: () => JWTPayload, parallel: number, ms: number): Promise<SignResult> {
  const latencies: number[] = [];
  const start = now();
  const deadline = start + ms;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (now() < deadline) {
        const t = now();
        await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid }).sign(key);
        latencies.push(now() - t);
      }
    }),
  );
  const elapsedMs = now() - start;
  return { signs: latencies.length, elapsedMs, latencies, perSec: (latencies.length / elapsedMs) * 1000 };
}

function mergeSigns(list: SignResult[]): SignResult {
  const signs = list.reduce((a, r) => a + r.signs, 0);
  const elapsedMs = list.reduce((a, r) => a + r.elapsedMs, 0);
  return { signs, elapsedMs, latencies: list.flatMap((r) => r.latencies), perSec: (signs / elapsedMs) * 1000 };
}

// ---------------------------------------------------------------------------------------------------------------

async function main(): Promise<number> {
  console.log(
    `oauth benchmark: client_credentials token requests, ${CONNECTIONS} keep-alive connections, ${SECONDS} s per server (${SLICES} alternating slices) after ${WARMUP_MS} ms warm-up; raw jose ${JOSE_SECONDS} s one at a time and ${PARALLEL} in parallel`,
  );
  console.log(
    `node ${process.version}, ${process.platform}/${process.arch}, ${os.cpus().length} cpus, load average ${os.loadavg()[0]!.toFixed(2)}, data in ${tmp.dir}`,
  );

  // 1. Hearth, with a namespace, a service account bound to it and a confidential client bound to the account.
  const hearth = await startChild('../test/helpers/server-child.ts', { dataDir: path.join(tmp.dir, 'hearth'), adminToken: token });
  run.children.add(hearth);
  const { clientId, clientSecret, audience, authorization: auth, sub } = await createBenchClient(hearth.url, token, NS, { createNamespace: true });
  console.log(`${elapsed()} hearth started (${hearth.url}); client ${clientId} bound to service account ${sub} (namespace ${NS})`);

  // 2. oidc-provider with the same client id and secret, the same audience, and its own RSA 2048 key.
  const jwk = providerJwk();
  const provider = await startChild('oauth-provider-child.ts', { jwk, clientId, clientSecret, audience });
  run.children.add(provider);
  console.log(`${elapsed()} oidc-provider started (${provider.url})`);

  // 3. Sample answers: real JWT access tokens, verified against each server's published keys.
  const hReq = tokenRequest(hearth.url, '/oauth/token', auth);
  const pReq = tokenRequest(provider.url, '/token', auth);
  const hc = await checkToken('hearth', hearth.url, hReq, `${hearth.url}/.well-known/jwks.json`, audience);
  const pc = await checkToken('oidc-provider', provider.url, pReq, `${provider.url}/jwks`, audience);
  heading('sample answers (verified against each JWKS)');
  for (const [name, c] of [
    ['hearth', hc],
    ['oidc-provider', pc],
  ] as const) {
    console.log(`  ${name}: ${c.bytes} bytes, token_type ${c.tokenType}, expires_in ${String(c.expiresIn)}`);
    console.log(`    header ${JSON.stringify(c.header)}`);
    console.log(`    claims ${JSON.stringify(c.claims)}`);
  }

  // 4. Raw jose signer (in this process: it only signs while both servers are idle), with an equivalent claim set.
  const key = (await importJWK({ ...jwk, alg: 'RS256' }, 'RS256', { extractable: false })) as CryptoKey;
  const claims = (): JWTPayload => {
    const iat = Math.floor(Date.now() / 1000);
    return {
      iss: hearth.url,
      sub,
      aud: audience,
      client_id: clientId,
      scope: 'read',
      hearth_actor: 'service_account',
      iat,
      exp: iat + 3600,
      jti: crypto.randomBytes(16).toString('base64url'),
    };
  };
  const sample = await new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: jwk.kid }).sign(key);
  await jwtVerify(sample, createLocalJWKSet({ keys: [{ kty: 'RSA', n: jwk.n, e: jwk.e, kid: jwk.kid, alg: 'RS256' }] }), { audience });

  // 5. Load: warm-up of each, then alternating slices: hearth and oidc-provider, then jose one at a time and in
  //    parallel, so that background load on the machine falls on every figure alike.
  const sliceMs = (SECONDS * 1000) / SLICES;
  const joseSliceMs = (JOSE_SECONDS * 1000) / SLICES;
  heading(
    `token endpoint: ${CONNECTIONS} keep-alive connections, ${SECONDS} s per server (${SLICES} alternating slices of ${fmtMs(sliceMs)}) after ${WARMUP_MS} ms warm-up; ` +
      `jose ${JOSE_SECONDS} s per mode in slices of ${fmtMs(joseSliceMs)} between them`,
  );
  const h: Side = { name: 'hearth', pid: hearth.pid, url: hearth.url, req: () => hReq, slices: [], cpu: { main: 0, pool: 0, other: 0 } };
  const p: Side = { name: 'oidc-provider', pid: provider.pid, url: provider.url, req: () => pReq, slices: [], cpu: { main: 0, pool: 0, other: 0 } };
  const j1s: SignResult[] = [];
  const jNs: SignResult[] = [];
  let loadCpuMs = 0;
  const warm = async (s: Side) => {
    const loader = await Loader.open(s.url, CONNECTIONS);
    try {
      return await loader.run(WARMUP_MS, s.req);
    } finally {
      loader.close();
    }
  };
  const hw = await warm(h);
  const pw = await warm(p);
  await joseSigning(key, jwk.kid, claims, PARALLEL, 500);
  console.log(`${elapsed()} warm-up (not counted): hearth ${fmtRate(hw.perSec, 'req')}, oidc-provider ${fmtRate(pw.perSec, 'req')}`);
  for (let k = 0; k < SLICES; k++) {
    const order = k % 2 === 0 ? [h, p] : [p, h];
    const c0 = process.cpuUsage();
    for (const s of order) await slice(s, sliceMs);
    const c = process.cpuUsage(c0);
    loadCpuMs += (c.user + c.system) / 1000;
    j1s.push(await joseSigning(key, jwk.kid, claims, 1, joseSliceMs));
    jNs.push(await joseSigning(key, jwk.kid, claims, PARALLEL, joseSliceMs));
  }
  const hr = mergeRates(h.slices);
  const pr = mergeRates(p.slices);
  const sliceRatios = h.slices.map((x, k) => x.perSec / p.slices[k]!.perSec);
  const sr = summarize(sliceRatios);
  const j1 = mergeSigns(j1s);
  const jN = mergeSigns(jNs);
  console.log(`${elapsed()} hearth ${fmtRate(hr.perSec, 'req')} (${hr.requests} × 200), oidc-provider ${fmtRate(pr.perSec, 'req')} (${pr.requests} × 200)`);
  console.log(`  slice ratios hearth/oidc-provider min / median / max: ${sr.min.toFixed(2)} / ${median(sliceRatios).toFixed(2)} / ${sr.max.toFixed(2)}`);
  console.log(
    `  jose RS256: one at a time ${fmtRate(j1.perSec, 'sig')}, ${PARALLEL} in parallel ${fmtRate(jN.perSec, 'sig')} (RSA 2048, importJWK → non-extractable CryptoKey, SignJWT)`,
  );

  // The endpoints still answer verified tokens after the load.
  await checkToken('hearth', hearth.url, hReq, `${hearth.url}/.well-known/jwks.json`, audience);
  await checkToken('oidc-provider', provider.url, pReq, `${provider.url}/jwks`, audience);

  // 6. Table.
  const hl = summarize(hr.latencies);
  const pl = summarize(pr.latencies);
  const j1l = summarize(j1.latencies);
  const jNl = summarize(jN.latencies);
  const per = (ms: number, r: RateResult) => (ms / r.requests).toFixed(3);
  const cpuPer = (s: Side, r: RateResult) => `${per(cpuTotal(s.cpu), r)} = ${per(s.cpu.main, r)} + ${per(s.cpu.pool, r)} + ${per(s.cpu.other, r)}`;
  heading('results');
  printTable([
    ['', 'rate', 'p50', 'p99', 'server CPU ms/req = main + pool + other', 'hearth ÷ this'],
    [`hearth POST /oauth/token (${CONNECTIONS} conn.)`, fmtRate(hr.perSec, 'req'), fmtMs(hl.p50), fmtMs(hl.p99), cpuPer(h, hr), ''],
    [`oidc-provider POST /token (${CONNECTIONS} conn.)`, fmtRate(pr.perSec, 'req'), fmtMs(pl.p50), fmtMs(pl.p99), cpuPer(p, pr), ratio(hr.perSec, pr.perSec)],
    ['jose RS256 sign, one at a time', fmtRate(j1.perSec, 'sig'), fmtMs(j1l.p50), fmtMs(j1l.p99), '', ratio(hr.perSec, j1.perSec)],
    [`jose RS256 sign, ${PARALLEL} in parallel`, fmtRate(jN.perSec, 'sig'), fmtMs(jNl.p50), fmtMs(jNl.p99), '', ratio(hr.perSec, jN.perSec)],
  ]);
  const r = hr.perSec / pr.perSec;
  console.log('');
  console.log(`  hearth / oidc-provider = ${r.toFixed(2)}× (target ≥ ${TARGET}×): target ${r >= TARGET ? 'met' : 'missed'}`);
  const loadShare = loadCpuMs / (hr.requests + pr.requests);
  const hCpu = cpuTotal(h.cpu) / hr.requests + loadShare;
  const pCpu = cpuTotal(p.cpu) / pr.requests + loadShare;
  console.log(
    `  CPU per request (server process + load generator): hearth ${hCpu.toFixed(3)} ms, oidc-provider ${pCpu.toFixed(3)} ms: where CPU is the limit, ` +
      `hearth can answer ${ratio(pCpu, hCpu)} oidc-provider's rate (a figure less sensitive to other work on the machine).`,
  );
  const busy = os.loadavg()[0]! > os.cpus().length || sr.max / sr.min > 1.5;
  if (busy) {
    console.log(
      `  NOTE: the machine was busy (load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} cpus, slice ratios ${sr.min.toFixed(2)}–${sr.max.toFixed(2)}): ` +
        'the rate ratio is noisy; the CPU-per-request figure above is steadier.',
    );
  }
  console.log(
    `  hearth needs ${fmtRate(pr.perSec * TARGET, 'req')} for the target; it reaches ${((hr.perSec / jN.perSec) * 100).toFixed(0)}% of the ${PARALLEL}-parallel signing ceiling.`,
  );
  console.log('  server CPU ms/req: CPU time of the server process per request during the measured slices (/proc, 10 ms ticks), split into');
  console.log("  its JavaScript thread (main), libuv's thread pool where WebCrypto signs (pool), and other threads (V8 GC, compiler).");
  console.log(`  load generator (this process): ${fmtMs(loadCpuMs / (hr.requests + pr.requests))} CPU per request.`);
  console.log(`${elapsed()} done (load average now ${os.loadavg()[0]!.toFixed(2)} on ${os.cpus().length} cpus: other work on the machine shows up as noise)`);
  return 0;
}

let code = 1;
try {
  code = await main();
} catch (err) {
  if (!run.interrupted) console.error('\noauth benchmark failed:', err);
  code = 1;
} finally {
  await run.cleanup();
}
process.exit(code);
