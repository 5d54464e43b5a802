import type { Command } from 'commander';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printJson, printJsonLines, printTable } from '../../output.ts';
import { checkOutput, emit, outputOptions, requireYes } from '../linux.ts';
import { APP_COLUMNS, appRow, enc, MAIL_BASE, type MailApp, type Opts, printApp, yesOption } from './shared.ts';

/** `hearth admin outgoing-mail apps …`: applications and the sender profiles they may use. */
export function registerApps(mail: Command): void {
  const apps = mail.command('apps').description('applications and the sender profiles they may use');

  serverOptions(apps.command('list'))
    .description('list core, registered applications (and whether they declare mail:send) and stored policies of applications that are not registered')
    .option('--json', 'print a JSON array')
    .option('--jsonl', 'print one JSON object per line')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const { data } = await new HearthClient(opts).json<{ data: MailApp[] }>('GET', `${MAIL_BASE}/apps`);
      if (opts.json) printJson(data);
      else if (opts.jsonl) printJsonLines(data);
      else printTable(data.map(appRow), APP_COLUMNS);
    });

  yesOption(outputOptions(serverOptions(apps.command('set <app>'))))
    .description(
      "set an application's access policy, exactly one of --default (follow the default profile), --profiles <key,key> (an explicit set) or --none (block sending). " +
        'The application must also declare mail:send. Revoking access cancels its queued mail on the profiles it loses',
    )
    .option('--default', 'follow the default profile (no stored policy)')
    .option('--profiles <keys>', 'an explicit, comma-separated set of profile keys')
    .option('--none', 'no profile: the application cannot send')
    .action(async (app: string, opts: Opts & { default?: boolean; profiles?: string; none?: boolean; yes?: boolean }) => {
      checkOutput(opts);
      const given = [opts.default && '--default', opts.profiles !== undefined && '--profiles', opts.none && '--none'].filter(Boolean);
      if (given.length !== 1) {
        throw new CliError(
          given.length === 0
            ? 'give exactly one of --default, --profiles <key,key> or --none'
            : `give exactly one of --default, --profiles or --none (got ${given.join(' and ')})`,
        );
      }
      let policy: Record<string, unknown>;
      if (opts.profiles !== undefined) {
        const keys = [
          ...new Set(
            opts.profiles
              .split(',')
              .map((k) => k.trim())
              .filter(Boolean),
          ),
        ];
        if (keys.length === 0) throw new CliError('--profiles needs at least one profile key (use --none to block sending)');
        policy = { mode: 'profiles', profiles: keys };
      } else policy = { mode: opts.default ? 'default' : 'none' };
      requireYes(opts.yes, `change the mail access of ${app}`);
      const a = await new HearthClient(opts).json<MailApp>('PUT', `${MAIL_BASE}/apps/${enc(app)}/policy`, policy);
      emit(opts, a, () => printApp(a));
    });
}
