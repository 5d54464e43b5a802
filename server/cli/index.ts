import { Command, CommanderError } from 'commander';
import { VERSION } from '../version.ts';
import { registerAccounts } from './commands/accounts.ts';
import { registerBackup } from './commands/backup.ts';
import { registerLinux } from './commands/linux.ts';
import { registerLogin } from './commands/login.ts';
import { registerMail } from './commands/mail.ts';
import { registerNamespaces } from './commands/ns.ts';
import { registerServe } from './commands/serve.ts';
import { registerSetup } from './commands/setup.ts';
import { registerTls } from './commands/tls.ts';
import { registerTokens } from './commands/tokens.ts';
import { CliError } from './output.ts';
import { applyTrust, CA_FILE_HELP } from './trust.ts';

/**
 * The `hearth` command. Command modules load only what parsing needs: the server (boot.ts and the domains behind it)
 * is imported by the commands that run it or open its data folder, when they run, so that every other command — the
 * HTTP clients of a running server — starts in a fraction of the time.
 */
export function buildProgram(): Command {
  const program = new Command('hearth')
    .description('Hearth: database service, identity platform and outgoing mail for small offices')
    .version(VERSION, '-v, --version')
    .showHelpAfterError()
    .exitOverride()
    // `hearth --ca-file <pem> <command>`: options before the command belong to `hearth`, after it to the command
    // (`admin outgoing-mail profiles put --ca-file` is the profile's CA, not the trust for Hearth).
    .enablePositionalOptions()
    .option('--ca-file <pem>', `${CA_FILE_HELP}; also accepted after every command that talks to a server`)
    .hook('preAction', (self, action) => applyTrust(self, action));
  registerServe(program);
  registerTokens(program);
  registerNamespaces(program);
  registerSetup(program);
  registerAccounts(program);
  registerLogin(program);
  registerLinux(program);
  registerMail(program);
  registerTls(program);
  registerBackup(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
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
