/**
 * The `hearth` command: the top-level commands, and which module runs each.
 *
 * Start-up is most of what a command costs, so the CLI loads only what the command line asks for. Each top-level
 * command's name and description (all that `hearth --help` shows) are listed here; the module that gives it its
 * options, subcommands and actions is imported only when the command line names that command (`hearth ns list`,
 * `hearth ns --help`, `hearth help ns`). `hearth --version` and `hearth --help` load none of them. Within a module,
 * what only some of its commands need (the server behind `serve`, `tokens`, `setup` and the local backup commands,
 * zod, jose, progress bars) is imported by those commands when they run. In the headless bundle esbuild turns each
 * `import()` into a lazily run wrapper, so the same holds there: a module's body runs when it is imported.
 *
 * test/integration/cli/help.test.ts holds every help text word for word, and checks that each entry below is what its
 * module registers.
 */
import { Command, CommanderError, Help } from 'commander';
import { VERSION } from '../version.ts';
import { commandNamed } from './command-line.ts';
import { CliError } from './output.ts';
import { applyTrust, CA_FILE_HELP, isServerCommand } from './trust.ts';

/** Adds a top-level command's options, subcommands and actions to `cmd`, which already has its name and description. */
export type Register = (cmd: Command) => void;

export { commandNamed };

interface TopCommand {
  name: string;
  description: string;
  /** Whether the command has options of its own: `hearth --help` then shows `<name> [options]`. */
  options?: boolean;
  load: () => Promise<Register[]>;
}

const all = async (...registers: Promise<Register>[]) => Promise.all(registers);

/** The top-level commands, in the order `hearth --help` lists them. */
export const TOP_COMMANDS: readonly TopCommand[] = [
  {
    name: 'serve',
    description: 'start the Hearth server (defaults: 127.0.0.1:8787, data in ./hearth-data)',
    options: true,
    load: () => all(import('./commands/serve.ts').then((m) => m.registerServe)),
  },
  {
    name: 'tokens',
    description: 'manage API tokens (works on the data folder directly)',
    load: () => all(import('./commands/tokens.ts').then((m) => m.registerTokens)),
  },
  {
    name: 'ns',
    description: 'manage namespaces on a running server',
    load: () => all(import('./commands/ns.ts').then((m) => m.registerNamespaces)),
  },
  {
    name: 'setup',
    description: 'create the first administrator account (only while no account exists; works on the data folder directly)',
    options: true,
    load: () => all(import('./commands/setup.ts').then((m) => m.registerSetup)),
  },
  {
    name: 'accounts',
    description: 'manage accounts, groups and service accounts on a running server',
    load: () => all(import('./commands/accounts.ts').then((m) => m.registerAccounts)),
  },
  {
    name: 'login',
    description:
      'sign in to a server in the browser (OAuth), with --user approved in your authenticator app, or with --device by entering a code in any browser; later commands without --token use this sign-in',
    options: true,
    load: () => all(import('./commands/login.ts').then((m) => m.registerLogin)),
  },
  {
    name: 'logout',
    description: 'end the sign-in of `hearth login` for a server (revokes it and removes it from the credentials file)',
    options: true,
    load: () => all(import('./commands/login.ts').then((m) => m.registerLogout)),
  },
  {
    name: 'whoami',
    description: 'show the account of `hearth login` for a server',
    options: true,
    load: () => all(import('./commands/login.ts').then((m) => m.registerWhoami)),
  },
  {
    name: 'admin',
    description: 'server administration on a running server',
    load: () =>
      all(
        import('./commands/linux.ts').then((m) => m.registerLinux),
        import('./commands/mail.ts').then((m) => m.registerMail),
      ),
  },
  {
    name: 'tls',
    description: "the server's HTTPS certificate and its own certificate authority",
    load: () => all(import('./commands/tls.ts').then((m) => m.registerTls)),
  },
  {
    name: 'backup',
    description: 'back up the whole instance, and check or restore a backup',
    load: () => all(import('./commands/backup.ts').then((m) => m.registerBackup)),
  },
  {
    name: 'migrate-store',
    description: 'move the core store (platform.db) of a data folder into an empty PostgreSQL database, online',
    options: true,
    load: () => all(import('./commands/migrate-store.ts').then((m) => m.registerMigrateStore)),
  },
];

export interface ProgramOptions {
  /**
   * Runs before the action of a command that does not talk to a server (it opens the data folder, or runs the server):
   * the headless binary unpacks SQLite's addon and the admin UI there, which the other commands never need.
   */
  beforeLocal?: () => void | Promise<void>;
}

/**
 * The `hearth` program for `names`: those top-level commands complete (their modules loaded), the others as their
 * name and description only — enough for `hearth --help` and for the suggestions of an unknown command. With
 * `names` 'all', every command is complete (the tests read the whole tree).
 */
export async function buildProgram(names: readonly string[] | 'all', opts: ProgramOptions = {}): Promise<Command> {
  const stubTerms = new Map<Command, string>();
  const defaultHelp = new Help();
  const program = new Command('hearth')
    .description('Hearth: database service, identity platform and outgoing mail for small offices')
    .version(VERSION, '-v, --version')
    .showHelpAfterError()
    .exitOverride()
    // `hearth --ca-file <pem> <command>`: options before the command belong to `hearth`, after it to the command
    // (`admin outgoing-mail profiles put --ca-file` is the profile's CA, not the trust for Hearth).
    .enablePositionalOptions()
    .option('--ca-file <pem>', `${CA_FILE_HELP}; also accepted after every command that talks to a server`)
    // A command that is not loaded shows in `hearth --help` as its module would make it: `<name> [options]` or `<name>`.
    .configureHelp({ subcommandTerm: (cmd) => stubTerms.get(cmd) ?? defaultHelp.subcommandTerm(cmd) })
    .hook('preAction', async (self, action) => {
      applyTrust(self, action);
      if (!isServerCommand(action)) await opts.beforeLocal?.();
    });
  const wanted = TOP_COMMANDS.filter((t) => names === 'all' || names.includes(t.name));
  const registers = new Map(await Promise.all(wanted.map(async (t) => [t, await t.load()] as const)));
  for (const t of TOP_COMMANDS) {
    const cmd = program.command(t.name).description(t.description);
    const register = registers.get(t);
    if (register) for (const r of register) r(cmd);
    else {
      stubTerms.set(cmd, t.options ? `${t.name} [options]` : t.name);
      // never reached: the command line named no such command (commandNamed reads it as commander does)
      cmd
        .allowUnknownOption()
        .allowExcessArguments()
        .action(() => {
          throw new Error(`internal error: \`hearth ${t.name}\` was not loaded for this command line`);
        });
    }
  }
  return program;
}

export async function main(argv: string[], opts: ProgramOptions = {}): Promise<void> {
  try {
    const name = commandNamed(argv.slice(2));
    const program = await buildProgram(name ? [name] : [], opts);
    await program.parseAsync(argv);
  } catch (err) {
    if (err instanceof CommanderError) process.exit(err.exitCode);
    if (err instanceof CliError) {
      process.stderr.write(`hearth: ${err.message}\n`);
      process.exit(err.exitCode);
    }
    process.stderr.write(`hearth: ${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  }
}
