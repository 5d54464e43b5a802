/**
 * Shared by bench/rows.bench.ts and bench/csv.bench.ts: the `items` table, deterministic row data, and the HTTP
 * calls that set a namespace up.
 */
import fs from 'node:fs';
import type http from 'node:http';
import path from 'node:path';
import Database from 'better-sqlite3';
import { request } from './lib.ts';

export interface Item {
  sku: string;
  qty: number;
  price: number;
  note: string;
}

export const ITEMS_TABLE = {
  type: 'table',
  name: 'items',
  columns: [
    { name: 'sku', type: 'text' },
    { name: 'qty', type: 'integer' },
    { name: 'price', type: 'real' },
    { name: 'note', type: 'text' },
  ],
};

const WORDS = ['oak', 'pine', 'shelf', 'lamp', 'blue', 'large', 'spare', 'boxed', 'steel', 'glass', 'warm', 'quiet'];

/** Row i of the data set (deterministic): qty 0–999, price with cents, a note; every 10th note needs CSV quoting. */
export function item(i: number): Item {
  // A small integer hash, so that qty and price look random but every run writes the same rows.
  let h = Math.imul(i + 1, 0x9e3779b1) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x85ebca6b) >>> 0;
  h = (h ^ (h >>> 13)) >>> 0;
  const qty = h % 1000;
  const price = ((h >>> 10) % 100_000) / 100 + 0.01;
  const w = (k: number) => WORDS[(h >>> (k * 4)) % WORDS.length]!;
  const note = i % 10 === 0 ? `${w(1)} ${w(2)}, "${w(3)}" edition` : `${w(1)} ${w(2)} ${w(3)} ${w(4)}`;
  return { sku: `SKU-${String(i).padStart(7, '0')}`, qty, price: Math.round(price * 100) / 100, note };
}

export function items(from: number, count: number): Item[] {
  return Array.from({ length: count }, (_, k) => item(from + k));
}

export interface Hearth {
  url: string;
  agent: http.Agent;
  auth: Record<string, string>;
}

async function call(h: Hearth, method: string, url: string, body: unknown, expect: number): Promise<string> {
  const res = await request(h.agent, `${h.url}${url}`, {
    method,
    headers: { ...h.auth, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  if (res.status !== expect) throw new Error(`${method} ${url} → ${res.status} ${res.body.slice(0, 300)}`);
  return res.body;
}

/** Row i's id among `rows`: spread over the whole table. */
export const rowId = (i: number, rows: number): number => 1 + ((Math.imul(i, 2654435761) >>> 0) % rows);

/** Pre-encoded GETs of the rows of `ns`'s items table by id on `base` (request i reads `rowId(i, rows)`), with `headerLines`. */
export function rowRequests(base: string, ns: string, rows: number, headerLines: string[]): (i: number) => Buffer {
  const host = new URL(base).host;
  const head = headerLines.map((h) => `${h}\r\n`).join('');
  const all = Array.from({ length: rows }, (_, k) =>
    Buffer.from(`GET /v1/${ns}/tables/items/rows/${k + 1} HTTP/1.1\r\nHost: ${host}\r\n${head}\r\n`, 'latin1'),
  );
  return (i) => all[rowId(i, rows) - 1]!;
}

/** Creates namespace `ns` with the `items` table. */
export async function createItemsNamespace(h: Hearth, ns: string): Promise<void> {
  await call(h, 'POST', '/v1/namespaces', { name: ns }, 201);
  await call(h, 'POST', `/v1/${ns}/tables`, ITEMS_TABLE, 201);
}

/** Inserts a pre-serialised `{rows: [...]}` body; resolves with the count Hearth reports. */
export async function postRows(h: Hearth, ns: string, body: string): Promise<number> {
  const res = JSON.parse(await call(h, 'POST', `/v1/${ns}/tables/items/rows`, body, 201)) as { count: number };
  return res.count;
}

/** The tenant database files of a Hearth data folder (`<data>/namespaces/*.db`). */
export function namespaceFiles(dataDir: string): string[] {
  const dir = path.join(dataDir, 'namespaces');
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.db'))
    .map((f) => path.join(dir, f));
}

/**
 * Copies the one namespace database of a Hearth data folder to `to` (VACUUM INTO, while Hearth runs), for a
 * baseline reading the same rows; returns the `items` table's CREATE TABLE statement.
 */
export function copyItemsDatabase(dataDir: string, to: string): string {
  const files = namespaceFiles(dataDir);
  if (files.length !== 1) throw new Error(`expected one namespace file, found ${files.length}`);
  const src = new Database(files[0]!, { readonly: true, fileMustExist: true });
  try {
    src.prepare('VACUUM INTO ?').run(to);
    return src.prepare("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'items'").pluck().get() as string;
  } finally {
    src.close();
  }
}
