/**
 * `npm run bench [-- name …]`: runs every bench/*.bench.ts (or only those named, e.g. `namespaces`) one after
 * another, each in its own `node` process, prints their output and exits non-zero if any fails.
 *
 * Each benchmark is bounded by BENCH_TIMEOUT_S (default 600 s); past it, it is stopped and counted as failed.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = path.dirname(fileURLToPath(import.meta.url));
const SUFFIX = '.bench.ts';
const timeoutS = Number(process.env.BENCH_TIMEOUT_S ?? 600);

const available = fs
  .readdirSync(benchDir)
  .filter((f) => f.endsWith(SUFFIX))
  .sort()
  .map((f) => f.slice(0, -SUFFIX.length));

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(`usage: npm run bench [-- <name>…]\nbenchmarks: ${available.join(', ') || '(none)'}`);
  process.exit(0);
}
const wanted = args.map((a) =>
  path
    .basename(a)
    .replace(/\.bench\.ts$/, '')
    .replace(/\.ts$/, ''),
);
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length) {
  console.error(`unknown benchmark${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')} (available: ${available.join(', ')})`);
  process.exit(2);
}
const selected = wanted.length ? [...new Set(wanted)] : available;
if (selected.length === 0) {
  console.error('no benchmarks found in bench/');
  process.exit(2);
}

function runOne(name: string): Promise<{ ok: boolean; ms: number; why: string }> {
  const file = path.join(benchDir, name + SUFFIX);
  const t0 = Date.now();
  return new Promise((resolve) => {
    // Its own process group, so a timeout stops the benchmark and the servers it started.
    const child = spawn(process.execPath, [file], { stdio: 'inherit', detached: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      console.error(`\n[bench] ${name}: no result after ${timeoutS} s, stopping it`);
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // already gone
        }
      }, 10_000).unref();
    }, timeoutS * 1000);
    const forward = (sig: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, sig);
      } catch {
        // already gone
      }
    };
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ ok: false, ms: Date.now() - t0, why: err.message });
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      const why = timedOut ? `timed out after ${timeoutS} s` : signal ? `killed by ${signal}` : `exit code ${code}`;
      resolve({ ok: code === 0 && !timedOut, ms: Date.now() - t0, why });
    });
  });
}

const results: Array<{ name: string; ok: boolean; ms: number; why: string }> = [];
for (const name of selected) {
  console.log(`\n[bench] ${name} (bench/${name}${SUFFIX})`);
  const r = await runOne(name);
  results.push({ name, ...r });
  console.log(`[bench] ${name}: ${r.ok ? 'ok' : `FAILED (${r.why})`} in ${(r.ms / 1000).toFixed(1)} s`);
}

const failed = results.filter((r) => !r.ok);
if (results.length > 1) {
  console.log('\n[bench] summary');
  for (const r of results) console.log(`  ${r.ok ? 'ok    ' : 'FAILED'}  ${r.name}  ${(r.ms / 1000).toFixed(1)} s${r.ok ? '' : `  (${r.why})`}`);
}
process.exit(failed.length ? 1 : 0);
