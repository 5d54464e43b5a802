/**
 * Moving a namespace to another node online: `POST /v1/namespaces/{ns}/move {node}`, run by the node that
 * holds it (other replicas forward the request there), and the node-to-node routes the target answers.
 *
 * The steps, on the owner (from step 3 under the namespace's control-plane lock):
 * 1. The target must be registered and healthy (400 `node_unknown`, 409 `node_unavailable`), not this node (409
 *    `already_on_node`), and no other move of the namespace may be running (409 `move_in_progress`).
 * 2. Writes pause (nodes/forwarding.ts's gate): new writes wait, the writes inside are waited for (at most 10 s, else
 *    409 `conflict` and nothing changed). Reads go on.
 * 3. A consistent snapshot of the database (the duplicate's machinery: WAL read transaction or online backup) with
 *    its SHA-256, streamed to the target (`PUT /internal/nodes/namespaces/{ns}/file`), which writes it under a new
 *    file id, checks size and SHA-256, syncs it to disk and applies the namespace's configuration.
 * 4. The registry switches `node` and `file_id` in one transaction with the audit record (`namespace.move`), only if
 *    the namespace is still here with the same file (deleted or replaced meanwhile: 409, the target's copy dropped).
 * 5. The target re-reads the row (it serves the namespace at once), this node closes and removes its copy and ends
 *    its event streams, and the paused writes go on: forwarded to the new owner.
 * A failure before the switch (the target unreachable or refusing, a checksum that differs) is 502 `move_failed`;
 * the writes then go on here, nothing lost. The pause lasts the copy and the transfer: proportional to the size.
 *
 * The node-to-node routes are outside `/v1` and the OpenAPI description: a request must carry `Hearth-Node-Auth`, an
 * HMAC-SHA256 under a key derived from APP_SECRET (equal on every replica: checked at start) over the method, path,
 * sending node, time and file, at most 5 minutes old; the sender must hold the namespace.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingMessage } from 'node:http';
import https from 'node:https';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { AuditLog } from '../../core/audit/audit.ts';
import { actorFor } from '../../core/auth/auth.ts';
import type { Api } from '../../core/http/api.ts';
import type { AppContext } from '../../core/http/app-context.ts';
import { HearthError, quoteInput } from '../../core/http/errors.ts';
import type { Logger } from '../../core/logging/logger.ts';
import type { ForwardAgents } from '../../core/net/forward.ts';
import { removeDbFiles } from '../namespaces/handles.ts';
import { createDatabaseFile } from '../namespaces/namespaces.files.ts';
import { MovedNamespace, MoveNamespaceBody, type NamespaceConfig, NamespaceParams } from '../namespaces/namespaces.schemas.ts';
import type { Actor, NamespaceService } from '../namespaces/namespaces.service.ts';
import type { NamespaceStore } from '../namespaces/namespaces.store.ts';
import type { WriteGate } from './forwarding.ts';
import type { Nodes } from './nodes.ts';

/** How long a pause waits for the writes already running. */
const DRAIN_MS = 10_000;
const MAX_CLOCK_SKEW_MS = 5 * 60_000;
const AUTH_HEADER = 'hearth-node-auth';
const FILE_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export interface MoverDeps {
  self: string;
  /** APP_SECRET (every replica's is the same); without it no node-to-node request is accepted. */
  secret?: string;
  agents: ForwardAgents;
  nodes: Nodes;
  registry: NamespaceStore;
  namespaces: NamespaceService;
  audit: AuditLog;
  gate: WriteGate;
  logger: Logger;
  connectTimeoutMs?: number;
}

interface Signed {
  node: string;
  fileId: string;
  sha256: string;
  size: number;
}

export function createMover(deps: MoverDeps) {
  const { self, registry, namespaces, gate, logger } = deps;
  const key = deps.secret ? crypto.createHmac('sha256', deps.secret).update('hearth node-to-node v1').digest() : null;
  const moving = new Set<string>();
  const mac = (method: string, p: string, s: Signed, t: number) =>
    crypto.createHmac('sha256', key!).update([method, p, s.node, t, s.fileId, s.sha256, s.size].join('\n')).digest('hex');

  /** The signed request's claims, or 401. */
  function verify(ctx: AppContext): Signed {
    const m = /^v1 node=([^,]+),t=(\d+),file=([^,]*),sha256=([0-9a-f]*),size=(\d+),sig=([0-9a-f]{64})$/.exec(ctx.get(AUTH_HEADER));
    if (!key || !m) throw new HearthError('unauthorized', 'node-to-node requests need a valid Hearth-Node-Auth');
    const s: Signed = { node: m[1]!, fileId: m[3]!, sha256: m[4]!, size: Number(m[5]) };
    const t = Number(m[2]);
    const good = Buffer.from(mac(ctx.method, ctx.path, s, t), 'hex');
    if (!crypto.timingSafeEqual(good, Buffer.from(m[6]!, 'hex')) || Math.abs(Date.now() - t) > MAX_CLOCK_SKEW_MS) {
      throw new HearthError('unauthorized', 'node-to-node requests need a valid Hearth-Node-Auth');
    }
    return s;
  }

  /** Sends a signed request to another node; resolves with its status and JSON answer. */
  function call(url: string, method: string, p: string, s: Signed, file?: string): Promise<{ status: number; body: Record<string, unknown> }> {
    const target = new URL(p, url);
    const t = Date.now();
    const headers: http.OutgoingHttpHeaders = {
      [AUTH_HEADER]: `v1 node=${s.node},t=${t},file=${s.fileId},sha256=${s.sha256},size=${s.size},sig=${mac(method, p, s, t)}`,
      'content-length': file ? s.size : 0,
      'content-type': 'application/octet-stream',
    };
    return new Promise((resolve, reject) => {
      const lib = target.protocol === 'https:' ? https : http;
      const req = lib.request(target, { method, headers, agent: deps.agents.for(target), timeout: deps.connectTimeoutMs ?? 3000 }, (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let body: Record<string, unknown> = {};
          try {
            body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
          } catch {
            // not JSON: the status says enough
          }
          resolve({ status: res.statusCode ?? 502, body });
        });
        res.on('error', reject);
      });
      req.on('timeout', () => req.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' })));
      req.on('error', reject);
      if (file) pipeline(fs.createReadStream(file), req).catch(reject);
      else req.end();
    });
  }

  const fileRoute = (ns: string) => `/internal/nodes/namespaces/${encodeURIComponent(ns)}/file`;
  const refreshRoute = (ns: string) => `/internal/nodes/namespaces/${encodeURIComponent(ns)}/refresh`;
  const failed = (to: string, why: string) => new HearthError('move_failed', `the namespace could not be copied to node ${to}: ${why}; it stays here`);

  async function move(ns: string, to: string, actor: Actor) {
    const row = registry.get(ns);
    if (!row) throw new HearthError('namespace_not_found', `namespace ${quoteInput(ns)} does not exist`);
    if (row.node !== null && row.node !== self) throw new HearthError('namespace_elsewhere', `namespace ${quoteInput(ns)} lives on node ${row.node}`);
    if (to === self) throw new HearthError('already_on_node', `namespace ${quoteInput(ns)} is already on node ${quoteInput(to)}`);
    await deps.nodes.place(to); // registered and healthy, or 400 node_unknown / 409 node_unavailable
    const target = deps.nodes.owner(to)!;
    if (moving.has(ns)) throw new HearthError('move_in_progress', `namespace ${quoteInput(ns)} is being moved already`);
    moving.add(ns);
    try {
      // The writes inside first (an import holds the control-plane lock while it is inside the gate), then the lock.
      const started = performance.now();
      if (!(await gate.pause(ns, DRAIN_MS)))
        throw new HearthError('conflict', `writes to ${quoteInput(ns)} were still running after ${DRAIN_MS / 1000} s: try again`);
      try {
        return await namespaces.exclusive(ns, () => run(ns, target.url, to, actor, started));
      } finally {
        gate.resume(ns);
      }
    } finally {
      moving.delete(ns);
    }
  }

  async function run(ns: string, url: string, to: string, actor: Actor, started: number) {
    const current = registry.get(ns);
    if (!current) throw new HearthError('namespace_not_found', `namespace ${quoteInput(ns)} does not exist`);
    const tmp = path.join(namespaces.tmpDir, `move-${crypto.randomUUID()}.db`);
    const fileId = crypto.randomUUID();
    let sent: Signed | null = null;
    let switched = false;
    try {
      const copy = await namespaces.copyOut(ns, current.file_id, tmp);
      if (copy === 'vanished') throw new HearthError('conflict', `namespace ${quoteInput(ns)} was deleted or replaced meanwhile`);
      const sha256 = copy?.sha256 ?? (await hashFile(tmp));
      const size = fs.statSync(tmp).size;
      sent = { node: self, fileId, sha256, size };
      const installed = await call(url, 'PUT', fileRoute(ns), sent, tmp).catch((err) => {
        throw failed(to, `it cannot be reached (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
      });
      if (installed.status !== 200) throw failed(to, String(installed.body.message ?? `it answered ${installed.status}`));
      const storage = installed.body.storage ? JSON.stringify(installed.body.storage) : null;
      try {
        switched = await registry.tx(async () => {
          const ok = await registry.moveTo(ns, { node: self, fileId: current.file_id }, { node: to, fileId, storage });
          if (ok)
            await deps.audit.record({
              actor: actor.actor,
              action: 'namespace.move',
              target: ns,
              detail: { from: self, to, bytes: size, sha256 },
              requestId: actor.requestId,
            });
          return ok;
        });
      } catch (err) {
        // The commit may have happened: the store says.
        const now = await registry.fetch(ns).catch(() => undefined);
        switched = now?.node === to && now.file_id === fileId;
        if (!switched) throw err;
      }
      if (!switched) throw new HearthError('conflict', `namespace ${quoteInput(ns)} was deleted or replaced meanwhile`);
      await call(url, 'POST', refreshRoute(ns), sent).catch((err) => logger.warn({ err, ns, to }, 'the new node did not re-read the moved namespace'));
      await namespaces.movedAway(ns, current.file_id);
      const pauseMs = Math.round(performance.now() - started);
      logger.info({ ns, from: self, to, bytes: size, pauseMs }, 'namespace moved');
      return { ...(await namespaces.get(ns)), moved: { from: self, to, bytes: size, pause_ms: pauseMs } };
    } catch (err) {
      if (sent && !switched) void call(url, 'DELETE', fileRoute(ns), sent).catch(() => {});
      throw err;
    } finally {
      removeDbFiles(path.dirname(tmp), path.basename(tmp, '.db'));
    }
  }

  /** The target's side of step 3: receives, checks and installs the copy; answers its storage measurement. */
  async function install(ctx: AppContext, ns: string) {
    const s = verify(ctx);
    if (!FILE_ID.test(s.fileId) || !/^[0-9a-f]{64}$/.test(s.sha256)) throw new HearthError('invalid_request', 'a file id and a SHA-256 are required');
    await registry.refresh(ns);
    const row = registry.get(ns);
    if (!row) throw new HearthError('namespace_not_found', `namespace ${quoteInput(ns)} does not exist`);
    if (row.node !== s.node) throw new HearthError('conflict', `namespace ${quoteInput(ns)} is not on node ${s.node}`);
    const tmp = path.join(namespaces.tmpDir, `move-in-${s.fileId}.db`);
    const hash = crypto.createHash('sha256');
    let bytes = 0;
    try {
      const counter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          hash.update(chunk);
          bytes += chunk.length;
          done(null, chunk);
        },
      });
      await pipeline(ctx.req, counter, fs.createWriteStream(tmp, { mode: 0o600, flush: true }));
      const sha256 = hash.digest('hex');
      if (bytes !== s.size || sha256 !== s.sha256) throw new HearthError('invalid_database', `the copy arrived damaged (${bytes} bytes, SHA-256 ${sha256})`);
      fs.renameSync(tmp, path.join(namespaces.dir, `${s.fileId}.db`));
      const storage = createDatabaseFile(namespaces.dir, s.fileId, JSON.parse(row.config) as NamespaceConfig);
      return { file_id: s.fileId, storage };
    } catch (err) {
      fs.rmSync(tmp, { force: true });
      removeDbFiles(namespaces.dir, s.fileId);
      throw err;
    }
  }

  /** Drops a copy installed for a move that did not switch (never the namespace's current file). */
  async function discard(ctx: AppContext, ns: string) {
    const s = verify(ctx);
    if (!FILE_ID.test(s.fileId)) throw new HearthError('invalid_request', 'a file id is required');
    await registry.refresh(ns);
    if (registry.get(ns)?.file_id !== s.fileId) removeDbFiles(namespaces.dir, s.fileId);
    return { ok: true };
  }

  return {
    move,
    registerRoutes(api: Api) {
      api.route({
        method: 'post',
        path: '/v1/namespaces/:ns/move',
        operationId: 'moveNamespace',
        tags: ['Namespaces'],
        access: 'admin',
        summary: 'Move a namespace to another node',
        description:
          "With several nodes (replicas sharing one core store): copies the database to `node` while it stays online and switches the placement. Writes to the namespace pause for the copy and the transfer (proportional to its size; reads go on); a write waits up to the namespace's `busy_timeout` (at least 1 s) and then goes on at the new node, or fails with 503 `namespace_unavailable` and `Retry-After`. Nothing written is lost. See docs/api/namespaces.md.",
        params: () => NamespaceParams,
        body: () => MoveNamespaceBody,
        responses: {
          200: { description: 'Moved: the namespace record and what the move did.', schema: () => MovedNamespace },
          400: { description: '`node` is not a registered node (`node_unknown`).' },
          404: { description: 'No such namespace (`namespace_not_found`).' },
          409: {
            description:
              '`node` is not healthy (`node_unavailable`), holds it already (`already_on_node`), a move of it is running (`move_in_progress`), or it was deleted or replaced meanwhile, or its writes did not finish within 10 s (`conflict`).',
          },
          502: { description: 'The copy could not be made on `node` (`move_failed`); the namespace stays where it was.' },
          503: { description: 'The node holding it is down (`namespace_unavailable`).' },
        },
        handler: async (ctx, { params, body }) => {
          ctx.state.namespace = params.ns;
          return move(params.ns, body.node, actorFor(ctx));
        },
      });
      const router = api.router;
      router.put('/internal/nodes/namespaces/:ns/file', async (ctx) => {
        ctx.body = await install(ctx as unknown as AppContext, ctx.params.ns!);
      });
      router.delete('/internal/nodes/namespaces/:ns/file', async (ctx) => {
        ctx.body = await discard(ctx as unknown as AppContext, ctx.params.ns!);
      });
      router.post('/internal/nodes/namespaces/:ns/refresh', async (ctx) => {
        verify(ctx as unknown as AppContext);
        await registry.refresh(ctx.params.ns!);
        ctx.body = { ok: true };
      });
    },
  };
}

async function hashFile(file: string): Promise<string> {
  const hash = crypto.createHash('sha256');
  for await (const chunk of fs.createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
