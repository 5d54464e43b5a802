import type { Command } from 'commander';
import { CONFIG_FILE, SETTINGS, type Setting, type SettingKey } from '../../core/config/settings.ts';
import { isLoopback } from '../../core/net/names.ts';
import { CliError } from '../output.ts';

/** `hearth serve` (its name and description are in cli/index.ts): one option per setting that has a flag (settings.ts). */
export function registerServe(serve: Command): void {
  serve.option(CONFIG_FILE.flag, `${CONFIG_FILE.help} (${CONFIG_FILE.env})`);
  const flagged = (Object.entries(SETTINGS) as Array<[SettingKey, Setting]>).filter(([, s]) => s.flag && s.help);
  for (const [, s] of flagged) {
    const shownDefault = s.helpDefault ?? (s.default === undefined || Array.isArray(s.default) ? undefined : String(s.default));
    const help = `${s.help} (${s.env}${s.flag!.startsWith('--no-') ? '=false' : ''}${shownDefault ? `; default ${shownDefault}` : ''})`;
    if (s.repeatable) serve.option(s.flag!, help, (v: string, prev: string[] = []) => [...prev, v]);
    else serve.option(s.flag!, help);
  }
  serve.action(async (opts: Record<string, unknown>) => {
    // loaded here, not at the top: other commands never load the server
    const [{ VERSION, startServer }, { ConfigError }] = await Promise.all([import('../../boot.ts'), import('../../core/config/config.ts')]);
    const settings: Record<string, unknown> = {};
    for (const [key, s] of flagged) {
      const name = optionName(s.flag!);
      const value = opts[name];
      // `--no-<x>`: commander sets true unless the flag is given; only the explicit "no" overrides the default.
      if (s.flag!.startsWith('--no-')) settings[key] = value === false ? false : undefined;
      else settings[key] = value;
    }
    let server: Awaited<ReturnType<typeof startServer>>;
    try {
      server = await startServer({ ...settings, configFile: opts.config as string | undefined });
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

/** commander's property name of an option: `--tls-name <name>` → `tlsName`, `--no-mdns` → `mdns`. */
function optionName(flag: string): string {
  const long = flag
    .split(/[\s,]+/)
    .find((p) => p.startsWith('--'))!
    .slice(2)
    .replace(/^no-/, '');
  return long.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}
