/**
 * A whole instance backed up with `hearth backup create` while it runs, restored with `hearth backup restore` into a
 * fresh folder, and a new server on it: the same rows in several namespaces, sign-in with the old password, a
 * client_credentials token for an old OAuth client, and a bulk message queued while the original could not deliver
 * it, delivered by the restored instance to a real SMTP peer exactly once. On the way: the wrong passphrase, a
 * corrupted byte, a non-empty folder and a folder a server runs on are refused by the CLI.
 * The instance keeps its core store in platform.db under either HEARTH_TEST_STORE (store: 'sqlite'): such a backup
 * holds the whole instance. A backup made on PostgreSQL holds no core store (replicas.md, "Backups in this mode";
 * core/postgres-mode.test.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackupManifest } from '../../../server/core/backup/index.ts';
import { runCli } from '../../helpers/cli.ts';
import { rawCall, signIn } from '../../helpers/http.ts';
import { tempDir } from '../../helpers/server.ts';
import { CLOSED_PORT, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from '../mail/helpers.ts';
import { type Peer, startPeer } from '../mail/peer.ts';
import { dataOffset } from './fixture.ts';

const SLOW = 180_000;
const PASSPHRASE = 'correct horse battery staple';
const PASSWORD = 'Backup-Admin-Passw0rd!';
const report = { filename: 'report.csv', contentType: 'text/csv', content: Buffer.from('month,total\n11,42\n').toString('base64') };

let root: string;
let cwd: string;
let peer: Peer;
const servers: MailServer[] = [];
const hearth = (args: string[], input?: string) => runCli(args, { cwd, env: { HEARTH_CONFIG_DIR: path.join(root, 'config') }, input });

beforeAll(async () => {
  root = tempDir('hearth-restore-');
  cwd = path.join(root, 'cwd');
  fs.mkdirSync(cwd);
  peer = await startPeer();
});
afterAll(async () => {
  for (const s of servers) await s.stop().catch(() => {});
  await peer.close();
  fs.rmSync(root, { recursive: true, force: true });
});

const RETRY_LATER = { retryBaseMs: 3600_000, retryMaxMs: 3600_000 };
const rowsOf = async (s: MailServer, ns: string) => (await call<{ data: unknown[] }>(s, 'GET', `/v1/${ns}/tables/items/rows?order=id.asc&limit=1000`)).data;

describe('backup and restore of a running instance', () => {
  it(
    'the restored server answers the same reads and delivers the queued bulk message once',
    async () => {
      // The original: two namespaces with rows, an administrator with a password, an OAuth client bound to a
      // namespace, a bulk message queued on a profile that cannot deliver (connection refused: it waits for a retry).
      // A failed attempt is due again an hour later (not the minute of the default), on both servers: the backup,
      // its checks and the restore take well over a minute of real time on a busy machine, and the restored server
      // must still hold the message queued until the test moves its clock past the retry.
      const a = await startMailServer({ store: 'sqlite', mail: { delivery: RETRY_LATER } });
      servers.push(a);
      const issuer = a.url.replace(/\/$/, '');
      for (const [ns, n] of [
        ['crm', 40],
        ['inventory', 25],
      ] as const) {
        await call(a, 'POST', '/v1/namespaces', { name: ns }, 201);
        await call(a, 'POST', `/v1/${ns}/tables`, { type: 'table', name: 'items', columns: [{ name: 'label', type: 'text' }] }, 201);
        await call(a, 'POST', `/v1/${ns}/tables/items/rows`, { rows: Array.from({ length: n }, (_, i) => ({ label: `${ns}-${i}` })) }, 201);
      }
      expect((await rawCall(issuer, '/api/setup', { json: { login: 'root', password: PASSWORD } }, issuer)).status).toBe(201);
      const sa = await call(a, 'POST', '/api/admin/core/service-accounts', { appId: 'hearth-db', resourceType: 'namespace', resourceId: 'crm' }, 201);
      const created = await call(
        a,
        'POST',
        '/api/admin/oauth/clients',
        { name: 'ETL', serviceAccountId: sa.sub, scopes: ['read'], audiences: [`${issuer}/v1/crm`] },
        201,
      );
      const oauth = { id: created.client.clientId as string, secret: created.clientSecret as string };
      await call(a, 'PUT', `${M}/profiles/main`, profileBody(CLOSED_PORT), 201);
      const app = await registerApp(a, 'crm');
      const queued = await call(
        a,
        'POST',
        '/api/mail/enqueue',
        { profile: 'main', messages: [{ to: ['ops@example.test'], subject: 'kept', text: 'hello', attachments: [report] }] },
        202,
        app,
      );
      const messageId = queued.messages[0].id as string;
      await waitMessage(a, messageId, (m) => m.status === 'queued' && m.attempts >= 1);
      const before = { crm: await rowsOf(a, 'crm'), inventory: await rowsOf(a, 'inventory') };

      const file = path.join(root, 'office.hearth-backup');
      const made = await hearth(['backup', 'create', '--url', a.url, '--token', a.token, '--passphrase-stdin', '-o', file], `${PASSPHRASE}\n`);
      expect(made.code, made.stderr).toBe(0);
      expect(made.stderr).toMatch(/Backup hearth-\d{8}-\d{6}-manual\.hearth-backup complete \(.*secrets sealed under the passphrase\); saved to /);
      const manifest = await readBackupManifest(file);
      expect(manifest.kekFingerprint).toMatch(/^[0-9a-f]{16}$/);
      expect(manifest.entries.filter((e) => e.name.startsWith('namespaces/')).map((e) => e.meta?.namespace)).toEqual(['crm', 'inventory']);
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      // The server keeps its own copy in the backup folder.
      expect(fs.readdirSync(path.join(a.dataDir, 'backups'))).toEqual([path.basename(made.stderr.match(/Backup (\S+) complete/)![1]!)]);
      const port = a.port;
      servers.splice(servers.indexOf(a), 1);
      await a.stop();

      // Checked and refused without touching anything.
      const verified = await hearth(['backup', 'verify', file, '--passphrase-stdin'], `${PASSPHRASE}\n`);
      expect(verified.code, verified.stdout).toBe(0);
      expect(verified.stdout).toMatch(/: ok \(.*secrets verified/);
      const damaged = path.join(root, 'damaged.hearth-backup');
      const bytes = fs.readFileSync(file);
      bytes[dataOffset(file, 'platform.db') + 5000]! ^= 0xff;
      fs.writeFileSync(damaged, bytes);
      const bad = await hearth(['backup', 'verify', damaged]);
      expect(bad.code).toBe(1);
      expect(bad.stdout).toContain('problem: platform.db: ');
      expect(bad.stdout).toContain('NOT OK');

      const target = path.join(root, 'restored');
      const wrong = await hearth(['backup', 'restore', file, '--data', target, '--passphrase-stdin'], 'not the passphrase\n');
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('[wrong_passphrase]');
      expect(fs.existsSync(target)).toBe(false);
      const noPassphrase = await hearth(['backup', 'restore', file, '--data', target]);
      expect(noPassphrase.stderr).toContain('[passphrase_required]');
      const busy = path.join(root, 'busy');
      fs.mkdirSync(busy);
      fs.writeFileSync(path.join(busy, 'notes.txt'), 'mine');
      const notEmpty = await hearth(['backup', 'restore', file, '--data', busy, '--passphrase-stdin'], `${PASSPHRASE}\n`);
      expect(notEmpty.code).toBe(1);
      expect(notEmpty.stderr).toContain('[target_not_empty]');
      expect(fs.readdirSync(busy)).toEqual(['notes.txt']);

      const restored = await hearth(['backup', 'restore', file, '--data', target, '--passphrase-stdin'], `${PASSPHRASE}\n`);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toContain('2 namespace(s): crm, inventory');
      expect(restored.stdout).toContain('1 mail attachment(s)');
      expect(restored.stdout).toContain('secrets: restored');
      expect(restored.stdout).toContain(`KEK with fingerprint ${manifest.kekFingerprint}, which the backup held`);

      // The restored instance, on the same address (the issuer, and so the OAuth audiences, stay the same).
      const b = await startMailServer({ store: 'sqlite', dataDir: target, port, mail: { delivery: RETRY_LATER } });
      servers.push(b);
      expect(await rowsOf(b, 'crm')).toEqual(before.crm);
      expect(await rowsOf(b, 'inventory')).toEqual(before.inventory);
      await signIn(b, 'root', PASSWORD);
      const basic = `Basic ${Buffer.from(`${encodeURIComponent(oauth.id)}:${encodeURIComponent(oauth.secret)}`).toString('base64')}`;
      const token = await rawCall(issuer, '/oauth/token', { form: { grant_type: 'client_credentials', scope: 'read' }, headers: { authorization: basic } });
      expect(token.status, token.text).toBe(200);
      const read = await rawCall(issuer, '/v1/crm/tables/items/rows?limit=1', { token: token.json.access_token });
      expect(read.status, read.text).toBe(200);

      // A server runs on the folder now: restoring over it is refused even with --force.
      const running = await hearth(['backup', 'restore', file, '--data', target, '--force', '--passphrase-stdin'], `${PASSPHRASE}\n`);
      expect(running.code).toBe(1);
      expect(running.stderr).toContain(`(process ${process.pid}) is running on`);

      // The queued message: its profile now points at the peer; once its retry is due it is delivered, once.
      expect((await call(b, 'GET', `${M}/messages/${messageId}`)).status).toBe('queued');
      const profile = await call(b, 'GET', `${M}/profiles/main`);
      await call(b, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { revision: profile.revision }), 200);
      b.advance(2 * 3600_000);
      await b.mail.kick();
      await peer.waitFor(1, 20_000);
      await waitMessage(b, messageId, (m) => m.status === 'sent');
      b.advance(2 * 3600_000);
      await b.mail.kick();
      await b.mail.idle();
      expect(peer.received.map((r) => r.parsed.subject)).toEqual(['kept']);
      expect(peer.received[0]!.parsed.attachments.map((x) => [x.filename, x.content.toString()])).toEqual([['report.csv', 'month,total\n11,42\n']]);
    },
    SLOW,
  );
});
