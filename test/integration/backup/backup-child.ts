/**
 * A process that makes one backup of a fixture data folder, for the tests that need a process of their own: one
 * killed with SIGKILL in the middle, one under a file size limit (ulimit -f) so that a write really fails.
 * argv[2]: JSON {dataDir, namespaces, attachment, out, hold?}. With `hold`, a last part's snapshot never ends.
 * stdout: JSON lines {event: 'progress', step, part} …, then {event: 'done'} or {event: 'error', code, message}.
 */
import { type BackupPart, createBackup } from '../../../server/core/backup/index.ts';
import { HearthError } from '../../../server/core/http/errors.ts';
import { partsFor } from './fixture.ts';

const args = JSON.parse(process.argv[2]!) as {
  dataDir: string;
  namespaces: Array<{ name: string; fileId: string }>;
  attachment: string;
  out: string;
  hold?: boolean;
};
const say = (o: object) => process.stdout.write(`${JSON.stringify(o)}\n`);
const parts: BackupPart[] = partsFor(args.dataDir, args.namespaces, args.attachment);
if (args.hold) {
  parts.push({
    kind: 'sqlite',
    name: 'held.db',
    snapshot: async () => {
      say({ event: 'holding' });
      await new Promise(() => setInterval(() => {}, 60_000)); // until killed
    },
  });
}
try {
  await createBackup({
    parts,
    out: args.out,
    tmpDir: `${args.dataDir}/tmp`,
    passphrase: 'child passphrase',
    hearthVersion: '1.4.0',
    onProgress: (p) => say({ event: 'progress', step: p.step, part: p.part }),
  });
  say({ event: 'done' });
} catch (err) {
  say({ event: 'error', code: err instanceof HearthError ? err.code : null, message: (err as Error).message });
}
