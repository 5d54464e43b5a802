/** Attachments up to the 25 MiB object limit pass the JSON body limit of the send API and arrive byte for byte. */
import crypto from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, M, type MailServer, profileBody, registerApp, startMailServer, waitMessage } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

let s: MailServer;
let peer: Peer;
let app: string;

beforeAll(async () => {
  peer = await startPeer();
  s = await startMailServer();
  await call(s, 'PUT', `${M}/profiles/main`, profileBody(peer.port, { maxAttachmentBytes: 26_214_400 }), 201);
  app = await registerApp(s, 'archive');
});
afterAll(async () => {
  await s?.stop();
  await peer?.close();
});

describe('large attachments', () => {
  it('accepts a 20 MiB attachment (27 MiB of JSON, above the general 16 MiB limit) and delivers it intact', async () => {
    const blob = crypto.randomBytes(20 * 1024 * 1024);
    const acc = await call(
      s,
      'POST',
      '/api/mail/send',
      {
        to: ['big@example.test'],
        subject: 'scan',
        text: 'attached',
        attachments: [{ filename: 'scan.bin', contentType: 'application/octet-stream', content: blob.toString('base64') }],
      },
      202,
      app,
    );
    await waitMessage(s, acc.id, (m) => m.status === 'sent', 60_000);
    const [got] = await peer.waitFor(1, 60_000);
    const att = got!.parsed.attachments[0]!;
    expect(att.filename).toBe('scan.bin');
    expect(crypto.hash('sha256', att.content, 'hex')).toBe(crypto.hash('sha256', blob, 'hex'));
  });

  it('refuses a body above 64 MiB with 413 payload_too_large', async () => {
    const r = await s.api('/api/mail/send', {
      method: 'POST',
      token: app,
      headers: { 'content-type': 'application/json', 'content-length': String(65 * 1024 * 1024) },
      body: Buffer.alloc(65 * 1024 * 1024, 0x20),
    });
    expect(r.status).toBe(413);
    expect((await r.json()).error).toBe('payload_too_large');
  });
});
