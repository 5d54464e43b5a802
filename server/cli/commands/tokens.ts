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
  const withData = (c: Command) => c.option('--data <dir>', 'data folder (HEARTH_DATA_DIR, default ./hearth-data)');
  const open = async (data?: string, mustExist = true) => {
    const dir = path.resolve(data ?? cliEnvironment().dataDir ?? './hearth-data');
    if (mustExist && !fs.existsSync(path.join(dir, 'platform.db'))) {
      throw new CliError(`no Hearth data folder at ${dir} (no platform.db): pass --data <dir> or set HEARTH_DATA_DIR`);
    }
    // loaded here, not at the top: other commands never load the server
    const [{ openDataDir }, { createTokenStore }, { createTokenService }, { createAuditLog }, { sqliteStore }] = await Promise.all([
      import('../../boot.ts'),
      import('../../core/auth/tokens.store.ts'),
      import('../../core/auth/tokens.service.ts'),
      import('../../core/audit/audit.ts'),
      import('../../core/storage/store.ts'),
    ]);
    const db = openDataDir(dir);
    const store = sqliteStore(db);
    return { db, service: createTokenService(createTokenStore(store), {}), audit: createAuditLog(store) };
  };

  withData(tokens.command('create'))
    .description('create a token and print it once')
    .requiredOption('--name <name>', 'a name to recognise the token by')
    .option('--admin', 'an admin token (control plane and every namespace)')
    .option('--ns <names>', 'comma-separated namespaces for a data-plane token')
    .option('--read-only', 'namespace token that can only read')
    .option('--expires <iso>', 'expiry time (ISO 8601)')
    .option('--json', 'print JSON')
    .action(async (opts: { name: string; admin?: boolean; ns?: string; readOnly?: boolean; expires?: string; json?: boolean; data?: string }) => {
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
      const { db, service, audit } = await open(opts.data, false);
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
        db.close();
      }
    });

  withData(tokens.command('list'))
    .description('list tokens (never their secrets)')
    .option('--json', 'print JSON')
    .action(async (opts: { json?: boolean; data?: string }) => {
      const { db, service } = await open(opts.data);
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
        db.close();
      }
    });

  withData(tokens.command('revoke <id>'))
    .description('revoke a token')
    .option('--json', 'print JSON')
    .action(async (id: string, opts: { json?: boolean; data?: string }) => {
      const { db, service, audit } = await open(opts.data);
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
        db.close();
      }
    });
}
