import { describe, expect, it } from 'vitest';
import { sharedReads } from './shared-reads.ts';

/** A read per call that the test answers: `value` is what the store holds when the read is answered. */
function controlled() {
  let value = 'v1';
  let inTx = false;
  const reads: Array<{ key: string; answer: () => void; fail: (err: Error) => void }> = [];
  const read = (key: string) => new Promise<string>((resolve, reject) => reads.push({ key, answer: () => resolve(`${key}=${value}`), fail: reject }));
  const shared = sharedReads(read, () => inTx);
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  return { reads, shared, settle, set: (v: string) => (value = v), tx: (on: boolean) => (inTx = on) };
}

describe('sharedReads', () => {
  it('answers a burst with two reads: the one running, and one started after it for everything asked meanwhile', async () => {
    const { reads, shared, settle } = controlled();
    const first = shared('k');
    const burst = Array.from({ length: 7 }, () => shared('k'));
    await settle();
    expect(reads).toHaveLength(1);
    reads[0]!.answer();
    expect(await first).toBe('k=v1');
    await settle();
    expect(reads).toHaveLength(2);
    reads[1]!.answer();
    expect(await Promise.all(burst)).toEqual(Array(7).fill('k=v1'));
    // Nothing running: the next caller starts a read of its own.
    const alone = shared('k');
    await settle();
    expect(reads).toHaveLength(3);
    reads[2]!.answer();
    expect(await alone).toBe('k=v1');
  });

  it('never answers a caller from a read that began before it asked', async () => {
    const { reads, shared, settle, set } = controlled();
    const early = shared('k');
    await settle();
    // A write commits while the first read runs; a caller asking now must see it.
    set('v2');
    const late = shared('k');
    reads[0]!.answer();
    await settle();
    reads[1]!.answer();
    expect(await late).toBe('k=v2');
    expect(await early).toBe('k=v2');
  });

  it('keeps keys apart, reads on its own inside a transaction, and passes a failure to the callers of that read only', async () => {
    const { reads, shared, settle, tx } = controlled();
    const a = shared('a');
    const b = shared('b');
    tx(true);
    const inside = shared('a');
    tx(false);
    await settle();
    expect(reads.map((r) => r.key)).toEqual(['a', 'b', 'a']);
    reads[2]!.answer();
    expect(await inside).toBe('a=v1');
    const afterA = shared('a');
    reads[0]!.fail(new Error('connection lost'));
    await expect(a).rejects.toThrow('connection lost');
    await settle();
    reads[3]!.answer();
    expect(await afterA).toBe('a=v1');
    reads[1]!.answer();
    expect(await b).toBe('b=v1');
  });
});
