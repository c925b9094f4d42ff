// SharedInformerFactory rules from issue 15, against the in-memory API server: per-call
// indexers add to the namespace index; bad selectors fail at construction; a factory's
// waitForCacheSync with a timeout names the informers that did not sync and why.
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import type { SharedInformerFactoryOptions } from '../../src/cache/factory.js';
import { namespaceIndex } from '../../src/cache/indexer.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SelectorParseError } from '../../src/apimachinery/selector_error.js';
import { CacheSyncTimeoutError } from '../../src/cache/wait.js';
import { ApiError } from '../../src/client/errors.js';
import type { Logger } from '../../src/util/logger.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
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

  it('a malformed label selector on the factory throws SelectorParseError at construction, naming the selector and the position', () => {
    assert.throws(
      () => make({ labelSelector: 'app in (web' }),
      (err: unknown) =>
        err instanceof SelectorParseError &&
        err.input === 'app in (web' &&
        /invalid label selector "app in \(web"/.test(err.message),
    );
  });

  it('a malformed per-call field selector throws SelectorParseError from forResource; nothing is created', () => {
    const f = make();
    assert.throws(() => f.pods({ fieldSelector: 'metadata.name' }), SelectorParseError);
    assert.equal(f.informers().size, 0);
  });

  it('listWatchFromClient parses its selectors up front', () => {
    const client = {
      list: () => Promise.reject(new Error('unused')),
      watch: () => Promise.reject(new Error('unused')),
    };
    assert.throws(
      () => listWatchFromClient(client, { labelSelector: 'a in (' }),
      SelectorParseError,
    );
  });

  it('a 403 is logged at error level once, in words; waitForCacheSync with a timeout throws naming the informer and its last error; the informer shows lastError', async () => {
    const errors: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (m) => void errors.push(m),
    };
    server.faults.failNext(10_000, {
      verb: ['list', 'watch'],
      resource: 'configmaps',
      code: 403,
      message:
        'configmaps is forbidden: User "system:serviceaccount:x:y" cannot list resource "configmaps"',
    });
    const f = make({ logger });
    const cms = f.configMaps();
    f.start(signal());
    await assert.rejects(
      f.waitForCacheSync(signal(), { timeoutMs: 400 }),
      (err: unknown) =>
        err instanceof CacheSyncTimeoutError &&
        err.notSynced.length === 1 &&
        err.notSynced[0]!.name === 'configmaps/v1' &&
        /configmaps\/v1 \(last error, for \d+ ms: .*cannot list resource "configmaps"/.test(
          err.message,
        ),
    );
    const last = cms.lastError();
    assert.ok(last?.error instanceof ApiError && last.error.code === 403);
    const forbidden = errors.filter((e) => /cannot list resource "configmaps"/.test(e));
    assert.equal(forbidden.length, 1, errors.join('\n'));
    assert.ok(!errors.some((e) => /does not support streaming/.test(e)));
    server.faults.reset();
  });
});
