// Rule (issue 15, client-go's reflector): a watch bookmark advances the cache's
// resourceVersion: lastSyncResourceVersion() of the informer and of its indexer, and the
// resourceVersion the next relist and re-watch start from.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { WatchEvent } from '../../src/client/types.js';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { pod, podList, ScriptedLW, Stream, until } from './shared_informer_support.js';
import type { Pod } from './shared_informer_support.js';

const bookmark = (rv: string): WatchEvent<Pod> => ({
  type: 'BOOKMARK',
  object: { metadata: { name: '', resourceVersion: rv } } as unknown as Pod,
});

test('a bookmark advances lastSyncResourceVersion of the informer and its indexer, and the relist and re-watch after it start from the bookmark', async () => {
  const clock = new FakeClock(0);
  const lw = new ScriptedLW();
  const informer = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    clock,
    logger: noopLogger,
    idleTimeoutMs: 0,
    random: () => 0,
    watchList: false,
  });
  const first = new Stream();
  lw.queueList(podList('10', [pod('a', '5')])).queueWatch(first);
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await until('synced', () => informer.hasSynced());
  first.push(bookmark('50'));
  await until('bookmark applied', () => informer.getIndexer().lastSyncResourceVersion() === '50');
  assert.equal(informer.lastSyncResourceVersion(), '50');
  // A clean close re-watches from the bookmark.
  const second = new Stream();
  lw.queueWatch(second);
  first.end();
  await until('re-watched', () => lw.calls.length === 3);
  assert.equal(lw.calls[2]!.options.resourceVersion, '50');
  // A watch error relists from the bookmark.
  second.push(bookmark('60'));
  await until('second bookmark', () => informer.getIndexer().lastSyncResourceVersion() === '60');
  lw.queueList(podList('70', [pod('a', '5')])).queueWatch(new Stream());
  second.fail(new Error('decoder broke'));
  await clock.waitForTimers(1);
  await clock.advance(60_000);
  await until('relisted', () => lw.calls.length >= 4);
  assert.equal(lw.calls[3]!.verb, 'list');
  assert.equal(lw.calls[3]!.options.resourceVersion, '60');
  ac.abort();
  await running;
});
