/**
 * The device keys at rest, through the SDK's local vault (seed "Local vault"). Every record (a device binding, or a
 * pairing in progress, each with its key pair) is sealed by the vault and stored in IndexedDB; the vault key is
 * wrapped by the method the person chose on first start: a six-digit PIN, a passkey (offered only when
 * `vault.capability()` says `supported`), or explicitly no lock (`local`: the raw vault key beside the records).
 *
 * - Setup persists the vault config only after a successful `vault.unlock` round trip with the new method.
 * - The session is locked (`session.lock()`) when the page is hidden or left; with `local` it is reopened without a
 *   question when the page is visible again, with a PIN or passkey the person unlocks.
 * - Keys come from `session.createKey()`: the private key is not extractable in the page; the vault seals it.
 */
import { meta } from './db.ts';
import { type AppPairingPayload, type VaultConfig, type VaultRecordBlob, type VaultSession, vault } from './sdk.ts';

export type KeyRecord =
  | { kind: 'device'; issuer: string; deviceId: string; key: CryptoKeyPair; name: string; createdAt: string }
  | {
      kind: 'pairing';
      issuer: string;
      payload: AppPairingPayload;
      key: CryptoKeyPair;
      name: string;
      deviceId: string | null;
      comparison: string | null;
      createdAt: string;
    };

export type LockMethod = 'pin' | 'passkey' | 'local';
export type Phase = 'loading' | 'setup' | 'locked' | 'unlocked';

const CONFIG_KEY = 'vault';

function isKeyPair(v: unknown): v is CryptoKeyPair {
  return !!v && typeof v === 'object' && (v as CryptoKeyPair).privateKey instanceof CryptoKey && (v as CryptoKeyPair).publicKey instanceof CryptoKey;
}
const str = (v: unknown): v is string => typeof v === 'string';

/** What a sealed record must contain to be used. */
function validateRecord(v: unknown): KeyRecord {
  const r = v as Record<string, unknown>;
  if (!r || typeof r !== 'object' || !isKeyPair(r.key) || !str(r.issuer) || !str(r.name) || !str(r.createdAt)) throw new Error('not an app record');
  if (r.kind === 'device' && str(r.deviceId)) return r as KeyRecord;
  if (r.kind === 'pairing' && r.payload && typeof r.payload === 'object') return r as KeyRecord;
  throw new Error('not an app record');
}

class KeyStore {
  phase = $state<Phase>('loading');
  methods = $state<LockMethod[]>([]);
  passkeySupported = $state(false);
  #config: VaultConfig | null = null;
  #session: VaultSession | null = null;

  async init(): Promise<void> {
    const config = await meta.get<VaultConfig>(CONFIG_KEY);
    if (!config) {
      this.passkeySupported = (await vault.capability().catch(() => 'unknown')) === 'supported';
      this.phase = 'setup';
      return;
    }
    this.#config = vault.parseConfig(config);
    this.methods = this.#config.methods.map((m) => m.type);
    this.phase = 'locked';
    if (this.methods.includes('local')) await this.unlock('local');
  }

  /** First start: creates the vault with one method, proves it opens, then stores its config. */
  async setup(choice: { method: 'pin'; pin: string } | { method: 'passkey' } | { method: 'local' }): Promise<void> {
    const draft = vault.create();
    try {
      if (choice.method === 'pin') await draft.pin(choice.pin);
      else if (choice.method === 'passkey') await draft.passkey();
      else await draft.local();
      const config = draft.config();
      const session = await vault.unlock(config, choice.method, choice.method === 'pin' ? choice.pin : undefined);
      await meta.put(CONFIG_KEY, config);
      this.#config = config;
      this.#session = session;
      this.methods = [choice.method];
      this.phase = 'unlocked';
    } finally {
      draft.lock();
    }
  }

  async unlock(method: LockMethod, pin?: string): Promise<void> {
    if (!this.#config) throw new Error('No vault is set up.');
    this.#session = await vault.unlock(this.#config, method, pin);
    this.phase = 'unlocked';
  }

  /** Locks the session (page hidden or left, or the Lock button). */
  lock(): void {
    if (this.phase !== 'unlocked') return;
    this.#session?.lock();
    this.#session = null;
    this.phase = 'locked';
  }

  /** The page is visible again: an unprotected vault reopens by itself. */
  async resume(): Promise<void> {
    if (this.phase === 'locked' && this.methods.includes('local')) await this.unlock('local');
  }

  #live(): VaultSession {
    if (!this.#session || this.#session.locked) throw new Error('The keys are locked: unlock the app first.');
    return this.#session;
  }

  /** A new device key pair (private key not extractable in the page) that the vault can seal. */
  newKey(): Promise<CryptoKeyPair> {
    return this.#live().createKey();
  }

  seal(record: KeyRecord, context: string): Promise<VaultRecordBlob> {
    return this.#live().sealRecord(record, context);
  }

  open(sealed: unknown, context: string): Promise<KeyRecord> {
    return this.#live().openRecord(sealed as VaultRecordBlob, context, validateRecord);
  }
}

export const keystore = new KeyStore();
