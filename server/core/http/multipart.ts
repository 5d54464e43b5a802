import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import busboy from 'busboy';
import { privateDir } from '../storage/data-dir.ts';
import type { AppContext } from './app-context.ts';
import { HearthError, quoteInput } from './errors.ts';

export type Upload =
  | { kind: 'memory'; buffer: Buffer; size: number; filename: string; sha256: string }
  | { kind: 'file'; path: string; size: number; filename: string; sha256: string };

export interface ReceiveOptions {
  /** The only field name accepted. */
  field: string;
  /** Parts up to this many bytes stay in memory; a larger part spills to a temporary file. */
  memoryLimit: number;
  /** Hard cap on the part's size; `tooLarge()` is thrown past it. */
  maxBytes: number;
  tooLarge: () => HearthError;
  tmpDir: string;
}

/** Removes a spilled upload's temporary file, if any. */
export function discardUpload(u: Upload | undefined): void {
  if (u?.kind === 'file') fs.rmSync(u.path, { force: true });
}

/**
 * A busboy failure in words a client can act on. Busboy's own texts: "Unexpected end of form" (the body ended before
 * the closing boundary `--<boundary>--`), "Unexpected end of file" (the same, seen from the part being read),
 * "Malformed part header", "Multipart: Boundary not found".
 */
function uploadProblem(err: Error, boundary: string): string {
  const m = err.message;
  if (/Unexpected end of (form|file)/i.test(m))
    return `the multipart body ends before its closing boundary (${quoteInput(`--${boundary}--`, 80)}): the upload is incomplete; send the whole file`;
  if (/Malformed part header/i.test(m)) return 'a part header of the multipart body is malformed or cut off';
  if (/Boundary not found/i.test(m)) return 'the Content-Type names no multipart boundary (multipart/form-data; boundary=…)';
  return `malformed multipart body: ${quoteInput(m, 200)}`;
}

/** The boundary parameter of a multipart Content-Type (as given; '' when absent). */
function boundaryOf(contentType: string): string {
  const m = /;\s*boundary=(?:"([^"]*)"|([^;\s]*))/i.exec(contentType);
  return m ? (m[1] ?? m[2] ?? '') : '';
}

/**
 * Receives a multipart/form-data body that must hold exactly one part: a file in field `opts.field`.
 * Any other field, a second part, a missing file or a body that ends before its closing boundary is 400. On error the
 * rest of the body is drained so the client reads the error instead of a reset connection. Every stream involved
 * (the request, busboy, the part, the spill file) has its `error` handled here: a broken upload fails this request
 * and nothing else.
 */
export async function receiveSingleFile(ctx: AppContext, opts: ReceiveOptions): Promise<Upload> {
  if (!ctx.is('multipart/form-data')) {
    throw new HearthError(
      'unsupported_media_type',
      `upload must be multipart/form-data with one field "${opts.field}" (got ${quoteInput(ctx.get('content-type') || 'none', 100)})`,
    );
  }
  const boundary = boundaryOf(ctx.get('content-type'));
  let bb: busboy.Busboy;
  try {
    bb = busboy({ headers: ctx.req.headers, limits: { files: 1, fields: 0, parts: 2, fileSize: opts.maxBytes + 1 } });
  } catch (err) {
    throw new HearthError('invalid_request', uploadProblem(err as Error, boundary));
  }

  return await new Promise<Upload>((resolve, reject) => {
    let failed: HearthError | null = null;
    let result: Upload | null = null;
    let sawFile = false;
    let pending: Promise<void> = Promise.resolve();
    let tmpPath: string | null = null;
    let out: fs.WriteStream | null = null;

    const fail = (e: HearthError) => {
      if (failed) return;
      failed = e;
      out?.destroy();
      if (tmpPath) fs.rmSync(tmpPath, { force: true });
      ctx.req.unpipe(bb);
      bb.removeAllListeners();
      bb.on('error', () => {});
      if (ctx.req.readableEnded || ctx.req.destroyed) reject(e);
      else {
        ctx.req.on('end', () => reject(e));
        ctx.req.on('close', () => reject(e));
        ctx.req.resume();
      }
    };

    bb.on('file', (name, stream, info) => {
      // The part's stream fails when the body ends inside it (busboy destroys it with "Unexpected end of file").
      stream.on('error', (err) => fail(new HearthError('invalid_request', uploadProblem(err, boundary))));
      if (name !== opts.field) {
        stream.resume();
        return fail(new HearthError('invalid_request', `unexpected multipart field ${quoteInput(name, 100)}: send exactly one field named "${opts.field}"`));
      }
      sawFile = true;
      const hash = crypto.createHash('sha256');
      const chunks: Buffer[] = [];
      let size = 0;
      pending = new Promise<void>((done) => {
        stream.on('data', (chunk: Buffer) => {
          if (failed) return;
          size += chunk.length;
          hash.update(chunk);
          if (size > opts.maxBytes) {
            stream.resume();
            return fail(opts.tooLarge());
          }
          if (out) {
            if (!out.write(chunk)) {
              stream.pause();
              out.once('drain', () => stream.resume());
            }
          } else if (size > opts.memoryLimit) {
            privateDir(opts.tmpDir);
            tmpPath = path.join(opts.tmpDir, `upload-${crypto.randomUUID()}`);
            out = fs.createWriteStream(tmpPath, { mode: 0o600 });
            out.on('error', (err: NodeJS.ErrnoException) =>
              fail(
                err.code === 'ENOSPC' || err.code === 'EDQUOT'
                  ? new HearthError('disk_full', 'the disk holding the data folder is full: the upload could not be kept; nothing was changed')
                  : new HearthError('internal_error', `could not spill upload to disk: ${err.message}`),
              ),
            );
            for (const c of chunks) out.write(c);
            chunks.length = 0;
            out.write(chunk);
          } else chunks.push(chunk);
        });
        stream.on('end', () => {
          if (failed) return done();
          const base = { size, filename: info.filename ?? opts.field, sha256: hash.digest('hex') };
          if (out) {
            const file = tmpPath!;
            out.end(() => {
              if (!failed) result = { kind: 'file', path: file, ...base };
              done();
            });
          } else {
            result = { kind: 'memory', buffer: Buffer.concat(chunks, size), ...base };
            done();
          }
        });
      });
    });
    bb.on('field', (name) =>
      fail(
        new HearthError(
          'invalid_request',
          `unexpected multipart field ${quoteInput(name, 100)}: send exactly one field named "${opts.field}" holding the file`,
        ),
      ),
    );
    bb.on('partsLimit', () => fail(new HearthError('invalid_request', `send exactly one multipart field named "${opts.field}"`)));
    bb.on('filesLimit', () => fail(new HearthError('invalid_request', `send exactly one multipart field named "${opts.field}"`)));
    bb.on('fieldsLimit', () => fail(new HearthError('invalid_request', `send exactly one multipart field named "${opts.field}" holding the file`)));
    bb.on('error', (err) => fail(new HearthError('invalid_request', uploadProblem(err as Error, boundary))));
    bb.on('close', () => {
      void pending.then(() => {
        if (failed) return;
        if (!sawFile || !result) return fail(new HearthError('invalid_request', `multipart body has no file in field "${opts.field}"`));
        resolve(result);
      });
    });
    ctx.req.on('aborted', () => fail(new HearthError('invalid_request', 'upload aborted by the client')));
    ctx.req.on('error', () => fail(new HearthError('invalid_request', 'upload aborted by the client')));
    ctx.req.pipe(bb);
  });
}
