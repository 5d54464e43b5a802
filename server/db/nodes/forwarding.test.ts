/**
 * Which requests go to a namespace's node, and the write gate a move closes (nodes/forwarding.ts): a pause waits for
 * the writes inside and holds new ones until it ends or their wait runs out; writes that do not finish in time give
 * the pause up, with the gate open again.
 */
import { describe, expect, it } from 'vitest';
import { namespaceOfRequest, WriteGate } from './forwarding.ts';

describe('namespaceOfRequest', () => {
  it('names the namespace of the data plane and of the control-plane routes that need its file', () => {
    expect(namespaceOfRequest('GET', '/v1/shop/tables/items/rows/3')).toBe('shop');
    expect(namespaceOfRequest('POST', '/v1/shop/query')).toBe('shop');
    expect(namespaceOfRequest('GET', '/v1/shop/subscribe')).toBe('shop');
    expect(namespaceOfRequest('GET', '/v1/shop/rest/items')).toBe('shop');
    expect(namespaceOfRequest('PUT', '/v1/namespaces/shop')).toBe('shop');
    for (const sub of ['export', 'import', 'duplicate', 'move']) expect(namespaceOfRequest('POST', `/v1/namespaces/shop/${sub}`)).toBe('shop');
  });

  it('leaves the record, a delete, the listing and other routes to any node', () => {
    expect(namespaceOfRequest('GET', '/v1/namespaces/shop')).toBeNull();
    expect(namespaceOfRequest('DELETE', '/v1/namespaces/shop')).toBeNull();
    expect(namespaceOfRequest('GET', '/v1/namespaces')).toBeNull();
    expect(namespaceOfRequest('POST', '/v1/tls/renew')).toBeNull();
    expect(namespaceOfRequest('GET', '/api/admin/core/accounts')).toBeNull();
    expect(namespaceOfRequest('GET', '/v1/namespaces/tables')).toBeNull();
  });
});

describe('WriteGate', () => {
  it('a pause waits for the writes inside, holds new ones until it ends', async () => {
    const gate = new WriteGate();
    gate.enter('a');
    let paused = false;
    const pausing = gate.pause('a', 60_000).then((ok) => {
      paused = ok;
    });
    await Promise.resolve();
    expect(paused).toBe(false);
    expect(gate.paused('a')).toBe(true);
    gate.leave('a');
    await pausing;
    expect(paused).toBe(true);
    let open: boolean | undefined;
    const waiting = gate.wait('a', 60_000).then((v) => {
      open = v;
    });
    await Promise.resolve();
    expect(open).toBeUndefined();
    expect(await gate.pause('a', 1000)).toBe(false); // one pause at a time
    gate.resume('a');
    await waiting;
    expect(open).toBe(true);
    expect(gate.paused('a')).toBe(false);
  });

  it('a write waits at most its limit; writes that do not finish give the pause up', async () => {
    const gate = new WriteGate();
    expect(await gate.pause('b', 10)).toBe(true);
    expect(await gate.wait('b', 5)).toBe(false);
    gate.resume('b');
    expect(await gate.wait('b', 5)).toBe(true);
    gate.enter('b');
    expect(await gate.pause('b', 5)).toBe(false);
    expect(gate.paused('b')).toBe(false);
    gate.leave('b');
  });
});
