/**
 * The attachment object store (seed 002: 48-hour object expiry, a total cap with `attachment_storage_full`, objects
 * released when mail reaches a terminal state and failed cleanups retried by recovery). Faults are real: an object file
 * removed from the data folder, and a trigger in the core store (platform.db, or PostgreSQL under HEARTH_TEST_STORE=postgres)
 * that makes the store's DELETE fail like a failing database.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addFailingTrigger, dropFailingTrigger } from '../../helpers/store-faults.ts';
import { CLOSED_PORT, call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let app: string;
let other: string;
const HOUR = 3600_000;
const blob = crypto.randomBytes(30_000);
const attachment = { filename: 'scan.bin', contentType: 'application/octet-stream', content: blob.toString('base64') };

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer({ mail: { attachmentStoreLimit: 50_000 } });
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port), 201);
  await call(s, 'PUT', `${M}/profiles/down`, profileBody(CLOSED_PORT), 201);
  app = await registerApp(s, 'crm');
  other = await registerApp(s, 'billing');
  for (const a of ['crm', 'billing']) await call(s, 'PUT', `${M}/apps/${a}/policy`, { mode: 'profiles', profiles: ['main', 'down'] });
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

const objectsDir = () => path.join(s.dataDir, 'mail-attachments');
const objectFiles = () => (fs.existsSync(objectsDir()) ? fs.readdirSync(objectsDir()) : []);
/** Every DELETE of the object store's accounting fails (the database refuses the write). */
const KEEP = { name: 'keep_objects', event: 'DELETE', table: 'mail_attachment_objects', message: 'disk I/O error' };
const keep = () => addFailingTrigger(s.services.store, KEEP);
const release = () => dropFailingTrigger(s.services.store, KEEP);
const send = (json: Record<string, unknown>, expected = 202, token = app) =>
  call(s, 'POST', '/api/mail/send', { subject: 'with attachment', text: 'x', ...json }, expected, token);

describe('attachment object store', () => {
  it('queued mail whose attachment object is gone fails at its next attempt with a clear error; nothing is sent without it', async () => {
    const acc = await send({ profile: 'down', to: ['gone@example.test'], attachments: [attachment] });
    await waitMessage(s, acc.id, (m) => m.attempts === 1 && m.status === 'queued'); // a temporary failure: retried in a minute
    expect(await s.mail.attachmentBytes()).toBe(blob.length);
    const [file] = objectFiles();
    fs.rmSync(path.join(objectsDir(), file!));

    s.advance(61_000);
    await s.mail.kick();
    const failed = await waitMessage(s, acc.id, (m) => m.status === 'failed');
    expect(failed.lastError).toMatch(/attachment object is gone/);
    expect(failed.attempts).toBe(1); // no SMTP attempt without the attachment
    await s.mail.idle(); // the terminal state is committed first, its objects are released right after
    expect(await s.mail.attachmentBytes()).toBe(0); // released with the terminal state
  });

  it('a failed cleanup after delivery keeps counting against the cap and is retried by recovery', async () => {
    await keep();
    let acc: any;
    try {
      acc = await send({ to: ['kept@example.test'], attachments: [attachment] });
      await waitMessage(s, acc.id, (m) => m.status === 'sent');
      await s.mail.idle();
      expect(await s.mail.attachmentBytes()).toBe(blob.length);
      // the store is full for every application while the object is accounted
      const full = await s.api('/api/mail/send', {
        method: 'POST',
        token: other,
        json: { to: ['x@example.test'], subject: 's', text: 't', attachments: [attachment] },
      });
      expect(full.status).toBe(507);
      expect((await full.json()).error).toBe('attachment_storage_full');
      await s.mail.recover(); // still failing: nothing lost, nothing released
      expect(await s.mail.attachmentBytes()).toBe(blob.length);
    } finally {
      await release();
    }
    await s.mail.recover();
    expect(await s.mail.attachmentBytes()).toBe(0);
    expect(objectFiles()).toEqual([]);
    const after = await send({ to: ['after@example.test'], attachments: [attachment] }, 202, other);
    await waitMessage(s, after.id, (m) => m.status === 'sent');
    await s.mail.idle();
    expect(await s.mail.attachmentBytes()).toBe(0);
  });

  it('objects are deleted 48 hours after they were stored, also when no record releases them any more; the cap frees up then', async () => {
    await keep();
    try {
      const acc = await send({ to: ['orphan@example.test'], attachments: [attachment] });
      await waitMessage(s, acc.id, (m) => m.status === 'sent');
      await s.mail.idle();
      // record retention deletes the record while the object cannot be released: the object is left without a record
      await call(s, 'PUT', `${M}/retention`, { contentDays: 1, recordDays: 1 });
      s.advance(25 * HOUR);
      await s.mail.runRetention();
      expect((await s.api(`${M}/messages/${acc.id}`)).status).toBe(404);
    } finally {
      await release();
    }
    await s.mail.recover();
    expect(await s.mail.attachmentBytes()).toBe(blob.length); // 25 hours old: kept
    const e = await s.api('/api/mail/send', {
      method: 'POST',
      token: app,
      json: { to: ['x@example.test'], subject: 's', text: 't', attachments: [attachment] },
    });
    expect(e.status).toBe(507);
    expect((await e.json()).error).toBe('attachment_storage_full');
    await send({ to: ['plain@example.test'] }); // mail without attachments still goes

    s.advance(23 * HOUR - 60_000);
    await s.mail.recover();
    expect(await s.mail.attachmentBytes()).toBe(blob.length); // a minute short of 48 hours: kept
    s.advance(60_000);
    await s.mail.recover();
    expect(await s.mail.attachmentBytes()).toBe(0); // 48 hours: expired
    await send({ to: ['later@example.test'], attachments: [attachment] });
    await s.mail.idle();
  });
});
