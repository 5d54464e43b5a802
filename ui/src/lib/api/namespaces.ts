/** The namespace control plane: `/v1/namespaces`. The types are the server's own (zod-inferred), imported as types only. */
import type { z } from 'zod';
import type {
  MovedNamespace as MovedNamespaceSchema,
  NamespaceConfig,
  NamespaceList,
  NamespaceRecord,
  StorageSnapshot,
} from '../../../../server/db/namespaces/namespaces.schemas.ts';
import { authHeaders, credentials, NetworkError, type Progress, readDownload, request, send, toApiError } from './client.ts';

export type { NamespaceConfig, StorageSnapshot };
export type Namespace = NamespaceRecord;
export type NamespacePage = NamespaceList;
export type JournalMode = NamespaceConfig['journal_mode'];
export type Synchronous = NamespaceConfig['synchronous'];

export const JOURNAL_MODES = ['wal', 'delete', 'truncate', 'persist'] as const satisfies readonly JournalMode[];
export const SYNCHRONOUS_MODES = ['full', 'normal'] as const satisfies readonly Synchronous[];

export const DEFAULT_CONFIG: Readonly<NamespaceConfig> = Object.freeze({
  journal_mode: 'wal',
  synchronous: 'full',
  busy_timeout: 5000,
  max_db_size: null,
  query_timeout: 10_000,
  foreign_keys: true,
  read_only: false,
});

export const LIMITS = {
  busy_timeout: { min: 0, max: 600_000 },
  query_timeout: { min: 1, max: 3_600_000 },
  max_db_size: { min: 4096, max: Number.MAX_SAFE_INTEGER },
} as const;

export const NAMESPACE_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Client-side check of a namespace name; the server applies the same rule. `null` when valid. */
export function checkNamespaceName(name: string): string | null {
  if (name === '') return 'Enter a name.';
  if (name.length > 64) return 'Names are at most 64 characters long.';
  if (!/^[A-Za-z0-9]/.test(name)) return 'Names start with a letter or a digit.';
  if (!NAMESPACE_NAME.test(name)) return 'Use only letters, digits, “_” and “-”.';
  return null;
}

const path = (name: string) => `/v1/namespaces/${encodeURIComponent(name)}`;

export function listNamespaces(opts: { limit?: number; cursor?: string | null; signal?: AbortSignal } = {}): Promise<NamespacePage> {
  return request('/v1/namespaces', { query: { limit: opts.limit ?? 100, cursor: opts.cursor }, signal: opts.signal });
}

export function getNamespace(name: string, signal?: AbortSignal): Promise<Namespace> {
  return request(path(name), { signal });
}

/** `node`: place it on that node (registered and healthy); omitted, the server picks the healthy node holding the fewest. */
export function createNamespace(input: { name: string; config?: NamespaceConfig; node?: string }): Promise<Namespace> {
  return request('/v1/namespaces', { method: 'POST', json: input });
}

/** Replaces the whole configuration. */
export function updateNamespaceConfig(name: string, config: NamespaceConfig): Promise<Namespace> {
  return request(path(name), { method: 'PUT', json: { config } });
}

export function deleteNamespace(name: string): Promise<void> {
  return request(path(name), { method: 'DELETE' });
}

export function duplicateNamespace(name: string, newName: string): Promise<Namespace> {
  return request(`${path(name)}/duplicate`, { method: 'POST', json: { name: newName } });
}

/** The answer of `POST /v1/namespaces/{ns}/move`: the record on its new node, with the bytes copied and the write pause. */
export type MovedNamespace = z.output<typeof MovedNamespaceSchema>;

/** Moves the namespace's database to `node` online: writes pause briefly, reads go on. */
export function moveNamespace(name: string, node: string): Promise<MovedNamespace> {
  return request(`${path(name)}/move`, { method: 'POST', json: { node } });
}

/** Downloads a consistent snapshot of the database, reporting progress from `Content-Length`. */
export async function exportNamespace(
  name: string,
  opts: { onProgress?: (p: Progress) => void; signal?: AbortSignal } = {},
): Promise<{ blob: Blob; filename: string }> {
  const res = await send(`${path(name)}/export`, { headers: { Accept: 'application/octet-stream' }, signal: opts.signal });
  const filename = filenameFrom(res.headers.get('Content-Disposition')) ?? `${name}.db`;
  return { blob: await readDownload(res, 'application/vnd.sqlite3', opts.onProgress), filename };
}

function filenameFrom(disposition: string | null): string | null {
  const m = disposition ? /filename="([^"]+)"/.exec(disposition) : null;
  return m ? m[1]! : null;
}

/**
 * Replaces the namespace's database with `file` (multipart, one field `file`). Uses XMLHttpRequest
 * because fetch cannot report upload progress.
 */
export function importNamespace(name: string, file: File, opts: { onProgress?: (p: Progress) => void; signal?: AbortSignal } = {}): Promise<Namespace> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', `${path(name)}/import`);
    for (const [k, v] of Object.entries(authHeaders(credentials.token))) xhr.setRequestHeader(k, v);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.responseType = 'text';
    xhr.upload.onprogress = (e) => opts.onProgress?.({ loaded: e.loaded, total: e.lengthComputable ? e.total : null });
    xhr.onerror = () => reject(new NetworkError('The upload failed: Hearth could not be reached.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve(JSON.parse(xhr.responseText) as Namespace);
        } catch {
          reject(new NetworkError('The server sent an answer the admin UI could not read.'));
        }
        return;
      }
      const response = new Response(xhr.status === 204 ? null : xhr.responseText, {
        status: xhr.status,
        statusText: xhr.statusText,
        headers: { 'X-Request-ID': xhr.getResponseHeader('X-Request-ID') ?? '' },
      });
      void toApiError(response).then(reject, reject);
    };
    opts.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    const form = new FormData();
    form.append('file', file, file.name);
    xhr.send(form);
  });
}
