import type { Command } from 'commander';
import { DATABASE_APP_ID, NAMESPACE_RESOURCE } from '../../../core/contract.ts';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printJson } from '../../output.ts';
import { BASE, confirm, enc, fetchList, type ListOpts, listOptions, type Opts, printList, type ServiceAccount, UUID } from './shared.ts';

/** `hearth accounts service-accounts …`: resource-bound service accounts. */
export function registerServiceAccounts(accounts: Command): void {
  const sa = accounts.command('service-accounts').description('resource-bound service accounts (used by applications, never sign in)');
  const row = (s: ServiceAccount) => ({
    app: s.appId,
    resource_type: s.resourceType,
    resource_id: s.resourceId,
    display_name: s.displayName,
    sub: s.sub,
    created_at: s.createdAt,
  });

  listOptions(sa.command('list'))
    .description('list service accounts')
    .action(async (opts: ListOpts) => {
      const list = await fetchList<ServiceAccount>(new HearthClient(opts), `${BASE}/service-accounts`, opts);
      printList(opts, list, row, ['app', 'resource_type', 'resource_id', 'display_name', 'sub', 'created_at']);
    });

  serverOptions(sa.command('create'))
    .description(
      `create a service account for an application and a resource (the triple is unique); --namespace <name> is the database service's (--app ${DATABASE_APP_ID} --resource-type ${NAMESPACE_RESOURCE} --resource-id <name>)`,
    )
    .option('--namespace <name>', `for the database service: the namespace it may use (application ${DATABASE_APP_ID})`)
    .option('--app <appId>', 'application id')
    .option('--resource-type <type>', 'resource type')
    .option('--resource-id <id>', 'resource id')
    .option('--display-name <name>', 'display name')
    .option('--json', 'print JSON')
    .action(async (opts: Opts & { namespace?: string; app?: string; resourceType?: string; resourceId?: string; displayName?: string }) => {
      const triple = [opts.app, opts.resourceType, opts.resourceId];
      if (opts.namespace !== undefined && triple.some((v) => v !== undefined))
        throw new CliError('give either --namespace or --app, --resource-type and --resource-id, not both');
      if (opts.namespace === undefined && triple.some((v) => v === undefined))
        throw new CliError('give --namespace <name> (the database service), or all of --app, --resource-type and --resource-id');
      const body: Record<string, unknown> =
        opts.namespace !== undefined
          ? { appId: DATABASE_APP_ID, resourceType: NAMESPACE_RESOURCE, resourceId: opts.namespace }
          : { appId: opts.app, resourceType: opts.resourceType, resourceId: opts.resourceId };
      if (opts.displayName !== undefined) body.displayName = opts.displayName;
      const s = await new HearthClient(opts).json<ServiceAccount>('POST', `${BASE}/service-accounts`, body);
      if (opts.json) printJson(s);
      else process.stdout.write(`Created service account ${s.sub} for ${s.appId} on ${s.resourceType}/${s.resourceId}.\n`);
    });

  serverOptions(sa.command('delete <sub>'))
    .description('delete a service account')
    .option('--yes', 'do not ask for confirmation')
    .action(async (sub: string, opts: Opts & { yes?: boolean }) => {
      if (!UUID.test(sub)) throw new CliError(`a service account is named by its sub (a UUID), got ${JSON.stringify(sub)}`);
      await confirm(opts.yes, 'service account', sub);
      await new HearthClient(opts).json('DELETE', `${BASE}/service-accounts/${enc(sub.toLowerCase())}`);
      process.stdout.write(`Deleted service account ${sub}.\n`);
    });
}
