/**
 * `hearth backup …`: backups of the whole instance (docs/operations/backups.md).
 *  - create, list, delete, download talk to the running server (`/api/admin/backups…`, admin token as every other
 *    server command): the server writes the backup into its backup folder; `create` follows the job's progress and
 *    downloads the result;
 *  - verify and restore work on a file locally, without a server: restore refuses a folder a live server has open
 *    (`<data>/hearth.pid`), and checks the backup's schema against every migration this Hearth knows.
 * A passphrase comes from standard input only (`--passphrase-stdin`, its first line), never from an argument (it would
 * show in `ps`). The engine and the server are imported when a local command runs, so the others start fast.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import type { BackupJob, BackupList } from '../../core/contract.ts';
import { type ClientOptions, HearthClient, serverOptions } from '../client.ts';
import { loadProgress, saveBody } from '../download.ts';
import { readStdin } from '../input.ts';
import { CliError, formatBytes, printJson, printTable } from '../output.ts';

type Opts = ClientOptions & { json?: boolean; quiet?: boolean };
const enc = encodeURIComponent;

/** The first line of standard input (a trailing CR/LF is not part of it). */
async function passphraseFromStdin(given: boolean | undefined): Promise<string | undefined> {
  if (!given) return undefined;
  const line = (await readStdin('Backup passphrase: ')).split(/\r?\n/)[0] ?? '';
  if (!line) throw new CliError('no passphrase on standard input');
  return line;
}

/** Engine refusals (HearthError) become CLI errors with their message; anything else is a bug and keeps its stack. */
async function engine<T>(run: () => Promise<T>): Promise<T> {
  const { HearthError } = await import('../../core/http/errors.ts');
  try {
    return await run();
  } catch (err) {
    if (err instanceof HearthError) {
      const hint =
        err.code === 'passphrase_required' ? ' (--passphrase-stdin, or --without-secrets)' : err.code === 'target_not_empty' ? ' (--force replaces it)' : '';
      throw new CliError(`${err.message}${hint} [${err.code}]`);
    }
    throw err;
  }
}

/** Follows a job until it ends: a bar on a terminal, a line per part otherwise (unless quiet). */
async function follow(client: HearthClient, first: BackupJob, quiet: boolean | undefined): Promise<BackupJob> {
  const tty = !quiet && process.stderr.isTTY;
  const cliProgress = tty ? await loadProgress() : null;
  const bar = cliProgress
    ? new cliProgress.SingleBar(
        { format: 'backup [{bar}] {value}/{total} parts | {part} | {written}', stream: process.stderr, hideCursor: true, clearOnComplete: false },
        cliProgress.Presets.shades_classic,
      )
    : null;
  bar?.start(1, 0, { part: 'starting', written: formatBytes(0) });
  let job = first;
  let shown = '';
  try {
    while (job.state === 'running') {
      await new Promise((r) => setTimeout(r, 250));
      job = await client.json<BackupJob>('GET', `/api/admin/backups/jobs/${enc(job.id)}`);
      const p = job.progress;
      if (bar) {
        bar.setTotal(Math.max(1, p.parts + 1));
        bar.update(p.step === 'finish' ? p.parts + 1 : p.index, { part: p.part, written: formatBytes(p.bytesWritten) });
      } else if (!quiet && p.part !== shown) {
        shown = p.part;
        const what = p.step === 'secrets' ? 'sealing the secrets' : p.step === 'finish' ? 'finishing' : `${p.step} ${p.part}`;
        process.stderr.write(`backup: ${what} (${Math.min(p.index + 1, p.parts)}/${p.parts}, ${formatBytes(p.bytesWritten)} written)\n`);
      }
    }
  } finally {
    bar?.stop();
  }
  return job;
}

export function registerBackup(backup: Command): void {
  serverOptions(backup.command('create'))
    .description('back up the running server into its backup folder, then download the file')
    .option('-o, --output <file>', 'where to save it (default: the backup name in the current folder; - for stdout)')
    .option(
      '--passphrase-stdin',
      'seal the secrets (keys, secrets, TLS) under the passphrase on the first line of standard input; without it they are left out',
    )
    .option('--no-download', 'leave the backup in the server folder only')
    .option('--quiet', 'no progress')
    .option('--json', 'print the finished job as JSON')
    .action(async (opts: Opts & { output?: string; passphraseStdin?: boolean; download: boolean }) => {
      const passphrase = await passphraseFromStdin(opts.passphraseStdin);
      const client = new HearthClient(opts);
      const { job: started } = await client.json<{ job: BackupJob }>('POST', '/api/admin/backups', passphrase === undefined ? {} : { passphrase });
      const job = await follow(client, started, opts.quiet);
      if (job.state === 'failed') throw new CliError(`the backup failed: ${job.error?.message ?? 'unknown error'} [${job.error?.error ?? 'backup_failed'}]`);
      const out = opts.download ? (opts.output ?? job.name) : null;
      if (out) await saveBody(await client.request('GET', `/api/admin/backups/${enc(job.name)}`), out, { what: 'download', quiet: opts.quiet, mode: 0o600 });
      if (opts.json) printJson(job);
      else {
        const where = out && out !== '-' ? `; saved to ${out}` : '';
        const secrets = job.secrets === 'encrypted' ? 'secrets sealed under the passphrase' : 'secrets left out (no passphrase)';
        process.stderr.write(`Backup ${job.name} complete (${formatBytes(job.size)}, ${secrets})${where}.\n`);
      }
    });

  serverOptions(backup.command('list'))
    .description("list the server's backups and its schedule")
    .option('--json', 'print JSON')
    .action(async (opts: Opts) => {
      const list = await new HearthClient(opts).json<BackupList>('GET', '/api/admin/backups');
      if (opts.json) return printJson(list);
      printTable(
        list.data.map((b) => ({ ...b, size: formatBytes(b.size), created: b.createdAt })),
        ['name', 'status', 'size', 'created', 'trigger', 'secrets', 'namespaces'],
      );
      const s = list.schedule;
      process.stdout.write(
        `\nfolder: ${s.dir}\nschedule: ${s.cron ?? 'none (HEARTH_BACKUP_SCHEDULE)'}${s.cron ? `, next ${s.nextRun ?? '-'}, keep ${s.keep}, secrets ${s.passphraseSet ? 'sealed' : 'left out'}` : ''}\n`,
      );
      if (s.lastError) process.stdout.write(`last scheduled run failed at ${s.lastError.at}: ${s.lastError.message}\n`);
      if (list.running) process.stdout.write(`running: ${list.running.name} (${list.running.progress.part})\n`);
    });

  serverOptions(backup.command('delete <name>'))
    .description('delete a backup from the server folder')
    .action(async (name: string, opts: Opts) => {
      await new HearthClient(opts).json('DELETE', `/api/admin/backups/${enc(name)}`);
      process.stdout.write(`Deleted ${name}.\n`);
    });

  serverOptions(backup.command('download <name>'))
    .description('download a backup from the server folder')
    .option('-o, --output <file>', 'where to save it (default: its name in the current folder; - for stdout)')
    .option('--quiet', 'no progress bar')
    .action(async (name: string, opts: Opts & { output?: string }) => {
      const out = opts.output ?? name;
      await saveBody(await new HearthClient(opts).request('GET', `/api/admin/backups/${enc(name)}`), out, { what: 'download', quiet: opts.quiet, mode: 0o600 });
      if (out !== '-') process.stderr.write(`Saved ${name} to ${out} (${formatBytes(fs.statSync(out).size)}).\n`);
    });

  backup
    .command('verify <file>')
    .description('check a backup file: its manifest, every checksum, every database (integrity_check) and, with the passphrase, the secrets')
    .option('--passphrase-stdin', 'also open the secrets with the passphrase on the first line of standard input')
    .option('--json', 'print the report as JSON')
    .action(async (file: string, opts: { passphraseStdin?: boolean; json?: boolean }) => {
      const passphrase = await passphraseFromStdin(opts.passphraseStdin);
      const { verifyBackup } = await import('../../core/backup/index.ts');
      const report = await engine(() => verifyBackup(file, { passphrase }));
      if (opts.json) printJson({ ok: report.ok, problems: report.problems, secrets: report.secrets, checked: report.checked });
      else {
        for (const p of report.problems) process.stdout.write(`problem: ${p}\n`);
        const m = report.manifest;
        const what = `${report.checked.entries} entries, ${report.checked.sqlite} databases, ${formatBytes(report.checked.bytes)}; secrets ${report.secrets}`;
        process.stdout.write(
          report.ok
            ? `${file}: ok (${what}; made by Hearth ${m?.hearthVersion} at ${m?.createdAt})\n`
            : `${file}: NOT OK, ${report.problems.length} problem(s) (${what})\n`,
        );
      }
      if (!report.ok) process.exitCode = 1;
    });

  backup
    .command('restore <file>')
    .description('restore a backup into an empty data folder (no server may run on it); then start it with `hearth serve --data <folder>`')
    .requiredOption('--data <folder>', 'the data folder to restore into (missing or empty, unless --force)')
    .option('--force', "replace a non-empty folder's contents (they are deleted once the restore is complete)")
    .option('--passphrase-stdin', "the backup's passphrase on the first line of standard input (restores the secrets)")
    .option('--without-secrets', 'restore a backup with encrypted secrets without them (they are then missing)')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, opts: { data: string; force?: boolean; passphraseStdin?: boolean; withoutSecrets?: boolean; json?: boolean }) => {
      const dataDir = path.resolve(opts.data);
      const source = path.resolve(file);
      if (!fs.existsSync(source)) throw new CliError(`no backup file at ${file}`);
      if (source.startsWith(dataDir + path.sep))
        throw new CliError(`${file} is inside ${opts.data}, which the restore replaces: copy it out of the data folder first`);
      const { runningServerPid, PID_FILE } = await import('../../core/storage/server-pid.ts');
      const pid = runningServerPid(dataDir);
      if (pid !== null) {
        throw new CliError(
          `a Hearth server (process ${pid}) is running on ${opts.data}: stop it first (if no server runs there, remove ${path.join(opts.data, PID_FILE)})`,
        );
      }
      const passphrase = await passphraseFromStdin(opts.passphraseStdin);
      const [{ restoreBackup }, { allMigrations }] = await Promise.all([import('../../core/backup/index.ts'), import('../../boot.ts')]);
      const r = await engine(() =>
        restoreBackup(source, {
          dataDir,
          knownMigrations: allMigrations.map((m) => m.id),
          force: opts.force,
          passphrase,
          withoutSecrets: opts.withoutSecrets,
        }),
      );
      const namespaces = r.manifest.entries.filter((e) => e.kind === 'sqlite' && e.name.startsWith('namespaces/'));
      const attachments = r.manifest.entries.filter((e) => e.name.startsWith('mail-attachments/')).length;
      const kekStored = r.manifest.secretFiles.includes('secrets/identity-kek');
      const kek = !r.kekFingerprint
        ? null
        : kekStored && r.secrets === 'restored'
          ? `the keys are sealed under the KEK with fingerprint ${r.kekFingerprint}, which the backup held (secrets/identity-kek): nothing to set`
          : `the keys need the KEK with fingerprint ${r.kekFingerprint}: start the server with HEARTH_IDENTITY_KEY_ENCRYPTION_KEY set to that KEK`;
      if (opts.json) {
        printJson({
          dataDir: r.dataDir,
          hearthVersion: r.manifest.hearthVersion,
          createdAt: r.manifest.createdAt,
          namespaces: namespaces.map((e) => e.meta?.namespace ?? e.name),
          attachments,
          secrets: r.secrets,
          missing: r.missing,
          kekFingerprint: r.kekFingerprint,
          warnings: r.warnings,
          replaced: r.replaced,
        });
        return;
      }
      const lines = [
        `Restored ${file} (Hearth ${r.manifest.hearthVersion}, ${r.manifest.createdAt}) into ${r.dataDir}${r.replaced ? ', replacing its contents' : ''}:`,
        '  platform.db (accounts, keys, clients, tokens, mail profiles and queue, namespace registry)',
        `  ${namespaces.length} namespace(s)${namespaces.length ? `: ${namespaces.map((e) => e.meta?.namespace ?? e.name).join(', ')}` : ''}`,
        `  ${attachments} mail attachment(s) of queued mail`,
        `  secrets: ${r.secrets}${r.missing.length ? ` (missing: ${r.missing.join(', ')})` : ''}`,
        ...r.warnings.map((w) => `warning: ${w}`),
        ...(kek ? [kek] : []),
        `Start it with: hearth serve --data ${opts.data}`,
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });
}
