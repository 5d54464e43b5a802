/**
 * The namespace control plane: `/v1/namespaces`. Paths, bodies and answers are the OpenAPI document's (`openapi.ts`).
 */
import { answer, api, apiUrl, authHeaders, credentials, every, NetworkError, type Progress, readDownload, type Schemas, toApiError } from './client.ts';

/**
 * A namespace's configuration as the server answers it: every member present. (The document's `NamespaceConfig` is
 * also the request's, where a member left out takes its default, so its members are optional there.)
 */
export type NamespaceConfig = Required<Schemas['NamespaceConfig']>;
export type StorageSnapshot = Schemas['StorageSnapshot'];
export type Namespace = Omit<Schemas['Namespace'], 'config'> & { config: NamespaceConfig };
export type NamespacePage = Omit<Schemas['NamespaceList'], 'data'> & { data: Namespace[] };
export type JournalMode = NamespaceConfig['journal_mode'];
export type Synchronous = NamespaceConfig['synchronous'];

export const JOURNAL_MODES = every<JournalMode>()(['wal', 'delete', 'truncate', 'persist']);
export const SYNCHRONOUS_MODES = every<Synchronous>()(['full', 'normal']);

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

const nsPath = (name: string) => ({ params: { path: { ns: name } } });

export function listNamespaces(opts: { limit?: number; cursor?: string | null; signal?: AbortSignal } = {}): Promise<NamespacePage> {
  return answer(
    api.GET('/v1/namespaces', { params: { query: { limit: opts.limit ?? 100, cursor: opts.cursor ?? undefined } }, signal: opts.signal }),
  ) as Promise<NamespacePage>;
}

export function getNamespace(name: string, signal?: AbortSignal): Promise<Namespace> {
  return answer(api.GET('/v1/namespaces/{ns}', { ...nsPath(name), signal })) as Promise<Namespace>;
}

/** `node`: place it on that node (registered and healthy); omitted, the server picks the healthy node holding the fewest. */
export function createNamespace(input: Schemas['CreateNamespace']): Promise<Namespace> {
  return answer(api.POST('/v1/namespaces', { body: input })) as Promise<Namespace>;
}

/** Replaces the whole configuration. */
export function updateNamespaceConfig(name: string, config: NamespaceConfig): Promise<Namespace> {
  return answer(api.PUT('/v1/namespaces/{ns}', { ...nsPath(name), body: { config } })) as Promise<Namespace>;
}

export function deleteNamespace(name: string): Promise<void> {
  return answer(api.DELETE('/v1/namespaces/{ns}', nsPath(name)));
}

export function duplicateNamespace(name: string, newName: string): Promise<Namespace> {
  return answer(api.POST('/v1/namespaces/{ns}/duplicate', { ...nsPath(name), body: { name: newName } })) as Promise<Namespace>;
}

/** The answer of `POST /v1/namespaces/{ns}/move`: the record on its new node, with the bytes copied and the write pause. */
export type MovedNamespace = Omit<Schemas['MovedNamespace'], 'config'> & { config: NamespaceConfig };

/** Moves the namespace's database to `node` online: writes pause briefly, reads go on. */
export function moveNamespace(name: string, node: string): Promise<MovedNamespace> {
  return answer(api.POST('/v1/namespaces/{ns}/move', { ...nsPath(name), body: { node } })) as Promise<MovedNamespace>;
}

/** Downloads a consistent snapshot of the database, reporting progress from `Content-Length`. */
export async function exportNamespace(
  name: string,
  opts: { onProgress?: (p: Progress) => void; signal?: AbortSignal } = {},
): Promise<{ blob: Blob; filename: string }> {
  const { response } = await api.GET('/v1/namespaces/{ns}/export', {
    ...nsPath(name),
    parseAs: 'stream',
    headers: { Accept: 'application/octet-stream' },
    signal: opts.signal,
  });
  const filename = filenameFrom(response.headers.get('Content-Disposition')) ?? `${name}.db`;
  return { blob: await readDownload(response, 'application/vnd.sqlite3', opts.onProgress), filename };
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
    xhr.open('POST', apiUrl('/v1/namespaces/{ns}/import', { path: { ns: name } }));
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
