/**
 * The CSV import's own streams and worker, fed broken input beside their code: a spilled upload whose file is gone, a
 * source that fails mid-file, a parser that errors (an unclosed quote at the end), and the database's refusals in
 * the worker. Each is an error of the import (a HearthError for the answer), never an `error` event nobody hears: the
 * process lives on. And the write gate's hold that keeps the namespace's other writes waiting meanwhile.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HearthError } from '../../core/http/errors.ts';
import type { Upload } from '../../core/http/multipart.ts';
import { Database } from '../../core/storage/sqlite.ts';
import { NamespaceConfig } from '../namespaces/namespaces.schemas.ts';
import { WriteGate } from '../nodes/forwarding.ts';
import { requireObject } from '../schema/catalog.ts';
import { runCsvImport } from './csv.ts';
import { csvRefusal, csvSource, scanCsv } from './csv-scan.ts';

let dir: string;
let file: string;
const config = NamespaceConfig.parse({ busy_timeout: 2000 });
const uncaught: unknown[] = [];
const onUncaught = (err: unknown) => uncaught.push(err);

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hearth-csv-'));
  file = path.join(dir, 'ns.db');
  const db = new Database(file);
  db.pragma('journal_mode = wal');
  db.exec('CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, age INTEGER CHECK (age >= 0))');
  db.close();
  process.on('uncaughtException', onUncaught);
  process.on('unhandledRejection', onUncaught);
});
afterAll(() => {
  process.off('uncaughtException', onUncaught);
  process.off('unhandledRejection', onUncaught);
  fs.rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  expect(uncaught).toEqual([]);
});

const count = () => {
  const db = new Database(file, { readonly: true });
  try {
    return db.prepare('SELECT count(*) FROM people').pluck().get() as number;
  } finally {
    db.close();
  }
};
const memory = (text: string): Upload => {
  const buffer = Buffer.from(text);
  return { kind: 'memory', buffer, size: buffer.length, filename: 'p.csv', sha256: '' };
};
const spilled = (at: string): Upload => ({ kind: 'file', path: at, size: 10, filename: 'p.csv', sha256: '' });
const table = () => {
  const db = new Database(file, { readonly: true });
  try {
    return requireObject(db, 'people');
  } finally {
    db.close();
  }
};
async function refusal(p: Promise<unknown>): Promise<HearthError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HearthError);
  return err as HearthError;
}

describe('runCsvImport (the worker thread)', () => {
  it('a spilled upload whose file vanished is a 500 of the import, and nothing is written', async () => {
    const err = await refusal(runCsvImport({ file, config, table: 'people', upload: spilled(path.join(dir, 'gone.csv')) }));
    expect(err.code).toBe('internal_error');
    expect(err.message).toMatch(/^the uploaded file could not be read \(ENOENT\)/);
    expect(count()).toBe(0);
  });

  it('inserts the rows of an upload held in memory, which moves to the worker', async () => {
    const upload = memory(`name,age\n${Array.from({ length: 5000 }, (_, i) => `p${i},${i % 90}`).join('\n')}\n`);
    expect(await runCsvImport({ file, config, table: 'people', upload })).toBe(5000);
    expect(count()).toBe(5000);
    expect((upload as { buffer: Buffer }).buffer.length).toBe(0);
  });

  it('reads a spilled upload from its file', async () => {
    const at = path.join(dir, 'more.csv');
    fs.writeFileSync(at, 'name,age\nspilled one,1\nspilled two,2\n');
    expect(await runCsvImport({ file, config, table: 'people', upload: spilled(at) })).toBe(2);
    expect(count()).toBe(5002);
  });

  it("answers the database's first refusal as writeError maps it; the file's bad values come first", async () => {
    const dup = await refusal(runCsvImport({ file, config, table: 'people', upload: memory('name,age\nfresh,1\np1,2\n') }));
    expect(dup.code).toBe('unique_violation');
    const both = await refusal(runCsvImport({ file, config, table: 'people', upload: memory('name,age\np1,2\nlater,abc\n') }));
    expect(both.code).toBe('invalid_csv');
    expect(both.message).toBe('line 3, column "age": expected an integer, got "abc"');
    const missing = await refusal(runCsvImport({ file, config, table: 'people', upload: memory('age\n3\n') }));
    expect([missing.code, missing.message]).toEqual(['not_null_violation', 'people.name must not be null (it is missing)']);
    const check = await refusal(runCsvImport({ file, config, table: 'people', upload: memory('name,age\nneg,-1\n') }));
    expect(check.code).toBe('check_violation');
    expect(count()).toBe(5002);
  });

  it('a table that is missing, and a database file that is missing, are refused without a crash', async () => {
    expect((await refusal(runCsvImport({ file, config, table: 'ghosts', upload: memory('a\n1\n') }))).code).toBe('table_not_found');
    const gone = await runCsvImport({ file: path.join(dir, 'none.db'), config, table: 'people', upload: memory('name\nx\n') }).then(
      () => null,
      (e: unknown) => e as Error & { code?: string },
    );
    expect(gone).toBeInstanceOf(Error);
    expect(gone!.code).toBe('SQLITE_CANTOPEN');
  });
});

describe('scanCsv (the streams)', () => {
  const noWrite = () => {
    throw new Error('nothing may be written');
  };

  it('a source that fails mid-file is a HearthError, not an unheard error event', async () => {
    let sent = false;
    const source = new Readable({
      read() {
        if (!sent) {
          sent = true;
          this.push('name,age\nann,1\n');
        } else this.destroy(Object.assign(new Error('read failed'), { code: 'EIO' }));
      },
    });
    const rows: unknown[][] = [];
    const err = await refusal(scanCsv(source, table(), (values) => rows.push(values)));
    expect([err.code, err.message]).toEqual(['internal_error', 'the uploaded file could not be read (EIO); nothing was imported']);
    expect(source.destroyed).toBe(true);
  });

  it('a parser that errors (an unclosed quote at the end of the file) is a problem of the file', async () => {
    const scan = await scanCsv(csvSource({ bytes: Buffer.from('name,age\n"never closed,1\n') }), table(), noWrite);
    expect(scan.total).toBe(1);
    const err = csvRefusal(scan)!;
    expect([err.code, err.message]).toEqual(['invalid_csv', 'line 2: a quoted field is never closed (a " is missing)']);
  });

  it('a bad header throws at once; an empty file is refused', async () => {
    const err = await refusal(scanCsv(csvSource({ bytes: Buffer.from('name,nope\nx,1\n') }), table(), noWrite));
    expect([err.code, err.message]).toEqual(['invalid_csv', 'line 1: people has no column "nope"']);
    const empty = await scanCsv(csvSource({ bytes: new Uint8Array(0) }), table(), noWrite);
    expect(csvRefusal(empty)?.message).toBe('the file is empty: the first line must name the columns');
  });

  it('reads a buffer in slices, so a long file streams: every line, in order', async () => {
    const lines = Array.from({ length: 20_000 }, (_, i) => `"name ${i}, quoted",${i % 100}`);
    const got: unknown[][] = [];
    const scan = await scanCsv(csvSource({ bytes: Buffer.from(`name,age\r\n${lines.join('\r\n')}\r\n`) }), table(), (v) => got.push(v));
    expect(scan.total).toBe(0);
    expect(got).toHaveLength(20_000);
    expect(got[12_345]).toEqual(['name 12345, quoted', 45]);
  });
});

describe('WriteGate: the hold a CSV import takes', () => {
  let gate: WriteGate;
  beforeEach(() => {
    gate = new WriteGate();
  });

  it('waits for the other writes inside, not the holder; new writes wait until it is released', async () => {
    gate.enter('a'); // the import
    gate.enter('a'); // another write, already running
    let held: (() => void) | undefined;
    const holding = gate.hold('a', 60_000).then((release) => {
      held = release;
    });
    await Promise.resolve();
    expect(held).toBeUndefined();
    expect(gate.paused('a')).toBe(true);
    gate.leave('a');
    await holding;
    expect(gate.held('a')).toBe(true);
    expect(gate.holds).toBe(1);
    let open: boolean | undefined;
    const waiting = gate.wait('a', 60_000).then((v) => {
      open = v;
    });
    await Promise.resolve();
    expect(open).toBeUndefined();
    held!();
    held!(); // once
    await waiting;
    expect(open).toBe(true);
    expect(gate.paused('a')).toBe(false);
    gate.leave('a');
  });

  it('a write waiting for a hold past its limit is the busy answer (503 with Retry-After)', async () => {
    gate.enter('b');
    const release = await gate.hold('b', 10);
    const err = await refusal(gate.wait('b', 5));
    expect([err.code, err.status, err.headers]).toEqual(['service_unavailable', 503, { 'Retry-After': '1' }]);
    release();
    expect(await gate.wait('b', 5)).toBe(true);
  });

  it('holds take turns; a holder waiting for its turn does not keep a move from pausing', async () => {
    gate.enter('c'); // the first import
    gate.enter('c'); // a second one, its upload still arriving
    let first: (() => void) | undefined;
    const firstHold = gate.hold('c', 60_000).then((r) => {
      first = r;
    });
    await Promise.resolve();
    expect(first).toBeUndefined();
    let second: (() => void) | undefined;
    const turn = gate.hold('c', 60_000).then((r) => {
      second = r;
    });
    await firstHold; // the second one waits for its turn: it no longer counts as inside
    expect(second).toBeUndefined();
    gate.leave('c');
    first!();
    await turn;
    expect(gate.held('c')).toBe(true);
    // A move pauses meanwhile: it waits for the second import, which is inside again.
    let paused: boolean | undefined;
    const pausing = gate.pause('c', 60_000).then((ok) => {
      paused = ok;
    });
    await Promise.resolve();
    expect(paused).toBeUndefined();
    second!();
    expect(gate.paused('c')).toBe(true); // released, but the pause still closes the gate
    gate.leave('c');
    await pausing;
    expect(paused).toBe(true);
    gate.resume('c');
    expect(gate.paused('c')).toBe(false);
  });
});
