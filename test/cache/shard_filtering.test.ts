// The kit's detection of a shardSelector the server did not apply. kube-apiserver 1.36
// (KEP-5866, gate ShardedListAndWatch on) filters a custom resource list but leaves
// `metadata.shardInfo` off it, so a list without shardInfo does not show that the gate is
// off: the kit filters such a list anyway (a no-op when the server filtered it) and says
// the server ignored the selector only when an object outside the ranges arrives.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { shardFilteringListerWatcher } from '../../src/cache/listwatch.js';
import type { ListerWatcher } from '../../src/cache/listwatch.js';
import { fnv1a64 } from '../../src/apimachinery/shard_selector.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import type { Logger } from '../../src/util/logger.js';

const LOW = "shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')";
const inLow = (uid: string): boolean => fnv1a64(uid) < 1n << 63n;

const objects: UnstructuredObject[] = Array.from({ length: 32 }, (_, i) => ({
  metadata: {
    name: `o-${i}`,
    namespace: 'ns',
    uid: createHash('sha256').update(String(i)).digest('hex').slice(0, 36),
  },
}));
const low = objects.filter((o) => inLow(o.metadata?.uid ?? ''));

function recording(): Logger & { infos: string[] } {
  const infos: string[] = [];
  const noop = (): void => undefined;
  return { infos, debug: noop, warn: noop, error: noop, info: (m: string) => void infos.push(m) };
}

function lister(items: UnstructuredObject[]): ListerWatcher<UnstructuredObject> {
  return {
    list: () => Promise.resolve({ metadata: { resourceVersion: '7' }, items }),
    watch: () =>
      Promise.resolve({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.resolve({ done: true as const, value: undefined }),
        }),
      }),
  };
}

describe('shardSelector: detecting a server that did not apply it', () => {
  it('sanity: the fixture has objects on both sides of the range', () => {
    assert.ok(low.length > 0 && low.length < objects.length);
  });

  it('rule (kube-apiserver 1.36 custom resource lists): a filtered list without shardInfo is kept whole and nothing is logged', async () => {
    const logger = recording();
    const lw = shardFilteringListerWatcher(lister(low), LOW, { logger, name: 'widgets' });
    const page = await lw.list({}, new AbortController().signal);
    assert.equal(page.items.length, low.length);
    assert.deepEqual(logger.infos, []);
  });

  it('an unfiltered list without shardInfo is filtered here, and that is logged once', async () => {
    const logger = recording();
    const lw = shardFilteringListerWatcher(lister(objects), LOW, { logger, name: 'widgets' });
    const signal = new AbortController().signal;
    assert.deepEqual((await lw.list({}, signal)).items, low);
    await lw.list({}, signal);
    assert.equal(logger.infos.length, 1);
    assert.match(
      logger.infos[0] ?? '',
      /^widgets: the server did not apply shardSelector .* \(its list has objects outside the selected ranges; is its ShardedListAndWatch feature gate off\?\); filtering on the client$/,
    );
  });
});
