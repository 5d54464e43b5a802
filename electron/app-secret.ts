/**
 * The server's application secret on the desktop, protected by the OS keychain (Electron's `safeStorage`) where the
 * OS offers it. Plain module (no Electron): main.ts passes a cipher built on safeStorage; the tests pass a fake.
 *
 * With a keychain, the secret lives only encrypted in `<userData>/app-secret.bin` and reaches the server in the
 * `start` message (never in a file, an argument or the environment); a plain copy the server wrote earlier
 * (`<data>/secrets/app-secret`) is adopted and removed. Without one (e.g. Linux without a secret service), the
 * server keeps its own file, mode 0600, in a 0700 folder, as the headless server does.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export interface SecretCipher {
  /** True only when the OS really protects the key (not a fixed fallback password). */
  isAvailable(): boolean;
  encrypt(plain: string): Buffer;
  decrypt(data: Buffer): string;
}

export interface AppSecret {
  /** The secret to pass to the server, or undefined to let it keep its own file. */
  secret: string | undefined;
  protection: 'os-keychain' | 'data-folder-file';
}

export function loadAppSecret(opts: { file: string; dataDir: string; cipher: SecretCipher }): AppSecret {
  const plainFile = path.join(opts.dataDir, 'secrets', 'app-secret');
  if (fs.existsSync(opts.file)) {
    let secret: string;
    try {
      secret = opts.cipher.decrypt(fs.readFileSync(opts.file));
    } catch (err) {
      throw new Error(`cannot read the protected application secret (${opts.file}): ${(err as Error).message}. Was the OS keychain reset?`);
    }
    fs.rmSync(plainFile, { force: true });
    return { secret, protection: 'os-keychain' };
  }
  if (!opts.cipher.isAvailable()) return { secret: undefined, protection: 'data-folder-file' };
  let secret: string;
  try {
    secret = fs.readFileSync(plainFile, 'utf8').trim();
  } catch {
    secret = crypto.randomBytes(48).toString('base64url');
  }
  fs.mkdirSync(path.dirname(opts.file), { recursive: true });
  const tmp = `${opts.file}.tmp`;
  fs.writeFileSync(tmp, opts.cipher.encrypt(secret), { mode: 0o600 });
  fs.renameSync(tmp, opts.file);
  fs.rmSync(plainFile, { force: true });
  return { secret, protection: 'os-keychain' };
}
