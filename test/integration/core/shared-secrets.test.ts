/**
 * Replicas on one core store must share their secrets (issue 18): the first records each secret's fingerprint, a
 * later one with another value is refused with the variable named (never the value), and a KEK rolled replica by
 * replica (next, then current with previous) is accepted all the way and the record follows the roll.
 */
import { describe, expect, it } from 'vitest';
import { checkSharedSecrets, type SharedSecret, secretFingerprint } from '../../../server/core/secrets/secrets.ts';
import { coreMigrations } from '../../../server/core/storage/platform-db.ts';
import { migratePostgres, postgresStore } from '../../../server/core/storage/postgres-store.ts';
import { coreStoreFixtures } from '../../helpers/core-stores.ts';

const fx = coreStoreFixtures();

async function store() {
  const s = postgresStore({ url: await fx.cluster.createDatabase() });
  fx.stores.push(s);
  await migratePostgres(s, coreMigrations);
  return s;
}

const app = (value: string, source: SharedSecret['source'] = 'environment'): SharedSecret => ({
  variable: 'APP_SECRET',
  fingerprint: secretFingerprint(value),
  source,
});

describe('shared secrets of replicas on one core store', () => {
  it('records the first replica’s fingerprints, accepts the same values and refuses others by name', async () => {
    const s = await store();
    await checkSharedSecrets(s, [app('a'.repeat(48))]);
    await checkSharedSecrets(s, [app('a'.repeat(48))]);
    expect(await s.all('SELECT name, fingerprint FROM shared_secrets')).toEqual([{ name: 'APP_SECRET', fingerprint: secretFingerprint('a'.repeat(48)) }]);
    const err = (await checkSharedSecrets(s, [app('b'.repeat(48), 'secret-store')]).catch((e: unknown) => e)) as Error;
    expect(err.message).toBe(
      `this replica's secrets differ from those of the other replicas on the core store; give every replica the same values (docs/operations/replicas.md): APP_SECRET: fingerprint ${secretFingerprint('b'.repeat(48))} here (generated into this replica’s data folder (it was not set)), ${secretFingerprint('a'.repeat(48))} on the core store`,
    );
    expect(err.message).not.toContain('b'.repeat(48));
  });

  it('follows a KEK rolled replica by replica', async () => {
    const s = await store();
    const kek = (current: string, o: { next?: string; previous?: string } = {}): SharedSecret => ({
      variable: 'HEARTH_IDENTITY_KEY_ENCRYPTION_KEY',
      fingerprint: current,
      source: 'environment',
      accepts: [o.next, o.previous].filter((x): x is string => !!x),
      supersedes: o.previous ?? null,
    });
    await checkSharedSecrets(s, [kek('old0000000000000')]);
    await checkSharedSecrets(s, [kek('old0000000000000', { next: 'new0000000000000' })]); // step 1: next everywhere
    await checkSharedSecrets(s, [kek('new0000000000000', { previous: 'old0000000000000' })]); // step 2: switched, old kept
    expect(await s.value('SELECT fingerprint FROM shared_secrets')).toBe('new0000000000000');
    await checkSharedSecrets(s, [kek('old0000000000000', { next: 'new0000000000000' })]); // a replica not yet switched
    await checkSharedSecrets(s, [kek('new0000000000000')]); // step 3: previous dropped
    await expect(checkSharedSecrets(s, [kek('old0000000000000')])).rejects.toThrow(/HEARTH_IDENTITY_KEY_ENCRYPTION_KEY: fingerprint old0000000000000 here/);
  });
});
