import type { Command } from 'commander';
import { CliError } from '../output.ts';

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('start the Hearth server (defaults: 127.0.0.1:8787, data in ./hearth-data)')
    .option('--host <host>', 'address to listen on (HEARTH_HOST)')
    .option('--port <port>', 'port to listen on, 0 for any free port (HEARTH_PORT)')
    .option('--data <dir>', 'data folder (HEARTH_DATA_DIR)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (HEARTH_LOG_LEVEL)')
    .option('--max-open-namespaces <n>', 'most tenant databases open at once (HEARTH_MAX_OPEN_NAMESPACES)')
    .option('--authenticator-port <port>', 'also serve the reference authenticator web app on this port, 0 for any free port (HEARTH_AUTHENTICATOR_PORT)')
    .action(async (opts: { host?: string; port?: string; data?: string; logLevel?: string; maxOpenNamespaces?: string; authenticatorPort?: string }) => {
      // loaded here, not at the top: other commands never load the server
      const [{ VERSION, startServer }, { ConfigError }] = await Promise.all([import('../../boot.ts'), import('../../core/config/config.ts')]);
      let server;
      try {
        server = await startServer({
          host: opts.host,
          port: opts.port,
          dataDir: opts.data,
          logLevel: opts.logLevel,
          maxOpenNamespaces: opts.maxOpenNamespaces,
          authenticatorPort: opts.authenticatorPort,
        });
      } catch (err) {
        if (err instanceof ConfigError) throw new CliError(err.message);
        throw new CliError(`hearth could not start: ${(err as Error).message}`);
      }
      const lines = [`Hearth ${VERSION} listening on ${server.url}`];
      lines.push(`Data folder: ${server.config.dataDir}`);
      if (server.authenticatorUrl) lines.push(`Authenticator app on ${server.authenticatorUrl}`);
      if (server.initialTokenFile) {
        lines.push(`Sign in: open ${server.url} and paste the admin token stored in ${server.initialTokenFile}`);
      } else {
        lines.push(`Sign in: open ${server.url} with an admin API token (create one: hearth tokens create --name <you> --admin --data ${server.config.dataDir})`);
      }
      if (server.services.identity.sessions.needsSetup()) {
        lines.push(`First run: create the administrator account at ${server.url} or with: hearth setup --login <name> --password-stdin --data ${server.config.dataDir}`);
      }
      process.stdout.write(lines.join('\n') + '\n');
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        server.logger.info({ signal }, 'shutting down');
        server.close().then(
          () => process.exit(0),
          (err) => {
            process.stderr.write(`hearth: shutdown failed: ${(err as Error).message}\n`);
            process.exit(1);
          },
        );
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}
