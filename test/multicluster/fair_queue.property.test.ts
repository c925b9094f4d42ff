// Properties of the multicluster work queue under random operations (fast-check), against
// a model: client-go's work queue contract per item (never two workers on one item, an item
// handed out only when dirty, nothing lost, delays and per-item backoff), across lanes that
// open and close as clusters are engaged and disengaged; and the round-robin fairness rule.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { FairQueue } from '../../src/multicluster/index.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { ItemExponentialFailureRateLimiter } from '../../src/workqueue/index.js';

const CLUSTERS = ['a', 'b', 'c'] as const;
const KEYS = CLUSTERS.flatMap((c) => ['x', 'y'].map((n) => `cluster://${c}/ns/${n}`));
const clusterOf = (k: string) => k.slice('cluster://'.length, 'cluster://'.length + 1);

type Op =
  | { t: 'add'; k: string }
  | { t: 'get' }
  | { t: 'done'; i: number }
  | { t: 'addAfter'; k: string; d: number }
  | { t: 'addRateLimited'; k: string }
  | { t: 'forget'; k: string }
  | { t: 'advance'; ms: number }
  | { t: 'remove'; c: string }
  | { t: 'open'; c: string }
  | { t: 'shutDown' };

const key = fc.constantFrom(...KEYS);
const cluster = fc.constantFrom(...CLUSTERS);
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: key.map((k) => ({ t: 'add' as const, k })) },
  { weight: 4, arbitrary: fc.constant({ t: 'get' as const }) },
  { weight: 4, arbitrary: fc.nat(10).map((i) => ({ t: 'done' as const, i })) },
  {
    weight: 2,
    arbitrary: fc
      .tuple(key, fc.integer({ min: -5, max: 50 }))
      .map(([k, d]) => ({ t: 'addAfter' as const, k, d })),
  },
  { weight: 2, arbitrary: key.map((k) => ({ t: 'addRateLimited' as const, k })) },
  { weight: 1, arbitrary: key.map((k) => ({ t: 'forget' as const, k })) },
  {
    weight: 2,
    arbitrary: fc.integer({ min: 0, max: 40 }).map((ms) => ({ t: 'advance' as const, ms })),
  },
  { weight: 1, arbitrary: cluster.map((c) => ({ t: 'remove' as const, c })) },
  { weight: 1, arbitrary: cluster.map((c) => ({ t: 'open' as const, c })) },
  { weight: 1, arbitrary: fc.constant({ t: 'shutDown' as const }) },
);

const MAX_BACKOFF = 64;

async function runModel(ops: Op[]): Promise<void> {
  const clock = new FakeClock(0);
  const q = new FairQueue({
    clock,
    newRateLimiter: () => new ItemExponentialFailureRateLimiter(1, MAX_BACKOFF),
  });
  const open = new Set<string>(CLUSTERS);
  for (const c of CLUSTERS) q.addCluster(c);
  const owed = new Set<string>();
  const processing = new Set<string>();
  const waiting = new Map<string, number>();
  const failures = new Map<string, number>();
  let shutdown = false;
  let pendingGets = 0;
  const queuedCount = (): number => [...owed].filter((k) => !processing.has(k)).length;

  const startGet = (): void => {
    pendingGets++;
    void q.get().then((r) => {
      pendingGets--;
      if (r.shutdown) {
        assert.ok(shutdown, 'shutdown reported only after shutDown()');
        assert.equal(queuedCount(), 0, 'shutdown reported only once drained');
        return;
      }
      const k = r.item;
      assert.ok(!processing.has(k), `never two workers on ${k}`);
      assert.ok(owed.has(k), `${k} handed out only when dirty`);
      assert.ok(open.has(clusterOf(k)), `${k} handed out only while its cluster is engaged`);
      owed.delete(k);
      processing.add(k);
    });
  };
  const addAfter = (k: string, d: number): void => {
    if (shutdown || !open.has(clusterOf(k))) return;
    if (d <= 0) {
      owed.add(k);
      return;
    }
    const at = clock.now() + d;
    const prev = waiting.get(k);
    if (prev === undefined || at < prev) waiting.set(k, at);
  };
  const check = (): void => {
    assert.equal(q.len(), queuedCount(), 'len counts each dirty, unprocessed key once');
    assert.equal(q.processingLen(), processing.size);
    assert.equal(q.waitingLen(), waiting.size);
    assert.ok(pendingGets === 0 || q.len() === 0, 'no worker waits while items are queued');
    for (const k of KEYS) assert.equal(q.numRequeues(k), failures.get(k) ?? 0, `requeues of ${k}`);
  };

  for (const o of ops) {
    switch (o.t) {
      case 'add':
        q.add(o.k);
        if (!shutdown && open.has(clusterOf(o.k))) owed.add(o.k);
        break;
      case 'get':
        startGet();
        break;
      case 'done': {
        const list = [...processing];
        if (list.length === 0) break;
        const k = list[o.i % list.length]!;
        q.done(k);
        processing.delete(k);
        if (!open.has(clusterOf(k))) owed.delete(k);
        break;
      }
      case 'addAfter':
        q.addAfter(o.k, o.d);
        addAfter(o.k, o.d);
        break;
      case 'addRateLimited': {
        if (!open.has(clusterOf(o.k))) {
          q.addRateLimited(o.k);
          break;
        }
        const n = failures.get(o.k) ?? 0;
        failures.set(o.k, n + 1);
        q.addRateLimited(o.k);
        addAfter(o.k, Math.min(2 ** n, MAX_BACKOFF));
        break;
      }
      case 'forget':
        q.forget(o.k);
        failures.delete(o.k);
        break;
      case 'advance': {
        const target = clock.now() + o.ms;
        for (const [k, at] of waiting) {
          if (at <= target) {
            waiting.delete(k);
            owed.add(k);
          }
        }
        await clock.advance(o.ms);
        break;
      }
      case 'remove':
        q.removeCluster(o.c);
        open.delete(o.c);
        for (const k of [...owed]) if (clusterOf(k) === o.c && !processing.has(k)) owed.delete(k);
        for (const k of [...waiting.keys()]) if (clusterOf(k) === o.c) waiting.delete(k);
        for (const k of [...failures.keys()]) if (clusterOf(k) === o.c) failures.delete(k);
        break;
      case 'open':
        q.addCluster(o.c);
        open.add(o.c);
        break;
      case 'shutDown':
        shutdown = true;
        waiting.clear();
        q.shutDown();
        break;
    }
    await flushAsync(1);
    check();
  }

  if (!shutdown) {
    for (const [k] of waiting) owed.add(k);
    waiting.clear();
    await clock.advance(MAX_BACKOFF + 100);
    shutdown = true;
    q.shutDown();
  }
  await flushAsync(1);
  for (let guard = 0; guard < 100; guard++) {
    for (const k of [...processing]) {
      q.done(k);
      processing.delete(k);
      if (!open.has(clusterOf(k))) owed.delete(k);
    }
    if (pendingGets === 0) {
      const r = await q.get();
      if (r.shutdown) break;
      assert.ok(owed.delete(r.item), 'drained item was dirty');
      processing.add(r.item);
    }
    await flushAsync(1);
  }
  await flushAsync(1);
  assert.equal(owed.size, 0, `every dirty item was processed, left: ${[...owed].join(',')}`);
  assert.equal(pendingGets, 0, 'every waiting get() was answered');
  assert.equal(clock.pendingTimers(), 0, 'no timer left after shutDown');
}

describe('FairQueue properties (fast-check)', () => {
  test('random adds, gets, dones, delays, backoffs, lanes removed and opened keep the work queue contract', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), (ops) => runModel(ops)),
      { numRuns: 200 },
    );
  });

  test('round robin: while two lanes both still hold items, the numbers served from them differ by at most one', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(40), { minLength: 1, maxLength: 6 }), async (depths) => {
        const q = new FairQueue({ clock: new FakeClock(0) });
        const left = new Map<string, number>();
        for (const [i, depth] of depths.entries()) {
          const c = `c${i}`;
          q.addCluster(c);
          for (let j = 0; j < depth; j++) q.add(`cluster://${c}/ns/o${j}`);
          left.set(c, depth);
        }
        const served = new Map<string, number>();
        while (q.len() > 0) {
          const r = await q.get();
          assert.ok(!r.shutdown);
          const c = r.item.slice('cluster://'.length).split('/')[0]!;
          served.set(c, (served.get(c) ?? 0) + 1);
          left.set(c, left.get(c)! - 1);
          q.done(r.item);
          const busy = [...left].filter(([, n]) => n > 0).map(([c2]) => served.get(c2) ?? 0);
          for (const [c2, n] of served) {
            if ((left.get(c2) ?? 0) === 0) continue;
            for (const other of busy)
              assert.ok(Math.abs(n - other) <= 1, `${c2} served ${n}, another busy lane ${other}`);
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
