// The manager's cache: informers over a set of namespaces (one watch per namespace, one
// lister over all; controller-runtime's DefaultNamespaces) and the cache-backed client
// (reads from informers started on first use, writes to the API server).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { configMapsResource, namespacesResource } from '../../src/client/builtins.js';
import { NotFoundError } from '../../src/client/errors.js';
import type { Serialized } from '../../src/client/types.js';
import { Controller } from '../../src/controller/index.js';
import {
  CacheNotStartedError,
  InvalidManagerOptionsError,
  Manager,
  MultiNamespaceInformer,
  NamespaceNotCachedError,
} from '../../src/manager/index.js';
import type { ManagerOptions } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

type ConfigMap = Serialized<V1ConfigMap>;

function cm(namespace: string, name: string, labels: Record<string, string> = {}): ConfigMap {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace, labels },
    data: { v: name },
  };
}

describe('Manager cache', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
    for (const ns of ['team-a', 'team-b', 'team-c']) {
      server.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    server.create('configmaps', cm('team-a', 'one', { app: 'web' }));
    server.create('configmaps', cm('team-b', 'two', { app: 'db' }));
    server.create('configmaps', cm('team-c', 'three', { app: 'web' }));
  });
  after(async () => {
    await server.close();
  });

  function options(extra: Partial<ManagerOptions> = {}): ManagerOptions {
    return {
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
      ...extra,
    };
  }

  test('defaultNamespaces: one namespaced list and watch per namespace, one lister over all, events only from the set', async () => {
    server.clearRequests();
    const manager = new Manager(
      options({ cache: { defaultNamespaces: ['team-a', 'team-b', 'team-a'] } }),
    );
    assert.deepEqual(manager.cacheNamespaces, ['team-a', 'team-b'], 'duplicates dropped');
    const informer = manager.informer(configMapsResource);
    assert.ok(informer instanceof MultiNamespaceInformer);
    const reconciled = new Set<string>();
    manager.add(
      new Controller({
        name: 'cms',
        logger: noopLogger,
        reconcile: (k) => void reconciled.add(k),
      }).for(informer),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.elected();
    await eventually(
      'both reconciled',
      () => reconciled.has('team-a/one') && reconciled.has('team-b/two'),
    );
    assert.equal(informer.hasSynced(), true);
    const paths = server.requests
      .filter((r) => r.url.includes('configmaps'))
      .map((r) => r.url.split('?')[0] ?? '');
    assert.ok(paths.includes('/api/v1/namespaces/team-a/configmaps'));
    assert.ok(paths.includes('/api/v1/namespaces/team-b/configmaps'));
    assert.ok(!paths.includes('/api/v1/configmaps'), 'never a cluster-wide list or watch');
    assert.ok(!paths.some((p) => p.includes('team-c')), 'nothing from outside the set');
    assert.equal(server.watchCount('configmaps'), 2, 'one watch per namespace');

    const lister = informer.lister();
    assert.deepEqual(
      lister
        .list()
        .map((o) => o.metadata?.name)
        .sort(),
      ['one', 'two'],
    );
    assert.equal(lister.byNamespace('team-b').get('two').data?.['v'], 'two');
    assert.deepEqual(lister.byNamespace('').list().length, 2);
    assert.throws(
      () => lister.byNamespace('team-c').list(),
      (e: unknown) =>
        e instanceof NamespaceNotCachedError &&
        e.namespace === 'team-c' &&
        /team-a, team-b/.test(e.message),
    );
    server.create('configmaps', cm('team-b', 'later'));
    server.create('configmaps', cm('team-c', 'ignored'));
    await eventually('the new object in the set arrives', () => reconciled.has('team-b/later'));
    assert.ok(!reconciled.has('team-c/ignored') && !reconciled.has('team-c/three'));

    const namespaces = manager.informer(namespacesResource);
    assert.ok(
      !(namespaces instanceof MultiNamespaceInformer),
      'cluster-scoped resources are watched cluster-wide',
    );
    await eventually('namespaces cached', () => namespaces.hasSynced());
    assert.ok(namespaces.lister().list().length >= 3);
    stop.abort();
    await running;
    assert.equal(server.watchCount('configmaps'), 0, 'every watch closed');
  });

  test('bad namespace sets are rejected at construction', () => {
    for (const defaultNamespaces of [[], [''], ['Team_A']]) {
      assert.throws(
        () => new Manager(options({ cache: { defaultNamespaces } })),
        InvalidManagerOptionsError,
        JSON.stringify(defaultNamespaces),
      );
    }
    assert.throws(
      () => new Manager(options({ cache: { defaultNamespaces: ['a'], namespace: 'b' } })),
      /exclude each other/,
    );
  });

  test('the cached client reads from an informer it starts on first use, never from the server, and writes to the server', async () => {
    const manager = new Manager(options());
    const client = manager.client(configMapsResource);
    await assert.rejects(client.get('one', { namespace: 'team-a' }), CacheNotStartedError);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.elected();
    server.clearRequests();

    const one = await client.get('one', { namespace: 'team-a' });
    assert.equal(one.data?.['v'], 'one');
    assert.equal(server.watchCount('configmaps'), 1, 'an informer was started by the first read');
    const gets = (): number =>
      server.requests.filter((r) => r.method === 'GET' && /\/configmaps\/[^/?]+/.test(r.url))
        .length;
    await client.get('two', { namespace: 'team-b' });
    assert.equal(gets(), 0, 'no GET of a single object reached the server');
    const lists = server.requests.filter(
      (r) => r.url.includes('configmaps') && !r.url.includes('watch'),
    ).length;
    assert.deepEqual(
      (await client.list({ labelSelector: 'app=web' }))
        .map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`)
        .sort(),
      ['team-a/one', 'team-c/three'],
    );
    assert.deepEqual(
      (await client.list({ namespace: 'team-a' })).map((o) => o.metadata?.name),
      ['one'],
    );
    assert.equal(
      server.requests.filter((r) => r.url.includes('configmaps') && !r.url.includes('watch'))
        .length,
      lists,
      'later lists are served from memory',
    );
    await assert.rejects(client.get('missing', { namespace: 'team-a' }), NotFoundError);

    const created = await client.create(cm('team-a', 'written'));
    assert.ok(created.metadata?.uid, 'the write went to the API server');
    assert.ok(server.get('configmaps', 'written', 'team-a'));
    await eventually('the write reaches the cache through the watch', async () => {
      try {
        return (
          (await client.get('written', { namespace: 'team-a' })).metadata?.uid ===
          created.metadata?.uid
        );
      } catch {
        return false;
      }
    });
    await client.patch('written', { data: { v: 'patched' } }, { namespace: 'team-a' });
    assert.equal(server.get<ConfigMap>('configmaps', 'written', 'team-a')?.data?.['v'], 'patched');
    await client.delete('written', { namespace: 'team-a' });
    assert.equal(server.get('configmaps', 'written', 'team-a'), undefined);

    stop.abort();
    await running;
    await assert.rejects(client.list(), CacheNotStartedError, 'no reads after shutdown');
  });

  test('the cached client honours defaultNamespaces: a read outside the set throws NamespaceNotCachedError', async () => {
    const manager = new Manager(options({ cache: { defaultNamespaces: ['team-a'] } }));
    const client = manager.client(configMapsResource);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.elected();
    assert.deepEqual(
      (await client.list()).map((o) => o.metadata?.name),
      ['one'],
    );
    await assert.rejects(client.get('two', { namespace: 'team-b' }), NamespaceNotCachedError);
    stop.abort();
    await running;
  });
});
