/**
 * The app's IndexedDB (`hearth-authenticator`): `meta` holds the vault configuration, `records` the device bindings
 * and pairings in progress. Values are stored by structured clone, so CryptoKey objects (non-extractable keys) and
 * the vault's sealed blobs are kept as they are.
 */
const DB_NAME = 'hearth-authenticator';
const VERSION = 1;

let opening: Promise<IDBDatabase> | null = null;

function open(): Promise<IDBDatabase> {
  opening ??= new Promise<IDBDatabase>((resolve, reject) => {
    const req = indexedDB.open(DB_NAME, VERSION);
    req.onupgradeneeded = () => {
      const db = req.result;
      if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta');
      if (!db.objectStoreNames.contains('records')) db.createObjectStore('records', { keyPath: 'id' });
    };
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB could not be opened'));
  });
  return opening;
}

function run<T>(store: 'meta' | 'records', mode: IDBTransactionMode, fn: (s: IDBObjectStore) => IDBRequest<T>): Promise<T> {
  return open().then(
    (db) =>
      new Promise<T>((resolve, reject) => {
        const tx = db.transaction(store, mode);
        const req = fn(tx.objectStore(store));
        let result: T;
        req.onsuccess = () => (result = req.result);
        tx.oncomplete = () => resolve(result);
        tx.onerror = () => reject(tx.error ?? req.error ?? new Error('IndexedDB transaction failed'));
        tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
      }),
  );
}

export const meta = {
  get: <T>(key: string) => run<T | undefined>('meta', 'readonly', (s) => s.get(key) as IDBRequest<T | undefined>),
  put: (key: string, value: unknown) => run('meta', 'readwrite', (s) => s.put(value, key)).then(() => undefined),
  delete: (key: string) => run('meta', 'readwrite', (s) => s.delete(key)).then(() => undefined),
};

export interface StoredRecord {
  id: string;
  /** `pairing`: claimed or about to be claimed; `device`: a confirmed binding. */
  kind: 'pairing' | 'device';
  issuer: string;
  /** The vault's sealed record (the key pair and the binding or pairing data). */
  sealed: unknown;
  createdAt: number;
}

export const records = {
  all: () => run<StoredRecord[]>('records', 'readonly', (s) => s.getAll() as IDBRequest<StoredRecord[]>),
  put: (r: StoredRecord) => run('records', 'readwrite', (s) => s.put(r)).then(() => undefined),
  delete: (id: string) => run('records', 'readwrite', (s) => s.delete(id)).then(() => undefined),
};
