/**
 * Several workers on one installation (seed 002, rule 10): two servers on one data folder and core store share a
 * profile's pace through the slot gate and never send a row twice; a server killed with SIGKILL while the bulk lane
 * sends loses no accepted message (the restarted one sends the rest, duplicates at most, with the same Message-ID).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../../../server/boot.ts';
import { startTestServer, tempDir, testDatabaseUrl } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';
import { M, profileBody } from './helpers.ts';
import { type Peer, startPeer } from './peer.ts';

const peers: Peer[] = [];
afterAll(async () => {
  for (const p of peers) await p.close();
});

async function json(url: string, token: string, method = 'GET', body?: unknown) {
  const r = await fetch(url, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${url}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

describe('several workers on one data folder', () => {
  it("two servers share one profile's pace through the slot gate and never send a row twice", async () => {
    // Both workers have queued mail for the same profile (each accepted half of it) and race for every slot of the
    // shared gate. The peer answers much slower than the pace (2 s against 400 ms), so a worker that won four slots in
    // a row has its four sends per profile in flight and stops claiming until one ends: the other worker must take
    // the next slots (in one process, two timers for the same slot would otherwise always fire in the same order).
    const peer = await startPeer({ dataDelayMs: 2000 });
    peers.push(peer);
    // When each attempt started, by the test's clock in the hook (late under load, never early).
    const seen: Array<{ id: string; worker: string; at: number }> = [];
    const onAttempt = (id: string, worker: string) => seen.push({ id, worker, at: Date.now() });
    const a = await startTestServer({ mail: { onAttempt, delivery: { recoveryIntervalMs: 150 } } });
    const b = await startServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: a.dataDir,
      databaseUrl: a.config.databaseUrl, // the same core store (PostgreSQL under HEARTH_TEST_STORE=postgres)
      adminToken: a.token,
      logLevel: 'silent',
      env: {},
      mail: { onAttempt, delivery: { recoveryIntervalMs: 150 } },
    });
    try {
      await json(`${a.url}${M}/profiles/paced`, a.token, 'PUT', profileBody(peer.port, { pacePerMinute: 150 })); // 400 ms
      const { token } = await json(`${a.url}${M}/apps`, a.token, 'POST', { appId: 'news', name: 'News', platformPermissions: ['mail:send'] });
      const batch = (from: number) => ({
        messages: Array.from({ length: 6 }, (_, i) => ({ to: [`p${from + i}@example.test`], subject: `p${from + i}`, text: 'x' })),
      });
      const accA = await json(`${a.url}/api/mail/enqueue`, token, 'POST', batch(0));
      const accB = await json(`${b.url}/api/mail/enqueue`, token, 'POST', batch(6));
      const acc = { messages: [...accA.messages, ...accB.messages] };
      await peer.waitFor(12, 30_000);
      // No thirteenth send can come once every row is sent (a claim takes only a queued row) and neither worker has
      // an attempt in progress (one claimed before the last row settled would be counted here).
      const ids: string[] = acc.messages.map((m: { id: string }) => m.id);
      let records: Array<{ id: string; status: string; lastAttemptAt: string | null }> = [];
      await until(
        async () => (records = await Promise.all(ids.map((id) => json(`${b.url}${M}/messages/${id}`, a.token)))).every((m) => m.status === 'sent'),
        () => `every message sent (${records.map((m) => m.status).join(', ')})`,
      );
      await Promise.all([a.services.mail.idle(), b.services.mail.idle()]);
      expect(peer.received).toHaveLength(12);
      expect(new Set(seen.map((x) => x.id)).size).toBe(12);
      expect(seen).toHaveLength(12);
      expect(new Set(seen.map((x) => x.worker)).size).toBe(2);
      // The pace, from the server's own record: each attempt's pacing slot, reserved with the time it claimed the row.
      // Slots of one profile are a full interval (400 ms at 150 a minute) apart or more, whichever worker took them.
      const slots = records.map((m) => Date.parse(m.lastAttemptAt!)).sort((x, y) => x - y);
      expect(slots.every(Number.isFinite)).toBe(true);
      for (let i = 1; i < slots.length; i++) expect(slots[i]! - slots[i - 1]!, `gap ${i} of ${slots.join(', ')}`).toBeGreaterThanOrEqual(400);
      // Every attempt the hook saw started in its row's slot, not before it.
      const slotOf = new Map(records.map((m) => [m.id, Date.parse(m.lastAttemptAt!)]));
      for (const x of seen) expect(x.at, `attempt of ${x.id}`).toBeGreaterThanOrEqual(slotOf.get(x.id)!);
    } finally {
      await b.close();
      await a.stop();
    }
  });

  it('crash safety: SIGKILL while the bulk lane sends; after a restart every accepted message arrived at least once, duplicates share the Message-ID', async () => {
    const peer = await startPeer({ dataDelayMs: 150 });
    peers.push(peer);
    const dataDir = tempDir();
    const databaseUrl = (await testDatabaseUrl()) ?? ''; // both processes on one core store; '' is platform.db
    const token = `test-admin-${crypto.randomBytes(16).toString('hex')}`;
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures', 'serve.ts');
    const children: ChildProcess[] = [];
    const boot = () =>
      new Promise<string>((resolve, reject) => {
        const child = spawn(process.execPath, [script, dataDir, token, databaseUrl], { stdio: ['ignore', 'pipe', 'inherit'] });
        children.push(child);
        let out = '';
        child.stdout!.on('data', (c: Buffer) => {
          out += c.toString();
          const line = out.split('\n')[0];
          if (out.includes('\n')) resolve(JSON.parse(line!).url as string);
        });
        child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
      });
    try {
      const url = await boot();
      await json(`${url}${M}/profiles/bulk`, token, 'PUT', profileBody(peer.port, { pacePerMinute: 1200 }));
      const app = await json(`${url}${M}/apps`, token, 'POST', { appId: 'news', name: 'News', platformPermissions: ['mail:send'] });
      const acc = await json(`${url}/api/mail/enqueue`, app.token, 'POST', {
        messages: Array.from({ length: 20 }, (_, i) => ({ to: [`c${i}@example.test`], subject: `c${i}`, text: 'x' })),
      });
      const ids = new Set<string>(acc.messages.map((m: { messageId: string }) => m.messageId));
      await peer.waitFor(5, 20_000);
      children[0]!.kill('SIGKILL');
      await new Promise((r) => children[0]!.once('exit', r));
      const atKill = peer.received.length;
      expect(atKill).toBeLessThan(20);
      const url2 = await boot();
      let sent = 0;
      await until(
        async () => (sent = (await json(`${url2}${M}/messages?status=sent&limit=100`, token)).data.length) === 20,
        () => `20 sent after the restart (${sent} are)`,
      );
      const arrived = peer.received.map((r) => r.parsed.messageId!);
      for (const id of ids) expect(arrived, id).toContain(id);
      for (const id of arrived) expect(ids.has(id)).toBe(true);
    } finally {
      for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
