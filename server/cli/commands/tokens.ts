import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { cliEnvironment } from '../../core/config/environment.ts';
import { CliError, printJson, printTable } from '../output.ts';

/**
 * `hearth tokens …` works on the data folder directly (whoever can read it is an administrator), so the first
 * token can be made before anyone can sign in, and whether or not the server is running.
 */
export function registerTokens(tokens: Command): void {
  const withData = (c: Command) =>
    c
      .option('--data <dir>', 'data folder (HEARTH_DATA_DIR, default ./hearth-data)')
      .option('--database-url <url>', 'the core store on PostgreSQL, when the server runs with one (HEARTH_DATABASE_URL)');
  const open = async (data?: string, mustExist = true, databaseUrl = cliEnvironment().databaseUrl) => {
    const dir = path.resolve(data ?? cliEnvironment().dataDir ?? './hearth-data');
    if (!databaseUrl && mustExist && !fs.existsSync(path.join(dir, 'platform.db'))) {
      throw new CliError(`no Hearth data folder at ${dir} (no platform.db): pass --data <dir> or set HEARTH_DATA_DIR`);
    }
    // loaded here, not at the top: other commands never load the server
    const [{ openDataDir }, { createTokenStore }, { createTokenService }, { createAuditLog }] = await Promise.all([
      import('../../boot.ts'),
      import('../../core/auth/tokens.store.ts'),
      import('../../core/auth/tokens.service.ts'),
      import('../../core/audit/audit.ts'),
    ]);
    const db = await openDataDir(dir, databaseUrl).catch((err: Error) => {
      throw new CliError(err.message);
    });
    return { db, service: createTokenService(createTokenStore(db.store), {}), audit: createAuditLog(db.store) };
  };

  withData(tokens.command('create'))
    .description('create a token and print it once')
    .requiredOption('--name <name>', 'a name to recognise the token by')
    .option('--admin', 'an admin token (control plane and every namespace)')
    .option('--ns <names>', 'comma-separated namespaces for a data-plane token')
    .option('--read-only', 'namespace token that can only read')
    .option('--expires <iso>', 'expiry time (ISO 8601)')
    .option('--json', 'print JSON')
    .action(
      async (opts: {
        name: string;
        admin?: boolean;
        ns?: string;
        readOnly?: boolean;
        expires?: string;
        json?: boolean;
        data?: string;
        databaseUrl?: string;
      }) => {
        if (!!opts.admin === !!opts.ns) throw new CliError('choose exactly one of --admin or --ns <names>');
        const { CreateTokenBody } = await import('../../core/core.routes.ts');
        const parsed = CreateTokenBody.safeParse({
          name: opts.name,
          scope: opts.admin ? 'admin' : 'namespaces',
          namespaces: opts.ns
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          read_only: opts.readOnly,
          expires_at: opts.expires,
        });
        if (!parsed.success) {
          const i = parsed.error.issues[0]!;
          throw new CliError(`${i.path.join('.') || 'token'}: ${i.message}`);
        }
        const { db, service, audit } = await open(opts.data, false, opts.databaseUrl);
        try {
          const b = parsed.data;
          const { token, info } = await service.create({
            name: b.name,
            scope: b.scope,
            namespaces: b.namespaces,
            readOnly: b.read_only,
            expiresAt: b.expires_at ?? null,
          });
          audit.record({
            actor: 'cli',
            action: 'token.create',
            target: info.id,
            detail: { name: info.name, scope: info.scope, namespaces: info.namespaces, read_only: info.read_only },
          });
          if (opts.json) printJson({ ...info, token });
          else {
            process.stdout.write(`${token}\n`);
            process.stderr.write(`Created ${info.scope} token "${info.name}" (id ${info.id}). It is shown only now: keep it safe.\n`);
          }
        } finally {
          await db.close();
        }
      },
    );

  withData(tokens.command('list'))
    .description('list tokens (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean; data?: string; databaseUrl?: string }) => {
      const { db, service } = await open(opts.data, true, opts.databaseUrl);
      try {
        const list = await service.list();
        if (opts.json) printJson(list);
        else
          printTable(
            list.map((t) => ({
              ...t,
              state: t.revoked_at ? 'revoked' : t.expires_at && Date.parse(t.expires_at) <= Date.now() ? 'expired' : 'active',
              access: t.scope === 'admin' ? 'admin' : `${t.read_only ? 'read ' : ''}${t.namespaces?.join(',')}`,
            })),
            ['id', 'name', 'prefix', 'access', 'state', 'created_at', 'last_used_at'],
          );
      } finally {
        await db.close();
      }
    });

  withData(tokens.command('revoke <id>'))
    .description('revoke a token')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean; data?: string; databaseUrl?: string }) => {
      const { db, service, audit } = await open(opts.data, true, opts.databaseUrl);
      try {
        let info: Awaited<ReturnType<typeof service.revoke>>;
        try {
          info = await service.revoke(id);
        } catch (err) {
          throw new CliError((err as Error).message);
        }
        await audit.record({ actor: 'cli', action: 'token.revoke', target: info.id, detail: { name: info.name } });
        if (opts.json) printJson(info);
        else process.stdout.write(`Revoked token "${info.name}" (${info.id}).\n`);
      } finally {
        await db.close();
      }
    });
}
