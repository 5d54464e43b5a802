import type { Command } from 'commander';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printJson, printJsonLines, printTable } from '../../output.ts';
import { checkOutput, emit, outputOptions, requireYes } from '../linux.ts';
import { enc, LOG_COLUMNS, logRow, MAIL_BASE, type Message, type MessageContent, type Opts, printContent, printMessage, yesOption } from './shared.ts';

/** `hearth admin outgoing-mail log …`: the send log (metadata; content only by an audited read) and cancelling. */
export function registerLog(mail: Command): void {
  const log = mail.command('log').description('the send log: metadata of every message, content only by an audited read');

  serverOptions(log.command('list'))
    .description('list send-log records, newest first (metadata only, never content)')
    .option('--app <app>', "only this application (core for Hearth's own mail)")
    .option('--profile <key>', 'only this sender profile')
    .option('--status <statuses>', 'only these statuses, comma-separated: queued, sending, sent, failed, cancelled, bounced')
    .option('--since <time>', 'only records created at or after this ISO 8601 time (e.g. 2026-11-23T00:00:00Z)')
    .option('--ref <ref>', 'only this reference: scope (every id of it) or scope:id')
    .option('--recipient <text>', 'only records with a recipient containing this text (case-insensitive)')
    .option('--cursor <cursor>', 'the page after this cursor (the nextCursor of the previous page)')
    .option('--limit <n>', 'records a page, 1–100 (default 50)')
    .option('--all', 'follow the cursors and fetch every page')
    .option('--json', 'print the page as JSON ({data, nextCursor})')
    .option('--jsonl', 'print one record per line (the next cursor goes to standard error)')
    .action(
      async (
        opts: Opts & {
          app?: string;
          profile?: string;
          status?: string;
          since?: string;
          ref?: string;
          recipient?: string;
          cursor?: string;
          limit?: string;
          all?: boolean;
        },
      ) => {
        checkOutput(opts);
        const client = new HearthClient(opts);
        const filters = new URLSearchParams();
        for (const f of ['app', 'profile', 'status', 'since', 'ref', 'recipient', 'limit'] as const) if (opts[f] !== undefined) filters.set(f, opts[f]!);
        const fetchPage = (cursor: string | undefined) => {
          const q = new URLSearchParams(filters);
          if (cursor) q.set('cursor', cursor);
          return client.json<{ data: Message[]; nextCursor: string | null }>('GET', `${MAIL_BASE}/messages?${q}`);
        };
        let page = await fetchPage(opts.cursor);
        if (opts.all) {
          const data = [...page.data];
          while (page.nextCursor) {
            page = await fetchPage(page.nextCursor);
            data.push(...page.data);
          }
          page = { data, nextCursor: null };
        }
        if (opts.json) printJson(page);
        else if (opts.jsonl) printJsonLines(page.data);
        else printTable(page.data.map(logRow), LOG_COLUMNS);
        if (page.nextCursor && !opts.json) {
          const more = [...filters].map(([k, v]) => `--${k} ${/^[\w.:@,+-]+$/.test(v) ? v : JSON.stringify(v)}`);
          process.stderr.write(
            `More records: next page with \`hearth admin outgoing-mail log list ${[...more, `--cursor ${page.nextCursor}`].join(' ')}\`, or every page with --all.\n`,
          );
        }
      },
    );

  outputOptions(serverOptions(log.command('show <id>')))
    .description("show one record's metadata; --content also reads its text, HTML and custom headers (every content read is audited)")
    .option('--content', 'also read the content (audited as outgoing_mail.message.read)')
    .action(async (id: string, opts: Opts & { content?: boolean }) => {
      checkOutput(opts);
      const client = new HearthClient(opts);
      const m = await client.json<Message>('GET', `${MAIL_BASE}/messages/${enc(id)}`);
      if (!opts.content) return emit(opts, m, () => printMessage(m));
      const content = await client.json<MessageContent>('GET', `${MAIL_BASE}/messages/${enc(id)}/content`);
      emit(opts, { ...m, content }, () => {
        printMessage(m);
        printContent(content);
        process.stderr.write('This content read was recorded in the audit log (outgoing_mail.message.read).\n');
      });
    });

  yesOption(outputOptions(serverOptions(log.command('cancel [id]'))))
    .description('cancel a queued message, or with --batch the still-queued messages of a batch (sent mail stays sent; mail being sent finishes)')
    .option('--batch <batchId>', 'cancel the still-queued members of this batch instead of one message')
    .action(async (id: string | undefined, opts: Opts & { batch?: string; yes?: boolean }) => {
      checkOutput(opts);
      if ((id === undefined) === (opts.batch === undefined)) {
        throw new CliError(
          id === undefined
            ? 'give exactly one target: a message id, or --batch <batchId>'
            : 'give exactly one target: a message id or --batch <batchId>, not both',
        );
      }
      const client = new HearthClient(opts);
      if (id !== undefined) {
        requireYes(opts.yes, `cancel the message ${id}`);
        const m = await client.json<Message>('POST', `${MAIL_BASE}/messages/${enc(id)}/cancel`);
        emit(opts, m, () => process.stdout.write(`Cancelled message ${m.id} (${m.status}, ${m.cancelReason ?? 'cancelled_by_admin'}).\n`));
      } else {
        requireYes(opts.yes, `cancel the queued messages of batch ${opts.batch}`);
        const r = await client.json<{ batchId: string; cancelled: number }>('POST', `${MAIL_BASE}/batches/${enc(opts.batch!)}/cancel`);
        emit(opts, r, () =>
          process.stdout.write(
            `Cancelled ${r.cancelled} queued message${r.cancelled === 1 ? '' : 's'} of batch ${r.batchId}${r.cancelled === 0 ? ' (none was still queued)' : ''}.\n`,
          ),
        );
      }
    });
}
