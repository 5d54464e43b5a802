import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';
import { tempDir } from '../../helpers/server.ts';
import { dsnReport, startDovecot } from '../mail/dovecot.ts';
import { audit, CLOSED_PORT, call, M, type MailServer, registerApp, startMailServer, waitMessage } from '../mail/helpers.ts';
import { type Peer, selfSigned, startPeer } from '../mail/peer.ts';
import { makeTestCa } from '../mail/test-ca.ts';

/**
 * Each test spawns the CLI many times. A command that talks to the server loads no server code and reuses Node's
 * compile cache (bin/hearth.mjs), about 0.15 s of CPU each; the limit only guards against a hang on a busy machine
 * (the waits themselves are for states: the CLI's exit, a message's status, mail at the peer).
 */
const SLOW = 120_000;
const P = `${M}/profiles`;
const SECRET = 'Sup3r-secret-SMTP-pa55';

let cwd: string;
let emptyConfig: string;
/** `hearth <args>` with an empty config folder: no `hearth login` of the developer running the tests can interfere. */
const hearth = (args: string[], opts: { input?: string; env?: Record<string, string> } = {}) =>
  runCli(args, { cwd, env: { HEARTH_CONFIG_DIR: emptyConfig, ...opts.env }, input: opts.input });
const mail = (...args: string[]) => ['admin', 'outgoing-mail', ...args];

let s: MailServer;
let peer: Peer;
let conn: string[];
beforeAll(async () => {
  cwd = tempDir('hearth-cli-cwd-');
  emptyConfig = tempDir('hearth-cli-config-');
  peer = await startPeer();
  s = await startMailServer();
  conn = ['--url', s.url, '--token', s.token];
});
afterAll(async () => {
  await s.stop();
  await peer.close();
  for (const d of [cwd, emptyConfig]) fs.rmSync(d, { recursive: true, force: true });
});

async function api<T = Record<string, any>>(pathname: string, method = 'GET', json?: unknown): Promise<{ status: number; json: T }> {
  const res = await s.api(pathname, { method, json });
  const text = await res.text();
  return { status: res.status, json: (text ? JSON.parse(text) : null) as T };
}
// Audit rows counted in the core store the server used (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres).
const auditCount = async (action: string) => (await s.services.store.value<number>('SELECT count(*) AS n FROM audit_log WHERE action = ?', [action])) ?? 0;
const profiles = async () => (await call<{ data: Array<Record<string, any>> }>(s, 'GET', P)).data;
const ok = (r: { code: number; stdout: string; stderr: string }, what = '') => {
  expect(r.stderr, what).toBe('');
  expect(r.code, what).toBe(0);
  return r;
};

const MAIN = () => ({ name: 'Main', fromAddress: 'noreply@example.test', smtpHost: '127.0.0.1', smtpPort: peer.port, smtpSecure: false });
const STUCK = { name: 'Stuck', fromAddress: 'stuck@example.test', smtpHost: '127.0.0.1', smtpPort: CLOSED_PORT, smtpSecure: false };

describe('hearth admin outgoing-mail profiles put', () => {
  it(
    'refuses without exactly one input, a password in --config, invalid JSON and another key, before reaching the server',
    async () => {
      const file = path.join(cwd, 'main.json');
      fs.writeFileSync(file, JSON.stringify(MAIN()));
      const refusals: Array<[string[], RegExp, string?]> = [
        [[], /^hearth: give the profile with exactly one of --config-file <file>, --stdin or --config <json>\n$/],
        [['--config-file', file, '--config', JSON.stringify(MAIN())], /\(got --config-file and --config\)\n$/],
        [['--config', JSON.stringify(MAIN()), '--stdin'], /\(got --config and --stdin\)\n$/, JSON.stringify(MAIN())],
        // inline passwords, whatever their value, and also inside invalid JSON or spelled with an escape
        [
          ['--config', JSON.stringify({ ...MAIN(), smtpPassword: SECRET })],
          /^hearth: --config never carries passwords: remove smtpPassword and imap\.password .*--config-file <file> or --stdin/,
        ],
        [['--config', JSON.stringify({ ...MAIN(), smtpPassword: null })], /--config never carries passwords/],
        [
          [
            '--config',
            JSON.stringify({ ...MAIN(), imap: { host: 'imap.example.test', port: 993, secure: true, user: 'b', folder: 'INBOX', password: SECRET } }),
          ],
          /--config never carries passwords/,
        ],
        [['--config', `{"smtpPassword": "${SECRET}", oops`], /--config never carries passwords/],
        [['--config', `{"smtp\\u0050assword": "${SECRET}"}`], /--config never carries passwords/],
        [['--config', JSON.stringify({ ...MAIN(), password: SECRET })], /--config never carries passwords/],
        [['--config-file', path.join(cwd, 'missing.json')], /cannot read .*missing\.json: ENOENT/],
        [['--stdin'], /^hearth: standard input is not valid JSON\n$/, `{"smtpPassword": "${SECRET}" oops`],
        [['--config', '[]'], /must hold a JSON object/],
        [['--config', JSON.stringify({ ...MAIN(), key: 'other' })], /is the profile "other", not "main"/],
        [['--config', JSON.stringify(MAIN()), '--revision', 'x'], /--revision must be a whole number/],
      ];
      for (const [args, message, input] of refusals) {
        const r = await hearth(mail('profiles', 'put', 'main', ...args, ...conn), { input });
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(message);
        expect(r.stderr, 'never echoes a password').not.toContain(SECRET);
        expect(r.stdout).toBe('');
      }
      expect(await profiles()).toEqual([]);
      expect(await auditCount('outgoing_mail.profile.create')).toBe(0);
    },
    SLOW,
  );

  it(
    'creates and replaces from --config, --config-file and --stdin, using the revision the way the API does',
    async () => {
      // --config creates (the first profile becomes the default)
      const a = ok(await hearth(mail('profiles', 'put', 'main', '--config', JSON.stringify(MAIN()), ...conn)));
      expect(a.stdout).toBe('Created sender profile main (revision 1, the default profile; password none; bounce collection off).\n');
      let main = await call(s, 'GET', `${P}/main`);
      expect(main).toMatchObject({ ...MAIN(), isDefault: true, revision: 1, hasPassword: false });

      // again without a revision: the server's profile_exists
      const exists = await hearth(mail('profiles', 'put', 'main', '--config', JSON.stringify(MAIN()), ...conn));
      expect(exists.code).toBe(1);
      expect(exists.stderr).toMatch(/^hearth: .*\(profile_exists, HTTP 409\)\n$/);

      // --config-file may carry the password; the revision comes from the file
      const file = path.join(cwd, 'main-with-password.json');
      fs.writeFileSync(file, JSON.stringify({ ...MAIN(), name: 'Main mail', smtpUser: 'mailer', smtpPassword: SECRET, revision: 1 }));
      const b = ok(await hearth(mail('profiles', 'put', 'main', '--config-file', file, '--json', ...conn)));
      expect(JSON.parse(b.stdout)).toMatchObject({ key: 'main', name: 'Main mail', smtpUser: 'mailer', hasPassword: true, revision: 2 });
      expect(b.stdout).not.toContain(SECRET);
      main = await call(s, 'GET', `${P}/main`);
      expect(main).toMatchObject({ name: 'Main mail', smtpUser: 'mailer', hasPassword: true, revision: 2 });

      // a stale revision: the server's revision_conflict, nothing changes
      const stale = await hearth(mail('profiles', 'put', 'main', '--config', JSON.stringify({ ...MAIN(), revision: 1 }), ...conn));
      expect(stale.code).toBe(1);
      expect(stale.stderr).toMatch(/^hearth: .*\(revision_conflict, HTTP 409\)\n$/);
      expect((await hearth(mail('profiles', 'put', 'main', '--config', JSON.stringify(MAIN()), '--revision', '1', ...conn))).stderr).toMatch(
        /\(revision_conflict, HTTP 409\)/,
      );
      expect((await call(s, 'GET', `${P}/main`)).revision).toBe(2);

      // --stdin with --revision; the output of `profiles get --json` is accepted as it is (read-only fields dropped),
      // and leaving the password out keeps it
      const got = JSON.parse(ok(await hearth(mail('profiles', 'get', 'main', '--json', ...conn))).stdout);
      const c = ok(await hearth(mail('profiles', 'put', 'main', '--stdin', ...conn), { input: JSON.stringify({ ...got, pacePerMinute: 120 }) }));
      expect(c.stdout).toBe('Replaced sender profile main (revision 3, the default profile; password stored; bounce collection off).\n');
      const d = ok(
        await hearth(mail('profiles', 'put', 'main', '--stdin', '--revision', '3', ...conn), {
          input: JSON.stringify({ ...MAIN(), smtpUser: 'mailer', pacePerMinute: 90 }),
        }),
      );
      expect(d.stdout).toMatch(/^Replaced sender profile main \(revision 4/);
      expect(await call(s, 'GET', `${P}/main`)).toMatchObject({ pacePerMinute: 90, hasPassword: true, revision: 4 });
      // --revision and a different revision in the JSON
      expect(
        (await hearth(mail('profiles', 'put', 'main', '--config', JSON.stringify({ ...MAIN(), revision: 4 }), '--revision', '3', ...conn))).stderr,
      ).toMatch(/--revision 3 and the revision 4 of the profile JSON differ/);

      // --stdin may clear the password (null)
      ok(await hearth(mail('profiles', 'put', 'main', '--stdin', '--revision', '4', ...conn), { input: JSON.stringify({ ...MAIN(), smtpPassword: null }) }));
      expect(await call(s, 'GET', `${P}/main`)).toMatchObject({ hasPassword: false, smtpUser: null, revision: 5 });
      // put it back for the rest of the tests (the peer ignores AUTH when not configured)
      const restore = path.join(cwd, 'main-restore.json');
      fs.writeFileSync(restore, JSON.stringify({ ...MAIN(), name: 'Main mail', smtpUser: 'mailer', smtpPassword: SECRET }));
      ok(await hearth(mail('profiles', 'put', 'main', '--config-file', restore, '--revision', '5', ...conn)));
      expect(await call(s, 'GET', `${P}/main`)).toMatchObject({ hasPassword: true, smtpUser: 'mailer', revision: 6 });
    },
    SLOW,
  );
});

describe('hearth admin outgoing-mail profiles', () => {
  it(
    'list and get show the profiles and never a password',
    async () => {
      // a profile with IMAP bounce collection (its password through a file)
      const file = path.join(cwd, 'stuck.json');
      fs.writeFileSync(
        file,
        JSON.stringify({ ...STUCK, imap: { host: 'imap.example.test', port: 993, secure: true, user: 'bounces', folder: 'INBOX', password: SECRET } }),
      );
      ok(await hearth(mail('profiles', 'put', 'stuck', '--config-file', file, ...conn)));
      expect(await call(s, 'GET', `${P}/stuck`)).toMatchObject({ isDefault: false, imap: { host: 'imap.example.test', folder: 'INBOX', hasPassword: true } });

      const json = ok(await hearth(mail('profiles', 'list', '--json', ...conn)));
      const list = JSON.parse(json.stdout) as Array<Record<string, any>>;
      expect(list.map((p) => p.key)).toEqual(['main', 'stuck']);
      expect(list).toEqual(await profiles());
      const jsonl = ok(await hearth(mail('profiles', 'list', '--jsonl', ...conn)));
      expect(
        jsonl.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l)),
      ).toEqual(list);
      const table = ok(await hearth(mail('profiles', 'list', ...conn)));
      expect(table.stdout).toMatch(/^KEY\s+DEFAULT\s+NAME\s+FROM\s+SMTP\s+PASSWORD\s+PACE\s+REVISION\s+BOUNCES$/m);
      expect(table.stdout).toMatch(/^main\s+yes\s+Main mail\s+noreply@example\.test\s+127\.0\.0\.1:\d+\s+stored\s+\d+\/min\s+6\s+off$/m);
      expect(table.stdout).toMatch(
        /^stuck\s+Stuck\s+stuck@example\.test\s+127\.0\.0\.1:9\s+none\s+60\/min\s+1\s+imap\.example\.test\/INBOX, not checked yet$/m,
      );

      const get = ok(await hearth(mail('profiles', 'get', 'stuck', '--json', ...conn)));
      expect(JSON.parse(get.stdout)).toEqual(await call(s, 'GET', `${P}/stuck`));
      const human = ok(await hearth(mail('profiles', 'get', 'stuck', ...conn)));
      expect(human.stdout).toMatch(/^imap:\s+imap\.example\.test:993 \(TLS\)$/m);
      expect(human.stdout).toMatch(/^imap password:\s+stored$/m);
      expect(human.stdout).toMatch(/^last check:\s+not yet$/m);
      expect(human.stdout).toMatch(/^default:\s+no$/m);
      for (const out of [json.stdout, jsonl.stdout, table.stdout, get.stdout, human.stdout]) {
        expect(out).not.toContain(SECRET);
        expect(out).not.toMatch(/"(smtpPassword|password)"/);
      }
      const unknown = await hearth(mail('profiles', 'get', 'nope', ...conn));
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^hearth: .*\(profile_unknown, HTTP 404\)\n$/);
    },
    SLOW,
  );

  it(
    'put --ca-file sets the trusted CA; get shows its subject and fingerprint, never the PEM',
    async () => {
      const ca = makeTestCa('CLI Test CA');
      const caFile = path.join(cwd, 'office-ca.pem');
      fs.writeFileSync(caFile, ca.caPem);
      const created = ok(
        await hearth(mail('profiles', 'put', 'office', '--config', JSON.stringify({ ...MAIN(), name: 'Office' }), '--ca-file', caFile, ...conn)),
      );
      expect(created.stdout).toBe(`Created sender profile office (revision 1; password none; bounce collection off; trusted CA ${ca.caFingerprint}).\n`);
      const stored = await call(s, 'GET', `${P}/office`);
      expect(stored.tlsCa).toEqual([expect.objectContaining({ subject: 'O=Hearth Tests, CN=CLI Test CA', fingerprint256: ca.caFingerprint })]);

      const human = ok(await hearth(mail('profiles', 'get', 'office', ...conn)));
      expect(human.stdout).toMatch(new RegExp(`^trusted ca:\\s+O=Hearth Tests, CN=CLI Test CA \\(SHA-256 ${ca.caFingerprint}, valid until \\S+\\)$`, 'm'));
      const json = ok(await hearth(mail('profiles', 'get', 'office', '--json', ...conn)));
      for (const out of [created.stdout, human.stdout, json.stdout]) expect(out).not.toContain('BEGIN CERTIFICATE');
      expect(ok(await hearth(mail('profiles', 'get', 'main', ...conn))).stdout).toMatch(/^trusted ca:\s+none \(Node's default CAs\)$/m);

      // the output of get --json put back keeps the CA (tlsCa is read-only; tlsCaPem left out keeps it)
      ok(await hearth(mail('profiles', 'put', 'office', '--stdin', ...conn), { input: json.stdout }));
      expect((await call(s, 'GET', `${P}/office`)).tlsCa[0].fingerprint256).toBe(ca.caFingerprint);

      const refusals: Array<[string[], RegExp]> = [
        [['--ca-file', path.join(cwd, 'missing.pem')], /^hearth: cannot read .*missing\.pem: ENOENT\n$/],
        [
          ['--ca-file', caFile, '--config', JSON.stringify({ ...MAIN(), name: 'Office', tlsCaPem: ca.caPem })],
          /^hearth: give the trusted CA with --ca-file or as tlsCaPem in the profile JSON, not both\n$/,
        ],
      ];
      for (const [args, message] of refusals) {
        const r = await hearth(
          mail(
            'profiles',
            'put',
            'office',
            '--revision',
            '2',
            ...(args.includes('--config') ? [] : ['--config', JSON.stringify({ ...MAIN(), name: 'Office' })]),
            ...args,
            ...conn,
          ),
        );
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(message);
      }
      const keyFile = path.join(cwd, 'office-ca.key');
      fs.writeFileSync(keyFile, ca.caKeyPem);
      const key = await hearth(
        mail('profiles', 'put', 'office', '--config', JSON.stringify({ ...MAIN(), name: 'Office' }), '--revision', '2', '--ca-file', keyFile, ...conn),
      );
      expect(key.code).toBe(1);
      expect(key.stderr).toMatch(/^hearth: .*tlsCaPem: tlsCaPem holds a private key .*\(invalid_request, HTTP 400\)\n$/);
      expect(key.stderr).not.toMatch(/BEGIN|MII/);
      expect((await call(s, 'GET', `${P}/office`)).revision).toBe(2);

      ok(await hearth(mail('profiles', 'delete', 'office', '--yes', ...conn)));
    },
    SLOW,
  );

  it(
    'check-bounces runs a bounce-collection pass now against the mailbox and shows what it found',
    async () => {
      const dove = await startDovecot();
      try {
        // the server trusts dovecot's certificate through the profile's CA
        const box = { host: '127.0.0.1', port: dove.imapsPort, secure: true, user: dove.user, folder: 'INBOX' };
        const file = path.join(cwd, 'bounced.json');
        fs.writeFileSync(file, JSON.stringify({ ...MAIN(), name: 'Bounces', imap: { ...box, password: dove.pass }, tlsCaPem: selfSigned().cert }));
        ok(await hearth(mail('profiles', 'put', 'bounced', '--config-file', file, ...conn)));
        const sent = await s.mail.sendAsCore({ to: ['gone@example.test'], subject: 'Will bounce', text: 'x' });
        await waitMessage(s, sent.id, (m) => m.status === 'sent');
        await dove.append(
          'INBOX',
          dsnReport({ messageId: sent.messageId, recipients: [{ final: 'rfc822; gone@example.test', action: 'failed', diag: 'smtp; 550 5.1.1 gone' }] }),
        );
        await dove.append('INBOX', 'Subject: not a report\r\n\r\nhello\r\n');

        const r = ok(await hearth(mail('profiles', 'check-bounces', 'bounced', ...conn)));
        expect(r.stdout).toBe(
          'Checked the bounce mailbox of profile bounced: 2 messages, 1 delivery report, 1 matched, 1 recipient recorded as bounced, 0 skipped.\n',
        );
        expect(await call(s, 'GET', `${M}/messages/${sent.id}`)).toMatchObject({
          status: 'bounced',
          failures: [{ recipient: 'gone@example.test', reason: 'smtp; 550 5.1.1 gone', kind: 'bounced' }],
        });
        const json = ok(await hearth(mail('profiles', 'check-bounces', 'bounced', '--json', ...conn)));
        expect(JSON.parse(json.stdout)).toEqual({
          profile: 'bounced',
          joined: false,
          checkedAt: expect.any(String),
          error: null,
          detail: null,
          messages: 0,
          reports: 0,
          matched: 0,
          recorded: 0,
          skipped: 0,
          more: false,
        });
        expect(await auditCount('outgoing_mail.profile.bounce_check')).toBe(2);
        expect(ok(await hearth(mail('profiles', 'get', 'bounced', ...conn))).stdout).toMatch(/^check error:\s+none$/m);

        // a failed pass: exit 1 with the error code and what went wrong
        const p = await call(s, 'GET', `${P}/bounced`);
        fs.writeFileSync(file, JSON.stringify({ ...MAIN(), name: 'Bounces', imap: { ...box, password: 'wrong' }, revision: p.revision }));
        ok(await hearth(mail('profiles', 'put', 'bounced', '--config-file', file, ...conn)));
        const failed = await hearth(mail('profiles', 'check-bounces', 'bounced', ...conn));
        expect(failed.code).toBe(1);
        expect(failed.stdout).toMatch(
          /^Bounce check failed of profile bounced: 0 messages, 0 delivery reports, 0 matched, 0 recipients recorded as bounced, 0 skipped\.\nError: open_failed — Command failed: Authentication failed\.\n$/,
        );
        expect(failed.stdout).not.toContain('wrong');

        // a profile without bounce collection, an unknown one
        fs.writeFileSync(file, JSON.stringify({ ...MAIN(), name: 'Bounces', imap: null, revision: p.revision + 1 }));
        ok(await hearth(mail('profiles', 'put', 'bounced', '--config-file', file, ...conn)));
        const off = await hearth(mail('profiles', 'check-bounces', 'bounced', ...conn));
        expect(off.code).toBe(1);
        expect(off.stderr).toMatch(/^hearth: profile "bounced" has no bounce collection \(imap\).*\(bounce_collection_off, HTTP 409\)\n$/);
        expect((await hearth(mail('profiles', 'check-bounces', 'nope', ...conn))).stderr).toMatch(/\(profile_unknown, HTTP 404\)\n$/);
        ok(await hearth(mail('profiles', 'delete', 'bounced', '--yes', ...conn)));
      } finally {
        await dove.stop();
      }
    },
    SLOW,
  );

  it(
    'test sends through the profile: mail arrives at the peer; a refusal shows smtp_failed',
    async () => {
      const before = peer.received.length;
      const r = ok(await hearth(mail('profiles', 'test', 'main', '--to', 'admin@example.test', ...conn)));
      expect(r.stdout).toMatch(/^The SMTP server accepted the test message from profile main to admin@example\.test/);
      const got = await peer.waitFor(before + 1);
      expect(got[before]!.to).toEqual(['admin@example.test']);
      expect(got[before]!.from).toBe('noreply@example.test');
      const json = ok(await hearth(mail('profiles', 'test', 'main', '--to', 'admin@example.test', '--json', ...conn)));
      expect(JSON.parse(json.stdout)).toEqual({ ok: true });
      await peer.waitFor(before + 2);

      const failed = await hearth(mail('profiles', 'test', 'stuck', '--to', 'admin@example.test', ...conn));
      expect(failed.code).toBe(1);
      expect(failed.stderr).toMatch(/^hearth: Nothing is listening on 127\.0\.0\.1:\d+: .*\(smtp_failed, HTTP 502\)\nServer answer: .*ECONNREFUSED.*\n$/);
      expect((await hearth(mail('profiles', 'test', 'main', ...conn))).stderr).toMatch(/required option '--to <recipient>'/);
    },
    SLOW,
  );

  it(
    "set-default and delete need --yes; deleting the default is refused with the server's message",
    async () => {
      expect((await hearth(mail('profiles', 'set-default', 'stuck', ...conn))).stderr).toBe(
        "hearth: refusing to make stuck the default sender profile without --yes (it changes the server's data)\n",
      );
      expect((await hearth(mail('profiles', 'delete', 'stuck', ...conn))).stderr).toMatch(/^hearth: refusing to delete the sender profile stuck without --yes/);
      expect((await call(s, 'GET', `${P}/main`)).isDefault).toBe(true);

      const set = ok(await hearth(mail('profiles', 'set-default', 'stuck', '--yes', ...conn)));
      expect(set.stdout).toMatch(/^stuck is now the default sender profile \(revision \d+\)\.\n$/);
      expect((await call(s, 'GET', `${P}/stuck`)).isDefault).toBe(true);
      expect((await call(s, 'GET', `${P}/main`)).isDefault).toBe(false);

      // the server refuses; its own message comes through with the code
      const refused = await hearth(mail('profiles', 'delete', 'stuck', '--yes', ...conn));
      const fromApi = await api<{ error: string; message: string }>(`${P}/stuck`, 'DELETE');
      expect(fromApi.status).toBe(409);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toBe(`hearth: ${fromApi.json.message} (profile_is_default, HTTP 409)\n`);
      expect(fromApi.json.error).toBe('profile_is_default');

      const back = ok(await hearth(mail('profiles', 'set-default', 'main', '--yes', '--json', ...conn)));
      expect(JSON.parse(back.stdout)).toMatchObject({ key: 'main', isDefault: true });

      // a profile that is not the default can be deleted
      ok(await hearth(mail('profiles', 'put', 'spare', '--config', JSON.stringify({ ...MAIN(), name: 'Spare' }), ...conn)));
      const del = ok(await hearth(mail('profiles', 'delete', 'spare', '--yes', ...conn)));
      expect(del.stdout).toMatch(/^Deleted sender profile spare/);
      expect((await api(`${P}/spare`)).status).toBe(404);
      expect((await profiles()).map((p) => p.key)).toEqual(['main', 'stuck']);
    },
    SLOW,
  );
});

let appToken: string;
describe('hearth admin outgoing-mail apps', () => {
  it(
    'set takes exactly one mode with --yes; list shows the policies',
    async () => {
      appToken = await registerApp(s, 'crm');
      const refusals: Array<[string[], RegExp]> = [
        [['--yes'], /^hearth: give exactly one of --default, --profiles <key,key> or --none\n$/],
        [['--default', '--none', '--yes'], /\(got --default and --none\)/],
        [['--profiles', 'main', '--none', '--yes'], /\(got --profiles and --none\)/],
        [['--profiles', ' , ', '--yes'], /--profiles needs at least one profile key/],
        [['--profiles', 'main,stuck'], /^hearth: refusing to change the mail access of crm without --yes/],
      ];
      for (const [args, message] of refusals) {
        const r = await hearth(mail('apps', 'set', 'crm', ...args, ...conn));
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(message);
      }
      const unknown = await hearth(mail('apps', 'set', 'crm', '--profiles', 'main,nope', '--yes', ...conn));
      expect(unknown.stderr).toMatch(/nope.*\(profile_unknown, HTTP 404\)\n$/);
      const core = await hearth(mail('apps', 'set', 'core', '--none', '--yes', ...conn));
      expect(core.stderr).toMatch(/\(core_policy_fixed, HTTP 409\)\n$/);
      expect((await call(s, 'GET', `${M}/apps/crm`)).policy).toEqual({ mode: 'default', profiles: ['main'] });

      const set = ok(await hearth(mail('apps', 'set', 'crm', '--profiles', 'main,stuck', '--yes', '--json', ...conn)));
      expect(JSON.parse(set.stdout)).toMatchObject({ appId: 'crm', policy: { mode: 'profiles', profiles: ['main', 'stuck'] } });
      expect((await call(s, 'GET', `${M}/apps/crm`)).policy).toEqual({ mode: 'profiles', profiles: ['main', 'stuck'] });

      // a stored policy of an application that is not registered
      ok(await hearth(mail('apps', 'set', 'offline-app', '--none', '--yes', ...conn)));
      expect(await call(s, 'GET', `${M}/apps/offline-app`)).toMatchObject({ registered: false, policy: { mode: 'none', profiles: [] } });

      const list = ok(await hearth(mail('apps', 'list', '--json', ...conn)));
      expect(JSON.parse(list.stdout)).toEqual((await call(s, 'GET', `${M}/apps`)).data);
      const table = ok(await hearth(mail('apps', 'list', ...conn)));
      expect(table.stdout).toMatch(/^APP\s+NAME\s+REGISTERED\s+MAIL:SEND\s+POLICY\s+PROFILES$/m);
      expect(table.stdout).toMatch(/^core \(fixed\)\s+.*default profile\s+main$/m);
      expect(table.stdout).toMatch(/^crm\s+CRM\s+yes\s+yes\s+explicit profiles\s+main,stuck$/m);
      expect(table.stdout).toMatch(/^offline-app\s+-\s+no\s+-\s+none \(blocked\)\s+-$/m);
      const lines = ok(await hearth(mail('apps', 'list', '--jsonl', ...conn)))
        .stdout.trim()
        .split('\n');
      expect(lines.map((l) => JSON.parse(l).appId)).toEqual(expect.arrayContaining(['core', 'crm', 'offline-app']));

      ok(await hearth(mail('apps', 'set', 'offline-app', '--default', '--yes', ...conn)));
      expect((await api(`${M}/apps/offline-app`)).status).toBe(404); // following the default stores no policy
    },
    SLOW,
  );
});

const send = async (body: Record<string, unknown>) => {
  const r = await fetch(`${s.url}/api/mail/send`, {
    method: 'POST',
    headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(r.status, await r.clone().text()).toBe(202);
  return (await r.json()) as { id: string; messageId: string };
};

describe('hearth admin outgoing-mail log', () => {
  let sentId: string;
  it(
    'list and show the send log; --content reads the content and is audited',
    async () => {
      const before = peer.received.length;
      const a = await send({
        to: ['alice@example.test'],
        subject: 'Invoice 1',
        text: 'Hello Alice',
        headers: { 'X-Invoice': '1' },
        ref: 'invoice:1',
        profile: 'main',
      });
      const b = await send({ to: ['bob@example.test'], subject: 'Invoice 2', text: 'Hello Bob', ref: 'invoice:2' });
      await waitMessage(s, a.id, (m) => m.status === 'sent');
      await waitMessage(s, b.id, (m) => m.status === 'sent');
      await peer.waitFor(before + 2);
      sentId = a.id;

      const json = ok(await hearth(mail('log', 'list', '--app', 'crm', '--json', ...conn)));
      const page = JSON.parse(json.stdout);
      expect(page).toEqual(await call(s, 'GET', `${M}/messages?app=crm`));
      expect(page.data.map((m: any) => m.id)).toEqual([b.id, a.id]);
      expect(page.nextCursor).toBeNull();

      // filters reach the server
      const filtered = JSON.parse(
        ok(
          await hearth(
            mail(
              'log',
              'list',
              '--recipient',
              'ALICE',
              '--status',
              'sent,failed',
              '--ref',
              'invoice',
              '--profile',
              'main',
              '--since',
              '2000-01-01T00:00:00Z',
              '--json',
              ...conn,
            ),
          ),
        ).stdout,
      );
      expect(filtered.data.map((m: any) => m.id)).toEqual([a.id]);

      // pages: --limit 1 gives a cursor (and a hint on stderr); --cursor continues; --all follows
      const first = await hearth(mail('log', 'list', '--app', 'crm', '--limit', '1', '--jsonl', ...conn));
      expect(first.code).toBe(0);
      expect(JSON.parse(first.stdout).id).toBe(b.id);
      const cursor = /--cursor (\S+)`/.exec(first.stderr)?.[1];
      expect(first.stderr).toMatch(
        /^More records: next page with `hearth admin outgoing-mail log list --app crm --limit 1 --cursor \S+`, or every page with --all\.\n$/,
      );
      const second = JSON.parse(ok(await hearth(mail('log', 'list', '--app', 'crm', '--limit', '1', '--cursor', cursor!, '--json', ...conn))).stdout);
      expect(second.data.map((m: any) => m.id)).toEqual([a.id]);
      const all = ok(await hearth(mail('log', 'list', '--app', 'crm', '--limit', '1', '--all', '--jsonl', ...conn)));
      expect(
        all.stdout
          .trim()
          .split('\n')
          .map((l) => JSON.parse(l).id),
      ).toEqual([b.id, a.id]);
      const table = ok(await hearth(mail('log', 'list', '--app', 'crm', ...conn)));
      expect(table.stdout).toMatch(/^ID\s+CREATED\s+APP\s+PROFILE\s+LANE\s+STATUS\s+ATTEMPTS\s+TO\s+SUBJECT$/m);
      expect(table.stdout).toContain(`${a.id}  `);
      expect(table.stdout).toMatch(/crm\s+main\s+immediate\s+sent\s+1\s+alice@example\.test\s+Invoice 1$/m);
      expect((await hearth(mail('log', 'list', '--status', 'nope', ...conn))).stderr).toMatch(/unknown status nope.*\(invalid_request, HTTP 400\)\n$/);

      // show: metadata only, no content and no content audit
      const reads = await auditCount('outgoing_mail.message.read');
      const show = ok(await hearth(mail('log', 'show', a.id, '--json', ...conn)));
      expect(JSON.parse(show.stdout)).toEqual(await call(s, 'GET', `${M}/messages/${a.id}`));
      expect(show.stdout).not.toContain('Hello Alice');
      const human = ok(await hearth(mail('log', 'show', a.id, ...conn)));
      expect(human.stdout).toMatch(/^status:\s+sent$/m);
      expect(human.stdout).toMatch(/^to:\s+alice@example\.test$/m);
      expect(human.stdout).toMatch(new RegExp(`^message-id:\\s+${a.messageId.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'));
      expect(human.stdout).not.toContain('Hello Alice');
      expect(await auditCount('outgoing_mail.message.read')).toBe(reads);

      // --content: the audited read
      const content = ok(await hearth(mail('log', 'show', a.id, '--content', '--json', ...conn)));
      const withContent = JSON.parse(content.stdout);
      expect(withContent.content).toMatchObject({ id: a.id, purged: false, text: 'Hello Alice' });
      expect(withContent.content.headers).toMatchObject({ 'X-Invoice': '1' });
      expect(await auditCount('outgoing_mail.message.read')).toBe(reads + 1);
      const humanContent = await hearth(mail('log', 'show', a.id, '--content', ...conn));
      expect(humanContent.code).toBe(0);
      expect(humanContent.stdout).toMatch(/\nText:\nHello Alice\n/);
      expect(humanContent.stdout).toMatch(/^ {2}X-Invoice: 1$/m);
      expect(humanContent.stderr).toBe('This content read was recorded in the audit log (outgoing_mail.message.read).\n');
      expect(await auditCount('outgoing_mail.message.read')).toBe(reads + 2);
      expect((await audit(s, 'outgoing_mail.message.read')).length).toBe(reads + 2);

      const missing = await hearth(mail('log', 'show', '00000000-0000-4000-8000-000000000000', ...conn));
      expect(missing.stderr).toMatch(/\(message_unknown, HTTP 404\)\n$/);
    },
    SLOW,
  );

  it(
    'show --content ends each part and the whole output with a newline, whatever the content ends with',
    async () => {
      const bodies: Array<Record<string, unknown>> = [
        { text: 'no final newline' },
        { html: '<p>no final newline</p>' },
        { text: 'text without', html: '<p>html without</p>' },
        { text: 'ends with CR LF\r\n', html: '<p>ends with LF</p>\n' },
        { text: 'ends with a carriage return\r' },
        { text: '' },
      ];
      for (const body of bodies) {
        const m = await send({ to: ['nl@example.test'], subject: 'Newlines', profile: 'main', ...body });
        await waitMessage(s, m.id, (x) => x.status === 'sent');
        const r = await hearth(mail('log', 'show', m.id, '--content', ...conn));
        expect(r.code, JSON.stringify(body)).toBe(0);
        const out = r.stdout;
        expect(out.endsWith('\n'), `${JSON.stringify(body)}: ${JSON.stringify(out.slice(-40))}`).toBe(true);
        // each part starts on a line of its own, after an empty line
        expect(out, JSON.stringify(body)).toMatch(/\n\nHeaders:\n[\s\S]*\n\nText:\n[\s\S]*\n\nHTML:\n/);
        const text = (body.text as string | undefined) ?? null;
        const html = (body.html as string | undefined) ?? null;
        const part = (v: string | null) => (v === null ? '(none)\n' : v.endsWith('\n') ? v : `${v}\n`);
        expect(out.slice(out.indexOf('\n\nText:\n'))).toBe(`\n\nText:\n${part(text)}\nHTML:\n${part(html)}`);
        // a carriage return at the end never leaves the cursor on the content's line
        expect(out).not.toMatch(/\r(?!\n)/);
      }
    },
    SLOW,
  );

  it(
    'cancel cancels a queued message or a batch, with --yes and exactly one target',
    async () => {
      // the stuck profile points at a closed port: its mail stays queued (retried after a minute)
      const q = await send({ to: ['carol@example.test'], subject: 'Stuck', text: 'never', profile: 'stuck' });
      await waitMessage(s, q.id, (m) => m.status === 'queued' && m.attempts >= 1);

      expect((await hearth(mail('log', 'cancel', ...conn))).stderr).toBe('hearth: give exactly one target: a message id, or --batch <batchId>\n');
      expect((await hearth(mail('log', 'cancel', q.id, '--batch', q.id, '--yes', ...conn))).stderr).toMatch(/not both/);
      expect((await hearth(mail('log', 'cancel', q.id, ...conn))).stderr).toBe(
        `hearth: refusing to cancel the message ${q.id} without --yes (it changes the server's data)\n`,
      );
      expect((await call(s, 'GET', `${M}/messages/${q.id}`)).status).toBe('queued');

      const c = ok(await hearth(mail('log', 'cancel', q.id, '--yes', ...conn)));
      expect(c.stdout).toBe(`Cancelled message ${q.id} (cancelled, cancelled_by_admin).\n`);
      expect(await call(s, 'GET', `${M}/messages/${q.id}`)).toMatchObject({ status: 'cancelled', cancelReason: 'cancelled_by_admin' });
      const again = await hearth(mail('log', 'cancel', q.id, '--yes', ...conn));
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/^hearth: .*\(message_not_queued, HTTP 409\)\n$/);
      const sent = await hearth(mail('log', 'cancel', sentId, '--yes', ...conn));
      expect(sent.stderr).toMatch(/\(message_not_queued, HTTP 409\)\n$/);

      // a batch on the bulk lane
      const r = await fetch(`${s.url}/api/mail/enqueue`, {
        method: 'POST',
        headers: { authorization: `Bearer ${appToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          profile: 'stuck',
          messages: [
            { to: ['d1@example.test'], subject: 'B1', text: 'x' },
            { to: ['d2@example.test'], subject: 'B2', text: 'y' },
          ],
        }),
      });
      expect(r.status).toBe(202);
      const batch = (await r.json()) as { batchId: string; messages: Array<{ id: string }> };
      // wait until each has had its first (refused) attempt: then both wait a minute in `queued`
      for (const m of batch.messages) await waitMessage(s, m.id, (x) => x.status === 'queued' && x.attempts >= 1);
      expect((await hearth(mail('log', 'cancel', '--batch', batch.batchId, ...conn))).stderr).toMatch(
        /^hearth: refusing to cancel the queued messages of batch .* without --yes/,
      );
      const bc = ok(await hearth(mail('log', 'cancel', '--batch', batch.batchId, '--yes', '--json', ...conn)));
      expect(JSON.parse(bc.stdout)).toEqual({ batchId: batch.batchId, cancelled: 2 });
      for (const m of batch.messages)
        expect(await call(s, 'GET', `${M}/messages/${m.id}`)).toMatchObject({
          status: 'cancelled',
          cancelReason: 'cancelled_by_admin',
          batchId: batch.batchId,
        });
      const none = ok(await hearth(mail('log', 'cancel', '--batch', batch.batchId, '--yes', ...conn)));
      expect(none.stdout).toBe(`Cancelled 0 queued messages of batch ${batch.batchId} (none was still queued).\n`);
      expect((await hearth(mail('log', 'cancel', '--batch', '00000000-0000-4000-8000-000000000000', '--yes', ...conn))).stderr).toMatch(
        /\(batch_unknown, HTTP 404\)\n$/,
      );
      expect(await auditCount('outgoing_mail.batch.cancel')).toBe(2);

      // listed by status
      const cancelled = JSON.parse(ok(await hearth(mail('log', 'list', '--status', 'cancelled', '--json', ...conn))).stdout);
      expect(cancelled.data.map((m: any) => m.id).sort()).toEqual([q.id, ...batch.messages.map((m) => m.id)].sort());
    },
    SLOW,
  );
});

describe('hearth admin outgoing-mail retention', () => {
  it(
    'show and set (both day flags and --yes required)',
    async () => {
      const show = ok(await hearth(mail('retention', 'show', '--json', ...conn)));
      expect(JSON.parse(show.stdout)).toEqual({ contentDays: 90, recordDays: 365 });
      const human = ok(await hearth(mail('retention', 'show', ...conn)));
      expect(human.stdout).toBe('content:  90 days\nrecords:  365 days\n');

      const refusals: Array<[string[], RegExp]> = [
        [['--content-days', '30', '--yes'], /^hearth: retention set needs both --content-days and --record-days \(missing --record-days\)\n$/],
        [['--yes'], /\(missing --content-days and --record-days\)/],
        [['--content-days', '1.5', '--record-days', '30', '--yes'], /--content-days must be a whole number of days/],
        [['--content-days', '30', '--record-days', '60'], /^hearth: refusing to change the send-log retention without --yes/],
        [['--content-days', '60', '--record-days', '30', '--yes'], /\(invalid_request, HTTP 400\)\n$/],
        [['--content-days', '0', '--record-days', '30', '--yes'], /\(invalid_request, HTTP 400\)\n$/],
      ];
      for (const [args, message] of refusals) {
        const r = await hearth(mail('retention', 'set', ...args, ...conn));
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr, args.join(' ')).toMatch(message);
      }
      expect(await call(s, 'GET', `${M}/retention`)).toEqual({ contentDays: 90, recordDays: 365 });

      const set = ok(await hearth(mail('retention', 'set', '--content-days', '30', '--record-days', '400', '--yes', ...conn)));
      expect(set.stdout).toBe('Send-log retention: content 30 days, records 400 days.\n');
      expect(await call(s, 'GET', `${M}/retention`)).toEqual({ contentDays: 30, recordDays: 400 });
      const json = ok(await hearth(mail('retention', 'set', '--content-days', '45', '--record-days', '45', '--yes', '--jsonl', ...conn)));
      expect(json.stdout).toBe('{"contentDays":45,"recordDays":45}\n');
      expect(await call(s, 'GET', `${M}/retention`)).toEqual({ contentDays: 45, recordDays: 45 });
      expect(await auditCount('outgoing_mail.retention.update')).toBe(2);
    },
    SLOW,
  );
});
