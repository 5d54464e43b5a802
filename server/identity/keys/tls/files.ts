/**
 * `--tls files`: a certificate (PEM, leaf first, chain allowed) and its private key (PEM) made elsewhere — the
 * office's own CA, a wildcard certificate, a certificate another ACME client renews. Re-read on `SIGHUP` and when
 * either file changes. A key that does not match, an expired certificate or an unreadable file is a one-line error.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CertificateSource, TlsMaterial } from './source.ts';

export interface FilesSourceOptions {
  certFile: string;
  keyFile: string;
  now?: () => number;
  /** Called (debounced) when either file changes on disk. */
  onChange?: () => void;
}

export function readCertificateFiles(certFile: string, keyFile: string, now = Date.now()): TlsMaterial {
  const read = (file: string, what: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (err) {
      throw new Error(`cannot read the TLS ${what} ${file}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`);
    }
  };
  const cert = read(certFile, 'certificate');
  const key = read(keyFile, 'key');
  let leaf: crypto.X509Certificate;
  try {
    leaf = new crypto.X509Certificate(cert);
  } catch {
    throw new Error(`the TLS certificate ${certFile} is not a PEM certificate`);
  }
  let privateKey: crypto.KeyObject;
  try {
    privateKey = crypto.createPrivateKey(key);
  } catch {
    throw new Error(`the TLS key ${keyFile} is not a PEM private key (or it is encrypted with a passphrase)`);
  }
  if (!leaf.checkPrivateKey(privateKey)) throw new Error(`the TLS key ${keyFile} does not match the certificate ${certFile}`);
  if (Date.parse(leaf.validTo) <= now) throw new Error(`the TLS certificate ${certFile} expired on ${new Date(leaf.validTo).toISOString()}`);
  if (Date.parse(leaf.validFrom) > now) throw new Error(`the TLS certificate ${certFile} is not valid before ${new Date(leaf.validFrom).toISOString()}`);
  return { cert, key };
}

export function createFilesSource(opts: FilesSourceOptions): CertificateSource {
  const watchers: fs.FSWatcher[] = [];
  let timer: NodeJS.Timeout | null = null;
  const load = async () => readCertificateFiles(opts.certFile, opts.keyFile, (opts.now ?? Date.now)());
  return {
    mode: 'files',
    async start() {
      const material = await load();
      if (opts.onChange) {
        // Watch the folders, not the files: tools replace certificates by renaming a new file over the old one.
        const fire = () => {
          if (timer) clearTimeout(timer);
          timer = setTimeout(() => opts.onChange?.(), 200);
          timer.unref();
        };
        const names = new Set([path.resolve(opts.certFile), path.resolve(opts.keyFile)]);
        for (const dir of new Set([...names].map((f) => path.dirname(f)))) {
          try {
            const w = fs.watch(dir, (_event, file) => {
              if (!file || names.has(path.join(dir, file.toString()))) fire();
            });
            w.unref();
            watchers.push(w);
          } catch {
            // A folder that cannot be watched: SIGHUP still reloads.
          }
        }
      }
      return material;
    },
    renew: load,
    status: () => ({ certFile: opts.certFile, keyFile: opts.keyFile }),
    async close() {
      if (timer) clearTimeout(timer);
      for (const w of watchers) w.close();
    },
  };
}
