/**
 * Nodes in the admin UI (issue 18): two Hearth servers, `node-a` and `node-b`, each with its own data folder, on one
 * private PostgreSQL core store. Signed in at node-a, the admin sees both nodes on Home (this one marked, address,
 * health with the heartbeat, namespaces held, version), a Node column on the namespaces page; creates a namespace on
 * the node chosen in the dialog (only healthy nodes can be chosen); moves one to the other node ("Move to…", a
 * confirmation that writes pause briefly, the bytes copied and the pause in a toast). Once node-b is stopped, a create
 * dialog that had chosen it says in words that it is not responding, Home's next health poll shows it as not
 * responding, in words, and the namespaces page marks its namespaces unavailable and no longer offers it. axe finds no serious or critical violation in the card, the column or the dialogs. Screenshots:
 * test-results/e2e/screenshots/nodes-*.png.
 *
 * A single node shows none of this (home-shell.spec.ts and namespaces.spec.ts run on one).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { type APIRequestContext, expect, type Page, test } from '@playwright/test';
import { type Postgres, startPostgres } from '../helpers/postgres.ts';
import { shooter, watchConsole } from './console-and-shots.ts';
import { type SpecServer, startSpecServer } from './hearth-server.ts';
import { signIn } from './sign-in.ts';

const TOKEN = `e2e-nodes-${crypto.randomBytes(24).toString('hex')}`;
const BLOCKING = new Set(['serious', 'critical']);
/** Short, so a node that stops heartbeating turns unhealthy soon (a graceful stop is recorded at once anyway). */
const HEALTHY_MS = 3000;

let cluster: Postgres | null = null;
let a: SpecServer | null = null;
let b: SpecServer | null = null;
const dirs: string[] = [];

test.describe.configure({ mode: 'serial' });

test.beforeAll(async () => {
  test.setTimeout(360_000);
  cluster = await startPostgres();
  const databaseUrl = await cluster.createDatabase();
  // The secrets every replica of one core store shares.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HEARTH_ADMIN_TOKEN: TOKEN,
    HEARTH_DATABASE_URL: databaseUrl,
    HEARTH_NODE_HEALTHY_MS: String(HEALTHY_MS),
    APP_SECRET: crypto.randomBytes(32).toString('hex'),
    HEARTH_IDENTITY_KEY_ENCRYPTION_KEY: crypto.randomBytes(32).toString('hex'),
    HEARTH_OAUTH_BROKER_SECRET: crypto.randomBytes(32).toString('hex'),
  };
  const start = (node: string) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `hearth-e2e-${node}-`));
    dirs.push(dir);
    return startSpecServer(['--port', '0', '--data', dir, '--log-level', 'warn'], { ...env, HEARTH_NODE_ID: node });
  };
  a = await start('node-a');
  b = await start('node-b');
});

test.afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await cluster?.stop();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

interface NodeHealth {
  id: string;
  healthy: boolean;
  namespaces: number;
}
const auth = () => ({ Authorization: `Bearer ${TOKEN}` });
const nodesAt = async (request: APIRequestContext, s: SpecServer): Promise<NodeHealth[]> => (await (await request.get(`${s.publicUrl}/healthz`)).json()).nodes;

const nodesCard = (page: Page) => page.getByRole('region', { name: 'Nodes' });
const nodeRow = (page: Page, id: string) =>
  nodesCard(page)
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name: new RegExp(`^${id}`) }) });
const nsRow = (page: Page, name: string) =>
  page
    .getByRole('table', { name: 'Namespaces' })
    .getByRole('row')
    .filter({ has: page.getByRole('rowheader', { name, exact: true }) });

async function axe(page: Page, scope: string): Promise<string[]> {
  const { violations } = await new AxeBuilder({ page }).include(scope).analyze();
  return violations.filter((v) => BLOCKING.has(v.impact ?? '')).flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${n.target.join(' ')}`));
}

const shot = shooter('nodes');

test('two nodes show on Home and the namespaces page; a namespace is created on the chosen node; a stopped node shows as not responding', async ({
  page,
  request,
}) => {
  const errors = watchConsole(page);
  const base = a!.publicUrl;
  await expect
    .poll(async () => (await nodesAt(request, a!)).map((n) => `${n.id}:${n.healthy}`), { message: 'both nodes healthy at node-a' })
    .toEqual(['node-a:true', 'node-b:true']);
  for (const name of ['ledger', 'notes']) {
    const made = await request.post(`${base}/v1/namespaces`, { headers: auth(), data: { name, node: 'node-a' } });
    expect(made.status(), await made.text()).toBe(201);
  }

  // The health poll is the page's clock: fast-forwarding it is what makes the page read /healthz again.
  await page.clock.install();
  await signIn(page, { token: TOKEN }, { base });

  // Home: both nodes, this one marked, each healthy with its heartbeat, the namespaces it holds and its version.
  await expect(nodesCard(page)).toBeVisible();
  await expect(nodesCard(page).getByText('2 nodes, all healthy')).toBeVisible();
  const rowA = nodeRow(page, 'node-a');
  await expect(rowA.getByRole('rowheader')).toHaveText(/node-a\s*This node/);
  await expect(rowA).toContainText(new URL(a!.url).port);
  await expect(rowA).toContainText(/Healthy\s*heartbeat (just now|\d+ s ago)/);
  await expect(rowA.getByRole('cell').nth(2)).toHaveText('2');
  const version = (await (await request.get(`${base}/healthz`)).json()).version as string;
  await expect(rowA.getByRole('cell').nth(3)).toHaveText(version);
  const rowB = nodeRow(page, 'node-b');
  await expect(rowB.getByRole('rowheader')).toHaveText('node-b');
  await expect(rowB).toContainText(new URL(b!.url).port);
  await expect(rowB).toContainText(/Healthy\s*heartbeat/);
  await expect(rowB.getByRole('cell').nth(2)).toHaveText('0');
  expect(await axe(page, 'section[aria-labelledby="nodes-title"]')).toEqual([]);
  await shot(page, 'home');

  // The namespaces page: a Node column; the create dialog offers the nodes, automatic by default.
  await page.getByRole('link', { name: 'Namespaces', exact: true }).click();
  await expect(page.getByRole('columnheader', { name: 'Node' })).toBeVisible();
  await expect(nsRow(page, 'ledger').getByRole('cell').filter({ hasText: 'node-a' })).toHaveCount(1);
  await page.getByRole('button', { name: 'New namespace' }).click();
  const dialog = page.getByRole('dialog', { name: 'New namespace' });
  const select = dialog.getByLabel('Node');
  await expect(select).toHaveValue('');
  await expect(select.locator('option')).toHaveText([
    'Least loaded (Hearth chooses a healthy node)',
    'node-a — 2 namespaces, this node',
    'node-b — 0 namespaces',
  ]);
  expect(await axe(page, 'dialog[open]')).toEqual([]);
  await dialog.getByLabel('Name').fill('orders');
  await select.selectOption('node-b');
  const created = page.waitForResponse((r) => r.url() === `${base}/v1/namespaces` && r.request().method() === 'POST');
  await dialog.getByRole('button', { name: 'Create namespace' }).click();
  const res = await created;
  expect(res.status()).toBe(201);
  expect(res.request().postDataJSON()).toEqual({ name: 'orders', node: 'node-b' });
  const record = await (await request.get(`${base}/v1/namespaces/orders`, { headers: auth() })).json();
  expect(record.node).toBe('node-b');

  await page.goto(`${base}/namespaces`);
  await expect(nsRow(page, 'orders').getByRole('cell').filter({ hasText: 'node-b' })).toHaveCount(1);
  await expect(nsRow(page, 'ledger').getByRole('cell').filter({ hasText: 'node-a' })).toHaveCount(1);
  expect(await axe(page, 'table[aria-label="Namespaces"]')).toEqual([]);
  await shot(page, 'namespaces');

  // "Move to…": the dialog offers the other healthy node, says that writes pause briefly, and the toast tells the result.
  await nsRow(page, 'ledger').getByRole('button', { name: 'More actions for ledger' }).click();
  await page.getByRole('menu', { name: 'More actions for ledger' }).getByRole('menuitem', { name: 'Move to…' }).click();
  const move = page.getByRole('dialog', { name: 'Move ledger to another node' });
  await expect(move).toContainText('Its database is on node-a.');
  await expect(move).toContainText('writes to ledger pause briefly');
  await expect(move.getByLabel('Move to')).toHaveValue('node-b');
  await expect(move.getByRole('option', { name: /^node-a/ })).toBeDisabled();
  expect(await axe(page, 'dialog[open]')).toEqual([]);
  await shot(page, 'move');
  await move.getByRole('button', { name: 'Move namespace' }).click();
  await expect(move).toBeHidden();
  const toast = page.getByRole('region', { name: 'Notifications' });
  await expect(toast).toContainText('Moved ledger to node-b');
  await expect(toast).toContainText(/\d+(\.\d+)? KiB copied from node-a; writes paused for \d+(\.\d+)? (ms|s)\./);
  await expect(nsRow(page, 'ledger').getByRole('cell').filter({ hasText: 'node-b' })).toHaveCount(1);
  expect((await (await request.get(`${base}/v1/namespaces/ledger`, { headers: auth() })).json()).node).toBe('node-b');
  await shot(page, 'moved');

  // node-b stops while Home shows it healthy, and while another tab's create dialog has it chosen.
  const other = await page.context().newPage();
  const otherErrors = watchConsole(other);
  await signIn(other, { token: TOKEN }, { base, at: '/namespaces', lands: 'Namespaces' });
  await other.getByRole('button', { name: 'New namespace' }).click();
  const late = other.getByRole('dialog', { name: 'New namespace' });
  await late.getByLabel('Name').fill('late');
  await late.getByLabel('Node').selectOption('node-b');
  await page.getByRole('link', { name: 'Home', exact: true }).click();
  await expect(nodeRow(page, 'node-b')).toContainText(/Healthy\s*heartbeat/);
  await b!.stop();
  await expect.poll(async () => (await nodesAt(request, a!)).find((n) => n.id === 'node-b')?.healthy, { message: 'node-a to see node-b down' }).toBe(false);

  // The dialog's refusal is said next to the field, in words; nothing is created.
  await late.getByRole('button', { name: 'Create namespace' }).click();
  await expect(late.getByLabel('Node')).toHaveAccessibleErrorMessage(/Node “node-b” is not responding, so the namespace cannot be placed there\./);
  expect((await request.get(`${base}/v1/namespaces/late`, { headers: auth() })).status()).toBe(404);
  await shot(other, 'create-node-down');
  await other.close();
  expect(otherErrors).toEqual([]);

  // Home's next health poll (no reload) shows node-b not responding, in words.
  await page.clock.fastForward(30_000);
  await expect(nodeRow(page, 'node-b')).toContainText(/Not responding\s*last heartbeat/);
  await expect(nodeRow(page, 'node-a')).toContainText('Healthy');
  await expect(nodesCard(page).getByText('2 nodes, 1 not responding')).toBeVisible();
  await expect(nodesCard(page).getByRole('note')).toContainText('node-b is not responding: the 2 namespaces placed there answer “unavailable”');
  expect(await axe(page, 'section[aria-labelledby="nodes-title"]')).toEqual([]);
  await shot(page, 'home-node-down');

  // The namespaces page marks its namespace unavailable, and node-b can no longer be chosen.
  await page.getByRole('link', { name: 'Namespaces', exact: true }).click();
  await expect(nsRow(page, 'orders')).toContainText(/node-b\s*Unavailable/);
  await expect(nsRow(page, 'ledger')).toContainText(/node-b\s*Unavailable/);
  await expect(nsRow(page, 'notes')).not.toContainText('Unavailable');
  await shot(page, 'namespaces-node-down');
  await page.getByRole('button', { name: 'New namespace' }).click();
  await expect(dialog.getByRole('option', { name: 'node-b — 2 namespaces, not responding' })).toBeDisabled();
  expect(errors).toEqual([]);
});
