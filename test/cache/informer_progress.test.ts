// Rule (issue 15): an informer says at info level when it has synced, with the count.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import { FakeClock } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { pod, podList, ScriptedLW, Stream, until } from './shared_informer_support.js';
import type { Pod } from './shared_informer_support.js';

test('the informer logs "synced; N objects cached" once, at info, when its first list is applied', async () => {
  const infos: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: (m) => void infos.push(m),
    warn: () => {},
    error: () => {},
  };
  const lw = new ScriptedLW();
  const informer = new SharedIndexInformer<Pod>(lw, {
    name: 'pods',
    clock: new FakeClock(0),
    logger,
    idleTimeoutMs: 0,
    watchList: false,
  });
  const stream = new Stream();
  lw.queueList(podList('10', [pod('a', '1'), pod('b', '2')])).queueWatch(stream);
  const ac = new AbortController();
  const running = informer.run(ac.signal);
  await until('synced', () => informer.hasSynced());
  stream.push({ type: 'ADDED', object: pod('c', '11') });
  await until('c cached', () => informer.getIndexer().size === 3);
  assert.deepEqual(
    infos.filter((m) => /synced/.test(m)),
    ['pods: synced; 2 objects cached'],
  );
  ac.abort();
  await running;
});
