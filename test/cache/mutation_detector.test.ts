// Rule (client-go's cache mutation detector, issue 15): with the detector on, mutating a
// cached object is reported as a CacheMutationError naming the key and the field path —
// on the periodic check and on the next update or delete of that key. deepCopy gives a
// mutable copy that can be changed freely.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { SharedIndexInformerOptions } from '../../src/cache/shared_informer.js';
import {
  CacheMutationError,
  cacheMutationDetectorFromEnv,
  deepCopy,
  firstDifference,
} from '../../src/cache/mutation_detector.js';
import { FakeClock } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { pod, podList, ScriptedLW, Stream, until } from './shared_informer_support.js';
import type { Pod } from './shared_informer_support.js';

function setup(options: SharedIndexInformerOptions<Pod>) {
  const clock = new FakeClock(0);
  const lw = new ScriptedLW();
  const errors: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (m) => void errors.push(m),
  };
  const found: CacheMutationError[] = [];
  const informer = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    clock,
    logger,
    idleTimeoutMs: 0,
    watchList: false,
    onCacheMutation: (e) => void found.push(e),
    ...options,
  });
  const stream = new Stream();
  lw.queueList(podList('10', [pod('a', '1', { spec: { node: 'n1' } })])).queueWatch(stream);
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  const stop = async (): Promise<void> => {
    ac.abort();
    await running;
    assert.equal(clock.pendingTimers(), 0, 'the periodic check stops with the informer');
  };
  return { clock, informer, stream, errors, found, stop };
}

describe('cache mutation detector', () => {
  test('the periodic check reports a mutated cached object with its key and field path, once, logged and surfaced', async () => {
    const t = setup({ detectCacheMutations: true, cacheMutationCheckPeriodMs: 1000 });
    await until('synced', () => t.informer.hasSynced());
    const cached = t.informer.getIndexer().getByKey('ns/a') as Pod;
    cached.spec!.node = 'n2'; // the bug the detector exists for
    await t.clock.advance(1000);
    assert.equal(t.found.length, 1);
    assert.ok(t.found[0] instanceof CacheMutationError);
    assert.equal(t.found[0].key, 'ns/a');
    assert.equal(t.found[0].path, 'spec.node');
    assert.match(t.errors[0]!, /pods: cached object ns\/a was mutated at spec\.node/);
    assert.deepEqual(t.informer.cacheMutations(), t.found);
    await t.clock.advance(1000);
    assert.equal(t.found.length, 1, 'reported once');
    await t.stop();
  });

  test('an update of the mutated key is checked before the new object is cached', async () => {
    const t = setup({ detectCacheMutations: true, cacheMutationCheckPeriodMs: 3_600_000 });
    await until('synced', () => t.informer.hasSynced());
    (t.informer.getIndexer().getByKey('ns/a') as Pod).metadata.labels = { x: 'y' };
    t.stream.push({ type: 'MODIFIED', object: pod('a', '2') });
    await until('reported', () => t.found.length === 1);
    assert.equal(t.found[0]!.path, 'metadata.labels');
    await t.stop();
  });

  test('off by default: no copies, nothing reported', async () => {
    const t = setup({});
    await until('synced', () => t.informer.hasSynced());
    (t.informer.getIndexer().getByKey('ns/a') as Pod).spec!.node = 'n2';
    await t.clock.advance(5000);
    assert.deepEqual(t.found, []);
    await t.stop();
  });

  test('KUBE_CACHE_MUTATION_DETECTOR=true turns it on, as in client-go', () => {
    const before = process.env['KUBE_CACHE_MUTATION_DETECTOR'];
    try {
      process.env['KUBE_CACHE_MUTATION_DETECTOR'] = 'true';
      assert.equal(cacheMutationDetectorFromEnv(), true);
      process.env['KUBE_CACHE_MUTATION_DETECTOR'] = 'false';
      assert.equal(cacheMutationDetectorFromEnv(), false);
    } finally {
      if (before === undefined) delete process.env['KUBE_CACHE_MUTATION_DETECTOR'];
      else process.env['KUBE_CACHE_MUTATION_DETECTOR'] = before;
    }
  });

  test('deepCopy returns a mutable copy: changing it leaves the original untouched', () => {
    const original = pod('a', '1', { spec: { node: 'n1' } });
    const copy = deepCopy<Pod>(original);
    copy.spec!.node = 'n2';
    assert.equal(original.spec!.node, 'n1');
    assert.equal(firstDifference(original, copy), 'spec.node');
    assert.equal(firstDifference({ a: [1, 2] }, { a: [1, 3] }), 'a[1]');
    assert.equal(firstDifference({ a: 1 }, { a: 1 }), undefined);
  });
});
