/**
 * `npm test`: every check of the tree, as much of it at once as can run at once. Most of the suite waits — on servers,
 * SMTP and IMAP peers, PostgreSQL, child processes, a browser — so running its parts side by side keeps a small
 * machine busy, and a busy machine (CI, or `stress-ng` beside it) gives more of its time to many processes than to one.
 *
 *   at once:   lint (biome)   dependency rules   OpenAPI types up to date   tsc (server, electron)   svelte-check (UI,
 *              authenticator)   the build (UI, SDK, headless binary)
 *   then, once the build is done (the tests run the built UI and binary), at once:
 *              vitest (projects `sqlite` and `postgres`: vitest.config.ts)   Playwright (test/e2e/playwright.config.ts)
 *
 * Each part writes its output to test-results/logs/<part>.log; the terminal gets a line when a part starts and ends,
 * the summary of each test runner, and the whole log of a part that failed. The exit status is non-zero when any part
 * failed; a part never stops the others (one run tells everything that is wrong).
 *
 *   node test/run.ts                 everything (what CI runs)
 *   node test/run.ts vitest          some parts by name: lint deps openapi tsc tsc-electron svelte svelte-authenticator
 *                                    build vitest e2e (vitest and e2e build first unless `--no-build`)
 *   node test/run.ts --no-build e2e  a part without building first (the build is there already)
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const LOGS = path.join(ROOT, 'test-results', 'logs');
const bin = (name: string) => path.join(ROOT, 'node_modules', '.bin', name);

interface Part {
  name: string;
  command: string[];
  /** Runs after the build (it needs the built UI or binary). */
  afterBuild?: boolean;
  /** Lines of a passing part's log shown on the terminal (a test runner's summary). */
  summary?: RegExp;
}

const PARTS: Part[] = [
  { name: 'lint', command: [bin('biome'), 'ci', '--error-on-warnings', '--reporter=summary', '.'] },
  { name: 'deps', command: [bin('depcruise'), 'server', 'ui/src', 'ui/sdk', 'electron', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'] },
  { name: 'openapi', command: [process.execPath, 'build/openapi.ts', '--check'] },
  { name: 'tsc', command: [bin('tsc'), '-p', 'tsconfig.json', '--noEmit'] },
  { name: 'tsc-electron', command: [bin('tsc'), '-p', 'tsconfig.electron.json', '--noEmit'] },
  { name: 'svelte', command: [bin('svelte-check'), '--tsconfig', 'ui/tsconfig.json', '--fail-on-warnings', '--threshold', 'warning'] },
  {
    name: 'svelte-authenticator',
    command: [bin('svelte-check'), '--tsconfig', 'ui/authenticator/tsconfig.json', '--fail-on-warnings', '--threshold', 'warning'],
  },
  { name: 'build', command: ['npm', 'run', 'build:headless', '--silent'] },
  {
    name: 'vitest',
    command: [bin('vitest'), 'run', '--reporter=default', '--reporter=json', `--outputFile=${path.join(LOGS, 'vitest.json')}`],
    afterBuild: true,
    summary: /^\s*(Test Files|Tests|Duration|Start at)\s/,
  },
  {
    name: 'e2e',
    command: [bin('playwright'), 'test', '-c', 'test/e2e/playwright.config.ts'],
    afterBuild: true,
    summary: /^\s*\d+ (passed|failed|flaky|skipped|did not run)\b/,
  },
];

const strip = (s: string) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, '');
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const started = Date.now();

function say(line: string): void {
  process.stdout.write(`[test ${seconds(Date.now() - started).padStart(8)}] ${line}\n`);
}

/** Runs a part with its output in its log; resolves with its exit status. */
function run(part: Part): Promise<{ part: Part; status: number; ms: number }> {
  const t0 = Date.now();
  const log = path.join(LOGS, `${part.name}.log`);
  const out = fs.openSync(log, 'w');
  say(`▶ ${part.name}`);
  return new Promise((resolve) => {
    const child = spawn(part.command[0]!, part.command.slice(1), { cwd: ROOT, stdio: ['ignore', out, out], env: { ...process.env, FORCE_COLOR: '0' } });
    const done = (status: number) => {
      fs.closeSync(out);
      const ms = Date.now() - t0;
      const text = strip(fs.readFileSync(log, 'utf8'));
      if (status === 0) {
        say(`✔ ${part.name} (${seconds(ms)})`);
        if (part.summary) for (const line of text.split('\n').filter((l) => part.summary!.test(l))) process.stdout.write(`    ${line.trim()}\n`);
      } else {
        say(`✘ ${part.name} failed (exit ${status}, ${seconds(ms)}); its log, ${path.relative(ROOT, log)}:`);
        process.stdout.write(`${text.trimEnd()}\n`);
        say(`✘ ${part.name}: end of its log`);
      }
      resolve({ part, status, ms });
    };
    child.once('error', (err) => {
      fs.writeSync(out, `could not start ${part.command[0]}: ${err.message}\n`);
      done(127);
    });
    child.once('exit', (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

const args = process.argv.slice(2);
const noBuild = args.includes('--no-build');
const named = args.filter((a) => !a.startsWith('--'));
for (const n of named) if (!PARTS.some((p) => p.name === n)) throw new Error(`unknown part ${JSON.stringify(n)}: ${PARTS.map((p) => p.name).join(', ')}`);
const wanted = named.length ? PARTS.filter((p) => named.includes(p.name)) : PARTS;
const build = PARTS.find((p) => p.name === 'build')!;
const needsBuild = !noBuild && wanted.some((p) => p.afterBuild);
const first = wanted.filter((p) => !p.afterBuild && p !== build);
const later = wanted.filter((p) => p.afterBuild);

fs.mkdirSync(LOGS, { recursive: true });

// The tests' temporary folders (data folders, PostgreSQL's cluster, peers' state) in memory when the machine has room
// there: every SQLite commit of a namespace is an fsync (synchronous = FULL), which a loaded disk makes the slowest
// part of many tests. Nothing a test checks depends on where os.tmpdir() is (the full-disk tests mount their own
// tmpfs). HEARTH_TEST_TMPDIR names another folder; the folder made here is removed at the end.
let madeTmp: string | null = null;
if (process.env.HEARTH_TEST_TMPDIR) process.env.TMPDIR = process.env.HEARTH_TEST_TMPDIR;
else if (memoryRoom('/dev/shm') >= 4 * 1024 ** 3) {
  process.env.TMPDIR = madeTmp = fs.mkdtempSync('/dev/shm/ht-');
  fs.chmodSync(madeTmp, 0o1777); // as /tmp: PostgreSQL's cluster runs as its own user under root
}
if (process.env.TMPDIR) say(`temporary folders in ${process.env.TMPDIR}`);

function memoryRoom(dir: string): number {
  try {
    fs.accessSync(dir, fs.constants.W_OK);
    const st = fs.statfsSync(dir);
    return st.bavail * st.bsize;
  } catch {
    return 0;
  }
}
const building = needsBuild || wanted.includes(build) ? run(build) : Promise.resolve({ part: build, status: 0, ms: 0 });
const results = await Promise.all([
  ...first.map(run),
  building,
  building.then(async (b) => (b.status === 0 ? Promise.all(later.map(run)) : later.map((part) => ({ part, status: -1, ms: 0 })))),
]);
const all = results.flat().filter((r) => wanted.includes(r.part) || (r.part === build && needsBuild));
const failed = all.filter((r) => r.status !== 0);
for (const r of all.filter((x) => x.status === -1)) say(`– ${r.part.name} did not run (the build failed)`);
say(failed.length === 0 ? `all ${all.length} parts passed` : `${failed.length} of ${all.length} parts failed: ${failed.map((r) => r.part.name).join(', ')}`);
if (madeTmp) fs.rmSync(madeTmp, { recursive: true, force: true });
process.exit(failed.length === 0 ? 0 : 1);
