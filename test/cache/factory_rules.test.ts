// SharedInformerFactory rules from issue 15, against the in-memory API server: per-call
// indexers add to the namespace index; bad selectors fail at construction; a factory's
// waitForCacheSync with a timeout names the informers that did not sync and why.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import type { SharedInformerFactoryOptions } from '../../src/cache/factory.js';
import { namespaceIndex } from '../../src/cache/indexer.js';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { fastBackoff, until } from '../dynamic/helpers.js';

function pod(name: string, node: string) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }] },
  };
}

describe('SharedInformerFactory (issue 15 rules)', () => {
  let server: TestApiServer;
  const factories: SharedInformerFactory[] = [];
  const controllers: AbortController[] = [];
  const make = (options: SharedInformerFactoryOptions = {}): SharedInformerFactory => {
    const f = new SharedInformerFactory(server.kubeConfig(), {
      logger: noopLogger,
      informerOptions: { backoff: fastBackoff },
      ...options,
    });
    factories.push(f);
    return f;
  };
  const signal = (): AbortSignal => {
    const ac = new AbortController();
    controllers.push(ac);
    return ac.signal;
  };
  before(async () => {
    server = await startTestApiServer({ namespaces: ['default'] });
  });
  afterEach(async () => {
    for (const c of controllers.splice(0)) c.abort();
    await Promise.all(factories.splice(0).map((f) => f.shutdown()));
  });
  after(() => server.close());

  it('per-call indexers are added to the namespace index, which keeps working', async () => {
    server.create('pods', pod('p1', 'node-a'));
    const f = make();
    const pods = f.pods({
      indexers: { byNode: (p) => [(p.spec as { nodeName?: string } | undefined)?.nodeName ?? ''] },
    });
    assert.ok(pods.getIndexer().hasIndex(namespaceIndex), 'the namespace index is still there');
    assert.ok(pods.getIndexer().hasIndex('byNode'));
    f.start(signal());
    await until('synced', () => pods.hasSynced());
    assert.deepEqual(
      pods
        .lister()
        .byNamespace('default')
        .list()
        .map((p) => p.metadata?.name),
      ['p1'],
    );
    assert.equal(pods.getIndexer().byIndex('byNode', 'node-a').length, 1);
    server.delete('pods', 'p1', 'default');
  });
});
