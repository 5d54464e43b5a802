/**
 * Namespaces on nodes (issue 18): two Hearth servers (nodes `node-a` and `node-b`, each with its own data folder) on
 * one PostgreSQL core store. Each registers itself and shows both nodes in `/healthz` and `/metrics`; a namespace
 * created without `node` goes to the node holding the fewest, which creates its database on hearing of it and serves
 * it, while the other node forwards its requests there, refuses to open it (421 `namespace_elsewhere`) and answers
 * `ownerOf` with the owner's URL;
 * `node` in the request is checked (unknown: 400, stopped: 409, and the stop is told to `onNodeDown` listeners); a
 * namespace deleted through the other node loses its files on its own.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Postgres, startPostgres } from '../../helpers/postgres.ts';
import { sharedSecrets } from '../../helpers/replicas.ts';
import { startTestServer, type TestServer } from '../../helpers/server.ts';
import { until } from '../../helpers/wait.ts';

let cluster: Postgres;
let a: TestServer;
let b: TestServer;
/** The nodes A saw turn unhealthy. */
const down: string[] = [];

/** The secrets every replica of one core store shares. */
const shared = sharedSecrets();

beforeAll(async () => {
  cluster = await startPostgres();
  const databaseUrl = await cluster.createDatabase();
  const token = `test-admin-${crypto.randomBytes(16).toString('hex')}`;
  a = await startTestServer({ databaseUrl, adminToken: token, nodeId: 'node-a', nodeHealthyMs: 5000, ...shared });
  b = await startTestServer({ databaseUrl, adminToken: token, nodeId: 'node-b', nodeHealthyMs: 5000, ...shared });
  a.services.db.onNodeDown((n) => down.push(n.node));
}, 120_000);
afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await cluster?.stop();
});

interface NodeHealth {
  id: string;
  url: string;
  healthy: boolean;
  heartbeat_age_ms: number;
  namespaces: number;
  self: boolean;
}
const nodesOf = async (s: TestServer): Promise<NodeHealth[]> => (await (await s.api('/healthz')).json()).nodes;
const fileOf = (s: TestServer, fileId: string) => path.join(s.dataDir, 'namespaces', `${fileId}.db`);

describe('namespaces on nodes', () => {
  it('both nodes register and show in /healthz and /metrics', async () => {
    const nodes = await until(async () => {
      const n = await nodesOf(a);
      return n.length === 2 && n.every((x) => x.healthy) ? n : null;
    }, 'both nodes healthy in /healthz at A');
    expect(nodes.map((n) => [n.id, n.self])).toEqual([
      ['node-a', true],
      ['node-b', false],
    ]);
    expect(new URL(nodes[1]!.url).port).toBe(String(b.port));
    expect(nodes[1]!.heartbeat_age_ms).toBeLessThan(5000); // healthy: younger than HEARTH_NODE_HEALTHY_MS
    const metrics = await (await b.api('/metrics', { token: null })).text();
    expect(metrics).toMatch(/^hearth_nodes_healthy 2$/m);
  });

  it('a new namespace goes to the least-loaded node, which creates and serves it; the other refuses to open it', async () => {
    const first = await (await a.api('/v1/namespaces', { method: 'POST', json: { name: 'on_a', node: 'node-a' } })).json();
    expect(first).toMatchObject({ name: 'on_a', node: 'node-a' });
    expect(first.storage).not.toBeNull();

    const res = await a.api('/v1/namespaces', { method: 'POST', json: { name: 'placed' } });
    expect(res.status).toBe(201);
    const placed = await res.json();
    expect(placed).toMatchObject({ name: 'placed', node: 'node-b', storage: null });

    // B hears of it and creates its database; it serves the namespace, A does not open one of its own.
    const row = (await b.services.store.get<{ file_id: string }>("SELECT file_id FROM namespaces WHERE name = 'placed'"))!;
    await until(() => fs.existsSync(fileOf(b, row.file_id)), "B to create the placed namespace's database");
    expect((await b.api('/v1/placed/tables', { method: 'POST', json: { type: 'table', name: 't', columns: [{ name: 'x', type: 'integer' }] } })).status).toBe(
      201,
    );
    expect((await b.api('/v1/placed/tables')).status).toBe(200);
    // A forwards its requests to B (test/integration/db/forwarding.test.ts) and never opens a database of its own;
    // its namespace service refuses to (421 namespace_elsewhere).
    const elsewhere = await a.api('/v1/placed/tables');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.headers.get('via')).toBe('1.1 node-a');
    expect(() => a.services.db.namespaces.tenant('placed')).toThrow(expect.objectContaining({ code: 'namespace_elsewhere' }));
    expect(fs.existsSync(fileOf(a, row.file_id))).toBe(false);

    const owner = a.services.db.ownerOf('placed');
    expect(owner).toMatchObject({ node: 'node-b', healthy: true });
    expect(new URL(owner!.url).port).toBe(String(b.port));
    expect(a.services.db.ownerOf('on_a')).toMatchObject({ node: 'node-a', healthy: true });
    expect(a.services.db.ownerOf('nothing')).toBeNull();

    await until(async () => {
      const n = await nodesOf(a);
      return n.find((x) => x.id === 'node-b')?.namespaces === 1 && n.find((x) => x.id === 'node-a')?.namespaces === 1;
    }, 'one namespace on each node in /healthz');
    const metrics = await (await a.api('/metrics', { token: null })).text();
    expect(metrics).toMatch(/^hearth_node_namespaces\{node="node-b"\} 1$/m);
  });

  it('a namespace deleted through the other node loses its files on its own node', async () => {
    const row = await b.services.store.get<{ file_id: string }>("SELECT file_id FROM namespaces WHERE name = 'placed'");
    expect(fs.existsSync(fileOf(b, row!.file_id))).toBe(true);
    expect((await a.api('/v1/namespaces/placed', { method: 'DELETE' })).status).toBe(204);
    await until(() => !fs.existsSync(fileOf(b, row!.file_id)), "B to remove the deleted namespace's database");
    await until(() => b.services.db.ownerOf('placed') === null, "B's registry to forget it");
  });

  it('a requested node must be registered and healthy', async () => {
    const unknown = await a.api('/v1/namespaces', { method: 'POST', json: { name: 'x1', node: 'node-z' } });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toMatchObject({ error: 'node_unknown' });

    expect(down).toEqual([]);
    await b.close();
    const refused = await a.api('/v1/namespaces', { method: 'POST', json: { name: 'x2', node: 'node-b' } });
    expect(refused.status).toBe(409);
    const body = await refused.json();
    expect(body).toMatchObject({ error: 'node_unavailable' });
    expect(body.message).toContain('node-b');
    // Without `node`, only healthy nodes are candidates: B holds none and still is not chosen.
    const placed = await (await a.api('/v1/namespaces', { method: 'POST', json: { name: 'x3' } })).json();
    expect(placed.node).toBe('node-a');
    const nodes = await nodesOf(a);
    expect(nodes.find((n) => n.id === 'node-b')?.healthy).toBe(false);
    expect(down).toEqual(['node-b']); // told once, for the forwarding proxy to drop its connections
    expect((await (await a.api('/metrics', { token: null })).text()).match(/^hearth_nodes_healthy (\d+)$/m)?.[1]).toBe('1');
  });
});
