import type { Command } from 'commander';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printFields } from '../../output.ts';
import { checkOutput, emit, outputOptions, requireYes } from '../linux.ts';
import { MAIL_BASE, type Opts, type Retention, yesOption } from './shared.ts';

/** `hearth admin outgoing-mail retention …`: how long the send log keeps content and records. */
export function registerRetention(mail: Command): void {
  const retention = mail.command('retention').description('how long the send log keeps message content and records');

  outputOptions(serverOptions(retention.command('show')))
    .description('show both retention periods (content: text, HTML, headers; records: the whole row)')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<Retention>('GET', `${MAIL_BASE}/retention`);
      emit(opts, r, () =>
        printFields([
          ['content', `${r.contentDays} days`],
          ['records', `${r.recordDays} days`],
        ]),
      );
    });

  yesOption(outputOptions(serverOptions(retention.command('set'))))
    .description('set both retention periods together: whole days 1–36500, records at least as long as content')
    .option('--content-days <n>', 'days message content (text, HTML, custom headers) is kept (required)')
    .option('--record-days <n>', 'days the whole record is kept (required; at least --content-days)')
    .action(async (opts: Opts & { contentDays?: string; recordDays?: string; yes?: boolean }) => {
      checkOutput(opts);
      const missing = [opts.contentDays === undefined && '--content-days', opts.recordDays === undefined && '--record-days'].filter(Boolean);
      if (missing.length) throw new CliError(`retention set needs both --content-days and --record-days (missing ${missing.join(' and ')})`);
      const days = (v: string, name: string) => {
        if (!/^\d+$/.test(v.trim())) throw new CliError(`${name} must be a whole number of days (got ${JSON.stringify(v)})`);
        return Number(v.trim());
      };
      const body = { contentDays: days(opts.contentDays!, '--content-days'), recordDays: days(opts.recordDays!, '--record-days') };
      requireYes(opts.yes, 'change the send-log retention');
      const r = await new HearthClient(opts).json<Retention>('PUT', `${MAIL_BASE}/retention`, body);
      emit(opts, r, () => process.stdout.write(`Send-log retention: content ${r.contentDays} days, records ${r.recordDays} days.\n`));
    });
}
