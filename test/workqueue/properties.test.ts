import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ItemExponentialFailureRateLimiter, RateLimitingQueue } from '../../src/workqueue/index.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';

type Op =
  | { t: 'add'; k: string }
  | { t: 'get' }
  | { t: 'done'; i: number }
  | { t: 'addAfter'; k: string; d: number }
  | { t: 'addRateLimited'; k: string }
  | { t: 'forget'; k: string }
  | { t: 'advance'; ms: number }
  | { t: 'shutDown' };

const key = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 4, arbitrary: key.map((k) => ({ t: 'add' as const, k })) },
  { weight: 4, arbitrary: fc.constant({ t: 'get' as const }) },
  { weight: 4, arbitrary: fc.nat(10).map((i) => ({ t: 'done' as const, i })) },
  {
    weight: 3,
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
  { weight: 1, arbitrary: fc.constant({ t: 'shutDown' as const }) },
);

const MAX_BACKOFF = 64;

async function runModel(ops: Op[]): Promise<void> {
  const clock = new FakeClock(0);
  const q = new RateLimitingQueue<string>({
    clock,
    rateLimiter: new ItemExponentialFailureRateLimiter(1, MAX_BACKOFF),
  });
  // The model.
  const owed = new Set<string>(); // dirty: must be handed out (again)
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
      owed.delete(k);
      processing.add(k);
    });
  };
  const addAfter = (k: string, d: number): void => {
    if (shutdown) return;
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
    for (const k of ['a', 'b', 'c', 'd', 'e']) assert.equal(q.numRequeues(k), failures.get(k) ?? 0);
  };

  for (const o of ops) {
    switch (o.t) {
      case 'add':
        q.add(o.k);
        if (!shutdown) owed.add(o.k);
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
        break;
      }
      case 'addAfter':
        q.addAfter(o.k, o.d);
        addAfter(o.k, o.d);
        break;
      case 'addRateLimited': {
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
      case 'shutDown':
        shutdown = true;
        waiting.clear();
        q.shutDown();
        break;
    }
    await flushAsync(1);
    check();
  }

  // Nothing is lost: let every delay pass, shut down, and drain.
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

describe('work queue properties (fast-check)', () => {
  test('random add/get/done/addAfter/addRateLimited/shutDown keep every invariant', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 60 }), (ops) => runModel(ops)),
      { numRuns: 150 },
    );
  });

  test('shutDownWithDrain resolves exactly when the last item in processing is done', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.string({ minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.nat(), { minLength: 8, maxLength: 8 }),
        async (keys, order) => {
          const q = new RateLimitingQueue<string>({ clock: new FakeClock(0) });
          for (const k of keys) q.add(k);
          for (let i = 0; i < keys.length; i++) await q.get();
          let drained = false;
          const p = q.shutDownWithDrain().then(() => (drained = true));
          const left = [...keys];
          let i = 0;
          while (left.length > 0) {
            await flushAsync(1);
            assert.equal(drained, false, 'not drained while items are in processing');
            const [k] = left.splice((order[i++ % order.length] ?? 0) % left.length, 1);
            q.done(k!);
          }
          await p;
          assert.equal(drained, true);
          assert.deepEqual(await q.get(), { shutdown: true });
        },
      ),
      { numRuns: 100 },
    );
  });

  test('a keyed queue collapses duplicates by key and never hands one key to two workers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.nat(4), fc.boolean()), { maxLength: 80 }),
        async (steps) => {
          const q = new RateLimitingQueue<{ id: number }>({
            clock: new FakeClock(0),
            keyFn: (o) => o.id,
          });
          const holding = new Set<number>();
          for (const [id, take] of steps) {
            if (take && q.len() > 0) {
              const r = await q.get();
              assert.ok(!r.shutdown);
              assert.ok(!holding.has(r.item.id));
              holding.add(r.item.id);
            } else if (take && holding.size > 0) {
              const first = [...holding][0]!;
              holding.delete(first);
              q.done({ id: first });
            } else {
              q.add({ id });
            }
            assert.ok(q.len() <= 5, 'at most one queued entry per key');
          }
          q.shutDown();
        },
      ),
      { numRuns: 100 },
    );
  });
});
