import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Controller } from '../../src/controller/index.js';
import type { ControllerOptions, ReconcileResult } from '../../src/controller/index.js';
import type { KubeObject } from '../../src/client/types.js';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { LowPriority, PriorityQueue, RateLimitingQueue } from '../../src/workqueue/index.js';
import { FakeInformer, obj, until } from './support.js';

function make(
  reconcile: ControllerOptions['reconcile'],
  extra: Partial<ControllerOptions> = {},
): { controller: Controller; informer: FakeInformer<KubeObject>; clock: FakeClock } {
  const clock = new FakeClock();
  const informer = new FakeInformer<KubeObject>();
  const controller = new Controller({
    name: 'prio',
    clock,
    logger: noopLogger,
    reconcile,
    ...extra,
  }).for(informer);
  return { controller, informer, clock };
}

describe('Controller with the priority queue (controller-runtime v0.23 default)', () => {
  test('the priority queue is the default; usePriorityQueue: false brings back the FIFO queue', () => {
    assert.ok(make(() => {}).controller.queue instanceof PriorityQueue);
    const fifo = make(() => {}, { usePriorityQueue: false }).controller.queue;
    assert.ok(fifo instanceof RateLimitingQueue);
  });

  test('initial-list adds go in at LowPriority, so a real change is reconciled before them', async () => {
    const order: string[] = [];
    const { controller, informer } = make((key) => void order.push(key));
    for (let i = 0; i < 16; i++) informer.addInitial(obj(`listed-${i}`));
    informer.add(obj('new')); // tofu-controller #1641: a new resource was reconciled 16th of 16
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await until('all reconciled', () => order.length === 17);
    assert.equal(order[0], 'default/new');
    assert.deepEqual(
      order.slice(1),
      Array.from({ length: 16 }, (_, i) => `default/listed-${i}`),
      'the listed ones in list order',
    );
    stop.abort();
    await running;
  });

  test('an update that keeps the resourceVersion (a resync) is low; one that changes it is not', async () => {
    const { controller, informer } = make(() => {});
    const q = controller.queue as PriorityQueue<string>;
    informer.update(
      obj('resync', { resourceVersion: '5' }),
      obj('resync', { resourceVersion: '5' }),
    );
    informer.update(obj('real', { resourceVersion: '5' }), obj('real', { resourceVersion: '6' }));
    const first = await q.get();
    const second = await q.get();
    assert.deepEqual([first.item, first.shutdown ? 0 : first.priority], ['default/real', 0]);
    assert.deepEqual(
      [second.item, second.shutdown ? 0 : second.priority],
      ['default/resync', LowPriority],
    );
    q.shutDown();
  });

  test('a low key raised by a real event is reconciled at the higher priority (highest wins)', async () => {
    const { controller, informer } = make(() => {});
    const q = controller.queue as PriorityQueue<string>;
    informer.addInitial(obj('a'));
    informer.addInitial(obj('b'));
    informer.update(obj('b', { resourceVersion: '1' }), obj('b', { resourceVersion: '2' }));
    assert.equal(q.len(), 2);
    const first = await q.get();
    assert.equal(first.item, 'default/b');
    q.shutDown();
  });

  test('lowPriorityWhenUnchanged: false queues initial-list adds at 0', async () => {
    const clock = new FakeClock();
    const informer = new FakeInformer<KubeObject>();
    const controller = new Controller({
      name: 'plain',
      clock,
      logger: noopLogger,
      reconcile: () => {},
    }).for(informer, { lowPriorityWhenUnchanged: false });
    informer.addInitial(obj('a'));
    const r = await (controller.queue as PriorityQueue<string>).get();
    assert.equal(r.shutdown ? undefined : r.priority, 0);
    controller.queue.shutDown();
  });

  test('a requeue keeps the priority the key was reconciled with, unless the result sets one (controller-runtime #3167)', async () => {
    const seen: (number | undefined)[] = [];
    const results: (ReconcileResult | Error | undefined)[] = [
      { requeue: true },
      new Error('boom'),
      { requeueAfterMs: 10 },
      { requeueAfterMs: 10, priority: 7 },
      undefined,
    ];
    const { controller, clock } = make((key) => {
      seen.push((controller.queue as PriorityQueue<string>).processingPriority(key));
      const r = results[seen.length - 1];
      if (r instanceof Error) throw r;
      return r;
    });
    controller.enqueue('default/a', { priority: LowPriority });
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    for (let n = 1; n <= results.length; n++) {
      await until(`reconcile ${n}`, () => seen.length >= n);
      await clock.advance(100);
    }
    assert.deepEqual(seen, [LowPriority, LowPriority, LowPriority, LowPriority, 7]);
    stop.abort();
    await running;
  });

  test('with usePriorityQueue: false the keys come out in arrival order', async () => {
    const order: string[] = [];
    const { controller, informer } = make((key) => void order.push(key), {
      usePriorityQueue: false,
    });
    informer.addInitial(obj('listed'));
    informer.add(obj('new'));
    const stop = new AbortController();
    const running = controller.run(stop.signal);
    await until('both', () => order.length === 2);
    assert.deepEqual(order, ['default/listed', 'default/new']);
    stop.abort();
    await running;
  });
});
