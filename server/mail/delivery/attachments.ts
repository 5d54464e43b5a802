/**
 * The attachment object store: one file per attachment under `<data>/mail-attachments`, accounted in
 * `mail_attachment_objects` so the total cap holds across processes. 25 MiB per object, a configurable total
 * (default 2 GiB), 48-hour expiry. Objects are released when their mail reaches a terminal state. The accounting
 * rows go through the core store (SQLite or PostgreSQL); the files stay on this node's data folder.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { HearthError } from '../../core/http/errors.ts';
import type { Store } from '../../core/storage/store.ts';
import type { MailClock } from '../clock.ts';

export const MAX_OBJECT_BYTES = 25 * 1024 * 1024;
export const DEFAULT_STORE_LIMIT = 2 * 1024 * 1024 * 1024;
export const OBJECT_TTL_MS = 48 * 3600_000;

export function createAttachmentStore(opts: { store: Store; dataDir: string; clock: MailClock; limitBytes?: number }) {
  const { store } = opts;
  const dir = path.join(opts.dataDir, 'mail-attachments');
  const limit = opts.limitBytes ?? DEFAULT_STORE_LIMIT;
  // CAST: PostgreSQL's sum of a BIGINT is a numeric (a string in JS); the cast keeps it a number on both engines.
  const total = async () => (await store.value<number>('SELECT CAST(coalesce(sum(size), 0) AS BIGINT) FROM mail_attachment_objects')) ?? 0;
  const file = (id: string) => {
    if (!/^[0-9a-f-]{36}$/.test(id)) throw new Error('invalid attachment object id');
    return path.join(dir, id);
  };

  return {
    dir,
    limitBytes: limit,
    /**
     * Stores the objects (caller's transaction: the rows commit with the mail that uses them). Throws
     * `attachment_storage_full` when they do not fit. Returns ids in order; `discard` removes the files if the caller's transaction fails.
     */
    async put(contents: Buffer[]): Promise<{ ids: string[]; discard: () => void }> {
      const ids: string[] = [];
      const discard = () => {
        for (const id of ids) fs.rmSync(file(id), { force: true });
      };
      if (contents.length === 0) return { ids, discard };
      const adding = contents.reduce((n, c) => n + c.length, 0);
      if ((await total()) + adding > limit) {
        throw new HearthError(
          'attachment_storage_full',
          'the attachment object store is full; mail with attachments is refused until queued mail is delivered or expires',
        );
      }
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const now = opts.clock.now();
      try {
        for (const c of contents) {
          if (c.length > MAX_OBJECT_BYTES) throw new HearthError('attachment_too_large', `an attachment may have at most ${MAX_OBJECT_BYTES} bytes`);
          const id = crypto.randomUUID();
          fs.writeFileSync(file(id), c, { mode: 0o600 });
          ids.push(id);
          await store.run('INSERT INTO mail_attachment_objects (id, size, created_at, expires_at) VALUES (?, ?, ?, ?)', [
            id,
            c.length,
            now,
            now + OBJECT_TTL_MS,
          ]);
        }
      } catch (err) {
        discard();
        throw err;
      }
      return { ids, discard };
    },
    read: (id: string): Buffer | null => {
      try {
        return fs.readFileSync(file(id));
      } catch {
        return null;
      }
    },
    /** Deletes objects; true when every file is gone. */
    async release(ids: string[]): Promise<boolean> {
      let ok = true;
      for (const id of ids) {
        try {
          fs.rmSync(file(id), { force: true });
          await store.run('DELETE FROM mail_attachment_objects WHERE id = ?', [id]);
        } catch {
          ok = false;
        }
      }
      return ok;
    },
    /** Removes objects past their 48-hour expiry. */
    async expire(): Promise<number> {
      const rows = await store.all<{ id: string }>('SELECT id FROM mail_attachment_objects WHERE expires_at <= ? LIMIT 1000', [opts.clock.now()]);
      await this.release(rows.map((r) => r.id));
      return rows.length;
    },
    usedBytes: total,
  };
}

export type AttachmentStore = ReturnType<typeof createAttachmentStore>;
