// The controller end to end: real informers on the in-memory API server, a primary
// resource (ConfigMaps) owning children (Secrets), and the finalizer helper.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap, V1Secret } from '@kubernetes/client-node';
import { splitMetaNamespaceKey } from '../../src/cache/keys.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import { configMapsResource, secretsResource } from '../../src/client/builtins.js';
import { isAlreadyExists, isConflict, isNotFound } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import {
  Controller,
  applyFinalizer,
  generationChanged,
  or,
  labelsChanged,
} from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

type ConfigMap = Serialized<V1ConfigMap>;
type Secret = Serialized<V1Secret>;
const FINALIZER = 'example.com/child-secret';

describe('Controller against the in-memory API server', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('creates an owned child per primary, recreates it when deleted, cleans it up through the finalizer, and stops cleanly', async () => {
    const kc = server.kubeConfig();
    const cms = new ResourceClient(kc, configMapsResource);
    const secrets = new ResourceClient(kc, secretsResource);
    const cmInformer = new SharedIndexInformer<ConfigMap>(
      listWatchFromClient(cms, { labelSelector: 'app=demo' }),
      { name: 'configmaps', logger: noopLogger },
    );
    const secretInformer = new SharedIndexInformer<Secret>(listWatchFromClient(secrets), {
      name: 'secrets',
      logger: noopLogger,
    });
    const reconciled: string[] = [];
    const cleaned: string[] = [];
    const errors: unknown[] = [];
    const cmLister = cmInformer.lister();
    const controller = new Controller({
      name: 'demo',
      workers: 2,
      logger: noopLogger,
      onError: (e) => void errors.push(e),
      reconcile: async (key, signal) => {
        reconciled.push(key);
        const [ns, name] = splitMetaNamespaceKey(key);
        const cm = cmLister.byNamespace(ns).tryGet(name);
        if (cm === undefined) return;
        return applyFinalizer(
          cms,
          FINALIZER,
          cm,
          {
            apply: async (live) => {
              const child: Secret = {
                metadata: {
                  name: `${name}-child`,
                  namespace: ns,
                  ownerReferences: [
                    {
                      apiVersion: 'v1',
                      kind: 'ConfigMap',
                      name,
                      uid: live.metadata?.uid ?? '',
                      controller: true,
                    },
                  ],
                },
                stringData: { value: live.data?.['value'] ?? '' },
              };
              try {
                await secrets.namespace(ns).create(child, { signal });
              } catch (err) {
                if (!isAlreadyExists(err)) throw err;
              }
            },
            cleanup: async () => {
              cleaned.push(key);
              try {
                await secrets.namespace(ns).delete(`${name}-child`, { signal });
              } catch (err) {
                if (!isNotFound(err)) throw err;
              }
            },
          },
          { signal },
        );
      },
    })
      .for(cmInformer, { predicate: or(generationChanged, labelsChanged) })
      .owns(secretInformer, { kind: 'ConfigMap', apiVersion: 'v1' });

    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'web', namespace: 'default', labels: { app: 'demo' } },
      data: { value: 'hello' },
    });
    const stopInformers = new AbortController();
    const informersDone = Promise.all([
      cmInformer.run(stopInformers.signal),
      secretInformer.run(stopInformers.signal),
    ]);
    const stop = new AbortController();
    const running = controller.run(stop.signal);

    try {
      // The child appears, owned by the primary, and the primary carries the finalizer.
      await eventually(
        'child secret',
        () => server.get('secrets', 'web-child', 'default') !== undefined,
      );
      const child = server.get<Secret>('secrets', 'web-child', 'default')!;
      assert.equal(child.metadata?.ownerReferences?.[0]?.name, 'web');
      assert.equal(child.metadata?.ownerReferences?.[0]?.controller, true);
      assert.deepEqual(
        server.get<ConfigMap>('configmaps', 'web', 'default')?.metadata?.finalizers,
        [FINALIZER],
      );

      // Deleting the child wakes the owner through owns(), which recreates it.
      const before = reconciled.length;
      server.delete('secrets', 'web-child', 'default');
      await eventually(
        'child recreated',
        () =>
          reconciled.length > before && server.get('secrets', 'web-child', 'default') !== undefined,
      );

      // Deleting the primary: cleanup removes the child, then the finalizer, then the object is gone.
      await cms.namespace('default').delete('web');
      await eventually(
        'primary gone',
        () => server.get('configmaps', 'web', 'default') === undefined,
      );
      // Cleanup may run again: deleting the child re-enqueues the owner while the cache
      // still shows it with the finalizer. That is why cleanup must be idempotent.
      assert.ok(cleaned.length >= 1);
      assert.ok(cleaned.every((k) => k === 'default/web'));
      assert.deepEqual(
        errors.filter((e) => !isConflict(e)),
        [],
        'no failure other than lost finalizer races',
      );
      assert.equal(server.get('secrets', 'web-child', 'default'), undefined);
    } finally {
      stop.abort();
      await running;
      stopInformers.abort();
      await informersDone;
    }
    assert.equal(controller.queue.processingLen(), 0);
  });
});
