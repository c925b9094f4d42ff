import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Controller, InvalidControllerOptionsError } from '../../src/controller/index.js';
import type { ControllerOptions } from '../../src/controller/index.js';
import type { KubeObject } from '../../src/client/types.js';
import { Debouncer } from '../../src/controller/debouncer.js';
import { FakeClock } from '../../src/util/clock.js';
import type { PriorityQueue } from '../../src/workqueue/index.js';
import { LowPriority } from '../../src/workqueue/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { FakeInformer, deferred, obj, until } from './support.js';

function make(extra: Partial<ControllerOptions> = {}): {
  controller: Controller;
  informer: FakeInformer<KubeObject>;
  clock: FakeClock;
  calls: { key: string; at: number }[];
  start: () => () => Promise<void>;
} {
  const clock = new FakeClock(0);
  const informer = new FakeInformer<KubeObject>();
  const calls: { key: string; at: number }[] = [];
  const controller = new Controller({
    name: 'debounced',
    clock,
    logger: noopLogger,
    reconcile: (key) => void calls.push({ key, at: clock.now() }),
    ...extra,
  }).for(informer);
  const start = (): (() => Promise<void>) => {
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    return async () => {
      stop.abort();
      await running;
    };
  };
  return { controller, informer, clock, calls, start };
}

const rv = (name: string, v: number): KubeObject => obj(name, { resourceVersion: String(v) });

describe('Controller debounceMs / maxDebounceMs (kube-rs Config::debounce)', () => {
  test('events of one key inside the window give one reconcile, on the trailing edge', async () => {
    const h = make({ debounceMs: 100 });
    const stop = h.start();
    h.informer.add(rv('a', 1));
    for (let v = 2; v <= 5; v++) {
      await h.clock.advance(40);
      h.informer.update(rv('a', v - 1), rv('a', v));
    }
    // Last event at t=160: the reconcile is due at 260.
    assert.equal(h.controller.debouncingLen(), 1);
    await h.clock.advance(99);
    await until('turns', () => true);
    assert.equal(h.calls.length, 0, 'nothing before the window closed');
    await h.clock.advance(1);
    await until('one reconcile', () => h.calls.length === 1);
    assert.deepEqual(h.calls, [{ key: 'default/a', at: 260 }]);
    await h.clock.advance(1000);
    assert.equal(h.calls.length, 1, 'exactly one');
    await stop();
  });

  test('a key that keeps changing is still reconciled maxDebounceMs after its first event', async () => {
    const h = make({ debounceMs: 100, maxDebounceMs: 300 });
    const stop = h.start();
    h.informer.add(rv('busy', 1));
    for (let v = 2; v <= 6; v++) {
      await h.clock.advance(50);
      h.informer.update(rv('busy', v - 1), rv('busy', v));
    }
    await h.clock.advance(50); // t = 300
    await until('reconciled at the cap', () => h.calls.length === 1);
    assert.equal(h.calls[0]!.at, 300);
    await stop();
  });

  test('keys are debounced independently', async () => {
    const h = make({ debounceMs: 100 });
    const stop = h.start();
    h.informer.add(rv('a', 1));
    await h.clock.advance(30);
    h.informer.add(rv('b', 1));
    await h.clock.advance(70);
    await until('a', () => h.calls.length === 1);
    await h.clock.advance(30);
    await until('b', () => h.calls.length === 2);
    assert.deepEqual(
      h.calls.map((c) => [c.key, c.at]),
      [
        ['default/a', 100],
        ['default/b', 130],
      ],
    );
    await stop();
  });

  test('requeues and enqueue() are not delayed; keys still debouncing at stop are dropped, no timer left', async () => {
    const h = make({ debounceMs: 100 });
    const stop = h.start();
    h.controller.enqueue('default/direct');
    await until('direct', () => h.calls.length === 1);
    assert.equal(h.calls[0]!.at, 0);
    h.informer.add(rv('late', 1));
    await stop();
    assert.equal(h.controller.debouncingLen(), 0);
    assert.equal(h.clock.pendingTimers(), 0);
  });

  test('maxDebounceMs below debounceMs is refused', () => {
    assert.throws(
      () =>
        new Controller({
          name: 'x',
          reconcile: () => {},
          debounceMs: 100,
          maxDebounceMs: 50,
        }),
      InvalidControllerOptionsError,
    );
  });
});

describe('debounce keeps the highest priority of the window, no priority meaning 0 (controller-runtime priority queue: max of the priorities asked; issue #34 item 8)', () => {
  const L = LowPriority;
  // Each row: the priorities of the triggers of one key inside one window → the priority
  // the key is queued with (undefined = the trigger asked for none, i.e. 0).
  const table: [string, (number | undefined)[], number][] = [
    ['one trigger without a priority', [undefined], 0],
    ['one low trigger (initial list or resync)', [L], L],
    ['a real update, then a resync inside the window', [undefined, L], 0],
    ['a resync, then a real update', [L, undefined], 0],
    ['two resyncs', [L, L], L],
    ['an explicit 0 after a low one', [L, 0], 0],
    ['a high priority, then none', [5, undefined], 5],
    ['none, then a high priority', [undefined, 5], 5],
    ['low, high, none', [L, 3, undefined], 3],
    ['two negatives: the higher one', [-5, L], -5],
    ['a negative, then none: none is 0, higher', [-5, undefined], 0],
  ];
  for (const [name, triggers, expected] of table) {
    test(`${name}: ${JSON.stringify(triggers.map((p) => p ?? 'none'))} → ${expected}`, () => {
      const clock = new FakeClock(0);
      const fired: [string, number | undefined][] = [];
      const debouncer = new Debouncer(clock, 100, 1000, (key, priority) =>
        fired.push([key, priority]),
      );
      for (const p of triggers) {
        debouncer.trigger('default/a', p);
        clock.advanceSync(10);
      }
      clock.advanceSync(100);
      assert.deepEqual(fired, [['default/a', expected]]);
      debouncer.stop();
    });
  }

  test('a real update followed by a resync in the window is reconciled before a backlog of low keys', async () => {
    const clock = new FakeClock(0);
    const informer = new FakeInformer<KubeObject>();
    const controller = new Controller({
      name: 'debounced',
      clock,
      logger: noopLogger,
      debounceMs: 100,
      reconcile: () => {},
    }).for(informer);
    const q = controller.queue as PriorityQueue<string>;
    for (let i = 0; i < 5; i++) controller.enqueue(`default/backlog-${i}`, { priority: L });
    informer.update(rv('real', 1), rv('real', 2));
    await clock.advance(10);
    informer.update(rv('real', 2), rv('real', 2)); // the resync echo: same resourceVersion
    await clock.advance(100);
    const first = await q.get();
    assert.deepEqual(
      [first.shutdown ? undefined : first.item, first.shutdown ? undefined : first.priority],
      ['default/real', 0],
    );
    q.shutDown();
  });
});

describe('Controller concurrency limit (kube-rs Config::concurrency)', () => {
  test('never more than `workers` reconciles at once, and never two for one key', async () => {
    const clock = new FakeClock(0);
    const informer = new FakeInformer<KubeObject>();
    const running = new Set<string>();
    let maxAtOnce = 0;
    let overlaps = 0;
    let reconciles = 0;
    const gates: (() => void)[] = [];
    const controller = new Controller({
      name: 'limited',
      clock,
      logger: noopLogger,
      workers: 3,
      reconcile: async (key) => {
        if (running.has(key)) overlaps++;
        running.add(key);
        maxAtOnce = Math.max(maxAtOnce, running.size);
        const gate = deferred();
        gates.push(gate.resolve);
        await gate.promise;
        running.delete(key);
        reconciles++;
      },
    }).for(informer);
    const stop = new AbortController();
    const run = controller.run(stop.signal);
    const drain = async (): Promise<void> => {
      for (let turn = 0; turn < 2000; turn++) {
        await new Promise<void>((r) => setImmediate(r));
        if (gates.length > 0) {
          for (const open of gates.splice(0)) open();
          continue;
        }
        if (controller.queue.len() === 0 && controller.queue.processingLen() === 0) return;
      }
      throw new Error('the controller did not go idle');
    };
    for (let round = 0; round < 4; round++) {
      for (let i = 0; i < 6; i++) informer.update(rv(`k${i}`, round), rv(`k${i}`, round + 1));
      await until('workers busy', () => gates.length === 3);
      // Events for keys being reconciled right now: queued again, not run alongside.
      for (let i = 0; i < 6; i++) informer.update(rv(`k${i}`, round + 1), rv(`k${i}`, round + 2));
      await drain();
    }
    assert.equal(overlaps, 0, 'no key reconciled twice at once');
    assert.equal(maxAtOnce, 3, 'up to the limit, not beyond');
    assert.ok(reconciles >= 6);
    stop.abort();
    await run;
  });
});
