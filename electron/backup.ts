/**
 * The desktop menu's "Back up now…": asks the running server for a backup over its admin API (the same calls as
 * the admin UI's Backups page, docs/operations/backups.md), asks where to save it (the server's file name as the
 * default), follows the job's progress, then downloads the file to the chosen place. Plain module (no Electron):
 * main.ts passes the dialogs, the window's progress bar and Electron's `net.fetch`; the tests pass stand-ins and
 * Node's fetch against a real server.
 *
 * Rules:
 * - Without a passphrase the backup leaves the secrets out (the shell says so before it starts; there is no
 *   passphrase prompt in a native dialog, so "Use a passphrase…" sends the user to the Backups page instead).
 * - The save dialog shows while the server already writes the backup; cancelling it leaves the backup in the
 *   server's backup folder (listed on the Backups page), and stops following it.
 * - The download goes to `<file>.partial` and is renamed when every byte (Content-Length) arrived: the chosen name
 *   never holds half a file. A failure removes the partial file and says why.
 * - Progress: the backup's parts make the first 80 % of the bar, the download the rest; `progress(null)` clears it.
 * - Calls authenticate with the desktop token (desktop-tokens.ts); a 401 gets one retry with a renewed token.
 */
import fs from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

/** The job as `POST /api/admin/backups` and `GET /api/admin/backups/jobs/{id}` give it (the fields used here). */
interface Job {
  id: string;
  name: string;
  state: 'running' | 'complete' | 'failed';
  progress: { parts: number; index: number };
  size: number | null;
  error: { error: string; message: string } | null;
}

export interface BackupShell {
  /** Before anything starts: back up without secrets, go to the Backups page (with a passphrase), or cancel. */
  confirm(): Promise<'start' | 'page' | 'cancel'>;
  /** Where to save; null when the user cancelled. */
  chooseFile(defaultName: string): Promise<string | null>;
  /** 0–1, or null to clear the bar. */
  progress(fraction: number | null): void;
}

export interface DesktopBackupOptions {
  /** The running server's address (what the window opens), or null when it is not running. */
  baseUrl: () => string | null;
  tokens: { forShell(): Promise<string>; renew(rejected: string): Promise<string> };
  shell: BackupShell;
  fetch?: (url: string, init?: RequestInit) => Promise<Response>;
  pollMs?: number;
}

export type DesktopBackupResult =
  | { outcome: 'saved'; file: string; name: string; size: number }
  | { outcome: 'cancelled' }
  | { outcome: 'page' }
  /** The save dialog was cancelled: the backup stays in the server's folder. */
  | { outcome: 'kept'; name: string }
  | { outcome: 'failed'; message: string };

const BASE = '/api/admin/backups';
const BACKUP_SHARE = 0.8;

class CallError extends Error {}

export async function backUpNow(opts: DesktopBackupOptions): Promise<DesktopBackupResult> {
  const doFetch = opts.fetch ?? fetch;
  const pollMs = opts.pollMs ?? 500;
  let token: string | null = null;

  /** One authenticated call; non-2xx answers become CallError with the server's message. */
  const call = async (path: string, init: RequestInit = {}): Promise<Response> => {
    const base = opts.baseUrl();
    if (base === null) throw new CallError('Hearth is not running.');
    const send = async (t: string) => {
      try {
        return await doFetch(`${base}${path}`, { ...init, headers: { ...(init.headers as Record<string, string>), authorization: `Bearer ${t}` } });
      } catch (err) {
        throw new CallError(`Hearth could not be reached (${(err as Error).message}).`);
      }
    };
    token ??= await opts.tokens.forShell();
    let res = await send(token);
    if (res.status === 401) {
      token = await opts.tokens.renew(token);
      res = await send(token);
    }
    if (!res.ok) {
      const body = (await res.json().catch(() => null)) as { message?: string } | null;
      throw new CallError(body?.message ?? `Hearth answered ${res.status}.`);
    }
    return res;
  };

  const choice = await opts.shell.confirm();
  if (choice !== 'start') return { outcome: choice === 'page' ? 'page' : 'cancelled' };
  let partial: string | null = null;
  try {
    let job = ((await (await call(BASE, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).json()) as { job: Job }).job;
    opts.shell.progress(0);
    // The server writes while the user picks a place.
    let picked: string | null | undefined;
    const choosing = opts.shell.chooseFile(job.name).then((f) => (picked = f));
    const pause = () => new Promise((r) => setTimeout(r, pollMs));
    while (job.state === 'running') {
      // While the dialog is open, its answer ends the wait early (a cancel stops following at once).
      await (picked === undefined ? Promise.race([pause(), choosing]) : pause());
      if (picked === null) break;
      job = (await (await call(`${BASE}/jobs/${encodeURIComponent(job.id)}`)).json()) as Job;
      const { parts, index } = job.progress;
      // `index` counts from 0: the parts done so far.
      if (parts > 0) opts.shell.progress((BACKUP_SHARE * Math.min(index, parts)) / parts);
    }
    const file = await choosing;
    if (file === null) {
      opts.shell.progress(null);
      return { outcome: 'kept', name: job.name };
    }
    if (job.state === 'failed') throw new CallError(job.error?.message ?? 'The backup failed.');
    opts.shell.progress(BACKUP_SHARE);

    const res = await call(`${BASE}/${encodeURIComponent(job.name)}`, { headers: { accept: 'application/octet-stream' } });
    const total = Number(res.headers.get('content-length'));
    if (!res.body) throw new CallError('Hearth sent no file.');
    partial = `${file}.partial`;
    let written = 0;
    const counted = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
    counted.on('data', (chunk: Buffer) => {
      written += chunk.length;
      if (total > 0) opts.shell.progress(BACKUP_SHARE + ((1 - BACKUP_SHARE) * written) / total);
    });
    await pipeline(counted, fs.createWriteStream(partial, { mode: 0o600 }));
    if (Number.isFinite(total) && total > 0 && written !== total) throw new CallError(`The download was cut short (${written} of ${total} bytes).`);
    fs.renameSync(partial, file);
    partial = null;
    opts.shell.progress(null);
    return { outcome: 'saved', file, name: job.name, size: written };
  } catch (err) {
    if (partial) fs.rmSync(partial, { force: true });
    opts.shell.progress(null);
    const message = err instanceof CallError ? err.message : `The backup could not be saved: ${(err as Error).message}`;
    return { outcome: 'failed', message };
  }
}
