import type { Command } from 'commander';
import { isLoopback } from '../../core/net/names.ts';
import { CliError } from '../output.ts';

interface ServeOptions {
  host?: string;
  port?: string;
  data?: string;
  logLevel?: string;
  maxOpenNamespaces?: string;
  authenticatorPort?: string;
  tls?: string;
  tlsName?: string[];
  tlsCert?: string;
  tlsKey?: string;
  acmeDirectory?: string;
  acmeEmail?: string;
  acmeHttpPort?: string;
  acmeDnsHook?: string;
  acmeCaFile?: string;
  httpRedirectPort?: string;
  hsts?: string;
  publicUrl?: string;
  mdns?: boolean;
  mdnsName?: string;
  databaseUrl?: string;
  nodeId?: string;
  nodeUrl?: string;
}

/** `hearth serve` (its name and description are in cli/index.ts). */
export function registerServe(serve: Command): void {
  serve
    .option('--host <host>', 'address to listen on (HEARTH_HOST)')
    .option('--port <port>', 'port to listen on, 0 for any free port (HEARTH_PORT)')
    .option('--data <dir>', 'data folder (HEARTH_DATA_DIR)')
    .option('--log-level <level>', 'fatal|error|warn|info|debug|trace|silent (HEARTH_LOG_LEVEL)')
    .option('--max-open-namespaces <n>', 'most tenant databases open at once (HEARTH_MAX_OPEN_NAMESPACES)')
    .option('--authenticator-port <port>', 'also serve the reference authenticator web app on this port, 0 for any free port (HEARTH_AUTHENTICATOR_PORT)')
    .option('--tls <mode>', "off|internal|acme|files: internal = Hearth's own certificate authority (HEARTH_TLS; default off)")
    .option(
      '--tls-name <name>',
      'DNS name of this server for the certificate and the public address; repeatable (HEARTH_TLS_NAMES)',
      (v: string, prev: string[] = []) => [...prev, v],
    )
    .option('--tls-cert <file>', '--tls files: certificate PEM, leaf first, chain allowed (HEARTH_TLS_CERT)')
    .option('--tls-key <file>', '--tls files: private key PEM (HEARTH_TLS_KEY)')
    .option('--acme-directory <url>', "--tls acme: ACME directory URL (HEARTH_ACME_DIRECTORY; default Let's Encrypt)")
    .option('--acme-email <address>', '--tls acme: account contact address (HEARTH_ACME_EMAIL)')
    .option('--acme-http-port <port>', '--tls acme: port answering HTTP-01 challenges (HEARTH_ACME_HTTP_PORT; default 80)')
    .option('--acme-dns-hook <command>', '--tls acme: use DNS-01, running `<command> present|cleanup <record> <value>` (HEARTH_ACME_DNS_HOOK)')
    .option('--acme-ca-file <file>', '--tls acme: extra roots to trust for a private ACME server (HEARTH_ACME_CA_FILE)')
    .option('--http-redirect-port <port>', 'with TLS: a plain listener answering 308 to the https address (HEARTH_HTTP_REDIRECT_PORT)')
    .option('--hsts <seconds>', 'with --tls acme|files: send Strict-Transport-Security with this max-age (HEARTH_HSTS)')
    .option('--public-url <url>', 'the address clients use, if not the listening one (HEARTH_PUBLIC_URL)')
    .option('--no-mdns', 'do not announce <name>.local on the network (HEARTH_MDNS=false)')
    .option('--mdns-name <label>', 'the .local name to announce (HEARTH_MDNS_NAME; default the host name)')
    .option('--database-url <url>', 'keep the core store in PostgreSQL, shared by replicas: postgres://user:pass@host/db (HEARTH_DATABASE_URL)')
    .option('--node-id <name>', "this node's name among the replicas (HEARTH_NODE_ID; default generated once)")
    .option('--node-url <origin>', 'where the other replicas reach this node (HEARTH_NODE_URL; default the listening address)')
    .action(async (opts: ServeOptions) => {
      // loaded here, not at the top: other commands never load the server
      const [{ VERSION, startServer }, { ConfigError }] = await Promise.all([import('../../boot.ts'), import('../../core/config/config.ts')]);
      let server: Awaited<ReturnType<typeof startServer>>;
      try {
        server = await startServer({
          host: opts.host,
          port: opts.port,
          dataDir: opts.data,
          logLevel: opts.logLevel,
          maxOpenNamespaces: opts.maxOpenNamespaces,
          authenticatorPort: opts.authenticatorPort,
          tls: opts.tls,
          tlsNames: opts.tlsName,
          tlsCert: opts.tlsCert,
          tlsKey: opts.tlsKey,
          acmeDirectory: opts.acmeDirectory,
          acmeEmail: opts.acmeEmail,
          acmeHttpPort: opts.acmeHttpPort,
          acmeDnsHook: opts.acmeDnsHook,
          acmeCaFile: opts.acmeCaFile,
          httpRedirectPort: opts.httpRedirectPort,
          hsts: opts.hsts,
          publicUrl: opts.publicUrl,
          // commander sets mdns: true unless --no-mdns; only the explicit "no" overrides the default (on beyond loopback)
          mdns: opts.mdns === false ? false : undefined,
          mdnsName: opts.mdnsName,
          databaseUrl: opts.databaseUrl,
          nodeId: opts.nodeId,
          nodeUrl: opts.nodeUrl,
        });
      } catch (err) {
        if (err instanceof ConfigError) throw new CliError(err.message);
        throw new CliError(`hearth could not start: ${(err as Error).message}`);
      }
      const lines = [`Hearth ${VERSION} listening on ${server.url}`];
      if (server.publicUrl !== server.url) lines.push(`Public address: ${server.publicUrl}`);
      lines.push(`Data folder: ${server.config.dataDir}`);
      const tls = server.tls.status();
      if (tls.ca) {
        lines.push(
          `TLS: Hearth's own certificate authority. Trust it once on each device: ${server.publicUrl}/ca.pem (phones: open ${server.publicUrl} and choose "Add this device's certificate")`,
        );
        lines.push(`     root fingerprint (SHA-256) ${tls.ca.fingerprintSha256}`);
      } else if (tls.certificate) {
        lines.push(`TLS: ${tls.mode} certificate for ${tls.certificate.names.join(', ')}, valid until ${tls.certificate.notAfter}`);
      } else if (!isLoopback(server.config.host)) {
        lines.push(
          `Warning: no TLS on a network address: passwords and tokens cross the network in clear text, and passkeys and phones do not work. Start with --tls internal.`,
        );
      }
      if (server.redirectUrl) lines.push(`Plain HTTP on ${server.redirectUrl} redirects to ${server.publicUrl}`);
      if (server.authenticatorUrl) lines.push(`Authenticator app on ${server.authenticatorUrl}`);
      if (server.initialTokenFile) {
        lines.push(`Sign in: open ${server.publicUrl} and paste the admin token stored in ${server.initialTokenFile}`);
      } else {
        lines.push(
          `Sign in: open ${server.publicUrl} with an admin API token (create one: hearth tokens create --name <you> --admin --data ${server.config.dataDir})`,
        );
      }
      if (await server.services.identity.sessions.needsSetup()) {
        lines.push(
          `First run: create the administrator account at ${server.publicUrl} or with: hearth setup --login <name> --password-stdin --data ${server.config.dataDir}`,
        );
      }
      process.stdout.write(`${lines.join('\n')}\n`);
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
      // SIGHUP: read certificate files again (--tls files); other modes renew nothing on it.
      process.on('SIGHUP', () => {
        if (server.config.tls === 'files') void server.tls.reload('SIGHUP');
      });
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}
