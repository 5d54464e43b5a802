/**
 * The `hearth` help text, word for word: `hearth --help`, `hearth help`, every group's `--help` and the unknown-command
 * errors as the real command prints them (a child process, 80 columns since its output is not a terminal), and the
 * help of every one of the command tree's commands as the fully registered program renders it.
 *
 * The snapshot (__snapshots__/help.test.ts.snap) was taken before the CLI loaded its command groups lazily; it must
 * not change when only the loading does. Update it (`npx vitest run -u <this file>`) only for a wanted change of text.
 * `hearth --help` shows the top-level commands that are not loaded from cli/index.ts's list: each entry there must
 * read as its module makes it.
 */
import fs from 'node:fs';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { needsServerBundle, SERVER_BUNDLE_COMMANDS } from '../../../server/cli/command-line.ts';
import { buildProgram, commandNamed, TOP_COMMANDS } from '../../../server/cli/index.ts';
import { runCli } from '../../helpers/cli.ts';
import { tempDir } from '../../helpers/server.ts';

const cwd = tempDir('hearth-cli-help-');
afterAll(() => fs.rmSync(cwd, { recursive: true, force: true }));

const hearth = (args: string[]) => runCli(args, { cwd, env: { HEARTH_CONFIG_DIR: cwd } });

/** Every command of the tree as its words after `hearth` (groups first, then their subcommands, depth first). */
function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

const program = await buildProgram('all');
const paths = commandPaths(program);
const groups = paths.filter((p) => p.length === 1 || findCommand(program, p).commands.length > 0);

function findCommand(root: Command, words: string[]): Command {
  let c = root;
  for (const w of words) c = c.commands.find((s) => s.name() === w)!;
  return c;
}

describe('hearth help (the real command)', () => {
  it('hearth --help, hearth help and hearth with no command', async () => {
    const help = await hearth(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatchSnapshot();
    expect(await hearth(['help'])).toEqual(help);
    const none = await hearth([]);
    expect(none.code).toBe(1);
    expect(none.stdout).toBe('');
    expect(none.stderr).toBe(help.stdout);
  });

  it('hearth --version', async () => {
    const v = await hearth(['--version']);
    expect(v).toMatchObject({ code: 0, stderr: '' });
    expect(v.stdout).toMatchSnapshot();
  });

  it('an unknown command: the error, a suggestion and the help', async () => {
    const r = await hearth(['nss', 'list']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatchSnapshot();
    const sub = await hearth(['ns', 'lst']);
    expect(sub.code).toBe(1);
    expect(sub.stderr).toMatchSnapshot();
  });

  it.each(groups.map((p) => p.join(' ')))('hearth %s --help', async (words) => {
    const args = words.split(' ');
    const r = await hearth([...args, '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatchSnapshot();
    if (args.length === 1) expect(await hearth(['help', ...args])).toEqual(r);
  });
});

describe('hearth help (the whole command tree)', () => {
  it('lists the same commands', () => {
    expect(paths.map((p) => p.join(' '))).toMatchSnapshot();
  });

  it.each(paths.map((p) => p.join(' ')))('hearth %s', (words) => {
    const cmd = findCommand(program, words.split(' '));
    expect(cmd.helpInformation({ error: false })).toMatchSnapshot();
  });
});

describe('the top-level commands of cli/index.ts', () => {
  it('hearth --help reads the same with no command loaded as with every command loaded', async () => {
    const none = await buildProgram([]);
    expect(none.helpInformation()).toBe(program.helpInformation());
    expect(TOP_COMMANDS.map((t) => t.name)).toEqual(program.commands.map((c) => c.name()));
  });

  it('each command loads its module alone, complete', async () => {
    for (const t of TOP_COMMANDS) {
      const one = await buildProgram([t.name]);
      const cmd = findCommand(one, [t.name]);
      expect(cmd.helpInformation(), t.name).toBe(findCommand(program, [t.name]).helpInformation());
      expect(commandPaths(cmd).length, t.name).toBe(commandPaths(findCommand(program, [t.name])).length);
    }
  });

  it('the command a command line names, as commander reads it', () => {
    expect(commandNamed([])).toBeNull();
    expect(commandNamed(['--version'])).toBeNull();
    expect(commandNamed(['-h'])).toBeNull();
    expect(commandNamed(['help'])).toBeNull();
    expect(commandNamed(['ns', 'list', '--json'])).toBe('ns');
    expect(commandNamed(['--ca-file', 'ca.pem', 'ns', 'list'])).toBe('ns');
    expect(commandNamed(['--ca-file=ca.pem', 'tls', 'status'])).toBe('tls');
    expect(commandNamed(['--ca-file', 'help', 'backup'])).toBe('backup');
    expect(commandNamed(['help', 'admin'])).toBe('admin');
    expect(commandNamed(['help', 'help'])).toBe('help');
    expect(commandNamed(['--', 'serve'])).toBe('serve');
    expect(commandNamed(['nosuch', 'ns'])).toBe('nosuch');
  });

  it("which command lines run from the server's bundle and which from the CLI's own (server/cli/command-line.ts)", () => {
    const names = TOP_COMMANDS.map((t) => t.name);
    for (const name of SERVER_BUNDLE_COMMANDS) expect(names).toContain(name);
    for (const args of [['serve'], ['help', 'tokens'], ['setup', '--help'], ['backup', 'verify', 'x.tar'], ['--ca-file', 'ca.pem', 'migrate-store']]) {
      expect(needsServerBundle(args), args.join(' ')).toBe(true);
    }
    for (const args of [[], ['--version'], ['--help'], ['help'], ['ns', 'list'], ['help', 'admin'], ['login', '--device'], ['nosuch'], ['--', 'nosuch']]) {
      expect(needsServerBundle(args), args.join(' ')).toBe(false);
    }
  });

  it('from source, takes built-in modules as a CommonJS require would (not every export of node:fs, node:util, node:process)', async () => {
    // The modules a command loaded, written when it exits.
    const probe = `${cwd}/probe.mjs`;
    const out = `${cwd}/loaded.txt`;
    fs.writeFileSync(
      probe,
      `const fs = process.getBuiltinModule('node:fs');\nprocess.on('exit', () => fs.writeFileSync(${JSON.stringify(out)}, process.moduleLoadList.join('\\n')));\n`,
    );
    const run = await runCli(['ns', '--help'], { cwd, env: { HEARTH_CONFIG_DIR: cwd, NODE_OPTIONS: `--import ${probe}` } });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^Usage: hearth ns/);
    const loaded = fs.readFileSync(out, 'utf8').split('\n');
    expect(loaded).toContain('NativeModule child_process');
    for (const m of ['worker_threads', 'internal/process/report', 'internal/fs/promises', 'internal/readline/interface']) {
      expect(loaded, m).not.toContain(`NativeModule ${m}`);
    }
  });
});
