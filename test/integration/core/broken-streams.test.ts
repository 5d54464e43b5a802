/**
 * Broken input fed to every stream the server reads from a client: the multipart parts of both imports (database
 * file and CSV), sent whole, chunked, cut mid-part, without the closing boundary or with the client gone mid-upload.
 * The server runs in a child process, so an `error` event nobody listens to would end it (as it did: busboy's
 * "Unexpected end of form" on the part's stream): each case answers 400 `invalid_request` naming what is wrong with
 * the upload, writes nothing, leaves no temporary file, and the server serves on.
 *
 * The streams the server makes itself (the spilled upload's file, the CSV parser, export and backup files, the
 * query processes' pipes) are fed broken input beside their code: server/db/rows/csv.test.ts and the export and
 * download cases below.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServerProcess } from '../../helpers/server-process.ts';
import { until } from '../../helpers/wait.ts';

let s: ServerProcess;
const B = 'XyZ';
const CT = `multipart/form-data; boundary=${B}`;

beforeAll(async () => {
  // A small in-memory limit, so that the larger cases spill to a temporary file.
  s = await startServerProcess({ uploadMemoryLimit: 64 * 1024 });
  expect((await s.api('/v1/namespaces', { method: 'POST', json: { name: 'ns' } })).status).toBe(201);
  const t = await s.api('/v1/ns/tables', { method: 'POST', json: { type: 'table', name: 'people', columns: [{ name: 'name', type: 'text' }] } });
  expect(t.status).toBe(201);
});
afterAll(async () => {
  await s?.stop();
});

async function json(res: Response): Promise<{ status: number; body: any }> {
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}

/** The server still answers, and the namespace still holds nothing but what the test wrote. */
async function serving() {
  expect(s.proc.exitCode, 'the server process exited').toBeNull();
  expect(s.proc.signalCode, 'the server process was killed').toBeNull();
  const health = await s.api('/healthz', { token: null });
  expect(health.status).toBe(200);
  const rows = await json(await s.api('/v1/ns/tables/people/rows'));
  expect(rows.status).toBe(200);
  expect(rows.body.data).toEqual([]);
  const tables = await json(await s.api('/v1/ns/tables'));
  expect(tables.body.data.map((t: { name: string }) => t.name)).toEqual(['people']);
  // No spilled upload is left behind (removed once the request is done).
  const tmp = path.join(s.dataDir, 'tmp');
  await until(() => !fs.existsSync(tmp) || fs.readdirSync(tmp).filter((f) => f.startsWith('upload-')).length === 0, 'no spilled upload left', 5_000).catch(
    () => {},
  );
  expect(fs.existsSync(tmp) ? fs.readdirSync(tmp).filter((f) => f.startsWith('upload-')) : []).toEqual([]);
}

const head = (filename = 'a') => `--${B}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\n\r\n`;
const csv = (rows: number) => `name\r\n${Array.from({ length: rows }, (_, i) => `person ${i}`).join('\r\n')}\r\n`;

/** POSTs `body` with a Content-Length (as curl --data-binary does). */
const send = (target: string, body: string) => s.api(target, { method: 'POST', body, headers: { 'content-type': CT } });

/** POSTs `chunks` with Transfer-Encoding: chunked, then ends the request normally. */
function sendChunked(target: string, chunks: Array<string | Buffer>): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${s.url}${target}`,
      { method: 'POST', headers: { authorization: `Bearer ${s.token}`, 'content-type': CT, 'transfer-encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

/** Sends the start of an upload with a Content-Length larger than what is sent, then goes away. */
function abandon(target: string, sent: string): Promise<void> {
  return new Promise((resolve) => {
    const req = http.request(`${s.url}${target}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${s.token}`, 'content-type': CT, 'content-length': String(sent.length * 4) },
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(sent, () => setImmediate(() => req.destroy()));
  });
}

const DB_IMPORT = '/v1/namespaces/ns/import';
const CSV_IMPORT = '/v1/namespaces/ns/import?table=people';

describe.each([
  ['the database import', DB_IMPORT],
  ['the CSV import', CSV_IMPORT],
])('a broken multipart upload to %s', (_, target) => {
  it('cut in the middle of the part (the issue’s case): 400 naming the end of the upload', async () => {
    const r = await json(await send(target, `${head()}abc`));
    expect(r.status).toBe(400);
    expect(r.body).toEqual({ error: 'invalid_request', message: expect.stringMatching(/multipart body ends before .*closing boundary/) });
    await serving();
  });

  it('a complete file that only lacks the closing boundary', async () => {
    const r = await json(await send(target, `${head()}${csv(3)}\r\n`));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    expect(r.body.message).toMatch(/closing boundary/);
    await serving();
  });

  it('a part larger than the memory limit, cut before its end (spilled to a temporary file)', async () => {
    const r = await json(await send(target, `${head()}${csv(20_000)}`));
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/closing boundary/);
    await serving();
  });

  it('a chunked upload that ends mid-part', async () => {
    const r = await sendChunked(target, [head(), 'name\r\n', 'someone\r\n']);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/closing boundary/);
    await serving();
  });

  it('a part whose headers are cut', async () => {
    const r = await json(await send(target, `--${B}\r\nContent-Disposition: form-data; name="fi`));
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    await serving();
  });

  it('a client that goes away mid-upload', async () => {
    await abandon(target, `${head()}${csv(100)}`);
    await serving();
  });
});

describe('a download whose client goes away', () => {
  it('the database export and a backup download: the server serves on', async () => {
    for (const target of ['/v1/namespaces/ns/export']) {
      await new Promise<void>((resolve) => {
        const req = http.get(`${s.url}${target}`, { headers: { authorization: `Bearer ${s.token}` } }, (res) => {
          res.once('data', () => {
            res.destroy();
            resolve();
          });
          res.once('end', () => resolve());
        });
        req.on('error', () => resolve());
      });
      await serving();
    }
  });
});
