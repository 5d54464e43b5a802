import type { Command } from 'commander';
import { HearthClient, serverOptions } from '../../client.ts';
import { CliError, printJson, printJsonLines, printTable } from '../../output.ts';
import { checkOutput, emit, outputOptions, requireYes } from '../linux.ts';
import {
  type BounceCheck,
  enc,
  type InputOpts,
  MAIL_BASE,
  type Opts,
  PROFILE_COLUMNS,
  type Profile,
  parseRevision,
  printBounceCheck,
  printProfile,
  profileRow,
  readCaFile,
  readProfileInput,
  yesOption,
} from './shared.ts';

/** `hearth admin outgoing-mail profiles …`: sender profiles (SMTP settings), test sends, bounce checks. */
export function registerProfiles(mail: Command): void {
  const profiles = mail.command('profiles').description('sender profiles: the SMTP settings mail goes out with');

  outputOptions(serverOptions(profiles.command('put <key>'), { caFileOption: false }))
    .description(
      'create or replace a sender profile from exactly one of --config-file, --stdin or --config (a JSON object: the whole profile). ' +
        'Replacing an existing profile needs its current revision (from `profiles get`), in the JSON or with --revision. ' +
        'Passwords (smtpPassword, imap.password) only in --config-file or --stdin; leaving one out keeps the stored one',
    )
    .option('--config-file <file>', 'read the profile (a JSON object) from this file; protect it if it holds passwords')
    .option('--stdin', 'read the profile (a JSON object) from standard input')
    .option('--config <json>', 'the profile as a JSON object (never with a password)')
    .option('--revision <n>', 'the revision being replaced (as `revision` in the JSON)')
    .option(
      '--ca-file <file>',
      'trust this CA (PEM: one or more CA certificates) for the profile\'s SMTP and IMAP connections, besides the default CAs (as `tlsCaPem` in the JSON; `"tlsCaPem": null` there clears it). Not the trust for Hearth itself: give that before the command, `hearth --ca-file <pem> admin …`, or in HEARTH_CA_FILE',
    )
    .action(async (key: string, opts: Opts & InputOpts & { revision?: string; caFile?: string }) => {
      checkOutput(opts);
      const body = await readProfileInput(key, opts);
      if (opts.caFile !== undefined) {
        if (body.tlsCaPem !== undefined) throw new CliError('give the trusted CA with --ca-file or as tlsCaPem in the profile JSON, not both');
        body.tlsCaPem = readCaFile(opts.caFile);
      }
      if (opts.revision !== undefined) {
        const revision = parseRevision(opts.revision);
        if (body.revision !== undefined && body.revision !== revision) {
          throw new CliError(`--revision ${revision} and the revision ${JSON.stringify(body.revision)} of the profile JSON differ: give one`);
        }
        body.revision = revision;
      }
      const res = await new HearthClient(opts).request('PUT', `${MAIL_BASE}/profiles/${enc(key)}`, { json: body });
      const p = (await res.json()) as Profile;
      emit(opts, p, () => {
        const what = res.status === 201 ? 'Created' : 'Replaced';
        process.stdout.write(
          `${what} sender profile ${p.key} (revision ${p.revision}${p.isDefault ? ', the default profile' : ''}; password ${p.hasPassword ? 'stored' : 'none'}; bounce collection ${p.imap ? 'on' : 'off'}${p.tlsCa ? `; trusted CA ${p.tlsCa.map((c) => c.fingerprint256).join(', ')}` : ''}).\n`,
        );
      });
    });

  serverOptions(profiles.command('list'))
    .description('list the sender profiles: default, sender, SMTP server, password stored or not, pace, revision, bounce collection')
    .option('--json', 'print a JSON array')
    .option('--jsonl', 'print one JSON object per line')
    .action(async (opts: Opts) => {
      checkOutput(opts);
      const { data } = await new HearthClient(opts).json<{ data: Profile[] }>('GET', `${MAIL_BASE}/profiles`);
      if (opts.json) printJson(data);
      else if (opts.jsonl) printJsonLines(data);
      else printTable(data.map(profileRow), PROFILE_COLUMNS);
    });

  outputOptions(serverOptions(profiles.command('get <key>')))
    .description('show one sender profile (passwords are never shown: only whether one is stored) and its revision')
    .action(async (key: string, opts: Opts) => {
      checkOutput(opts);
      const p = await new HearthClient(opts).json<Profile>('GET', `${MAIL_BASE}/profiles/${enc(key)}`);
      emit(opts, p, () => printProfile(p));
    });

  outputOptions(serverOptions(profiles.command('test <key>')))
    .description('send a short test message through the profile (not written to the send log; audited). Success proves SMTP acceptance only, not delivery')
    .requiredOption('--to <recipient>', 'the address to send the test message to')
    .action(async (key: string, opts: Opts & { to: string }) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<{ ok: true }>('POST', `${MAIL_BASE}/profiles/${enc(key)}/test`, { to: opts.to });
      emit(opts, r, () =>
        process.stdout.write(`The SMTP server accepted the test message from profile ${key} to ${opts.to} (acceptance only: check the mailbox).\n`),
      );
    });

  outputOptions(serverOptions(profiles.command('check-bounces <key>')))
    .description(
      "check the profile's bounce mailbox now (one collection pass, as the five-minute schedule runs it; a pass in progress is joined) and show what it found. " +
        'Exits 1 when the pass failed (its error code and what went wrong are shown)',
    )
    .action(async (key: string, opts: Opts) => {
      checkOutput(opts);
      const r = await new HearthClient(opts).json<BounceCheck>('POST', `${MAIL_BASE}/profiles/${enc(key)}/bounces/check`);
      emit(opts, r, () => printBounceCheck(r));
      if (r.error) process.exitCode = 1;
    });

  yesOption(outputOptions(serverOptions(profiles.command('set-default <key>'))))
    .description("make the profile the default: sends that name no profile, and Hearth's own mail, use it from now on (queued mail keeps its profile)")
    .action(async (key: string, opts: Opts & { yes?: boolean }) => {
      checkOutput(opts);
      requireYes(opts.yes, `make ${key} the default sender profile`);
      const p = await new HearthClient(opts).json<Profile>('POST', `${MAIL_BASE}/profiles/${enc(key)}/default`);
      emit(opts, p, () => process.stdout.write(`${p.key} is now the default sender profile (revision ${p.revision}).\n`));
    });

  yesOption(outputOptions(serverOptions(profiles.command('delete <key>'))))
    .description(
      'delete a sender profile: its queued mail is cancelled (profile_removed) and applications lose it. The default profile cannot be deleted while others exist',
    )
    .action(async (key: string, opts: Opts & { yes?: boolean }) => {
      checkOutput(opts);
      requireYes(opts.yes, `delete the sender profile ${key}`);
      await new HearthClient(opts).json('DELETE', `${MAIL_BASE}/profiles/${enc(key)}`);
      emit(opts, { key, deleted: true }, () =>
        process.stdout.write(`Deleted sender profile ${key}; its queued mail is cancelled (profile_removed) and no application may use it any more.\n`),
      );
    });
}
