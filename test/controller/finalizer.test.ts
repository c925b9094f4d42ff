import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { configMapsResource } from '../../src/client/builtins.js';
import { isConflict } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import type { ReconcileResult } from '../../src/controller/controller.js';
import {
  FinalizerConflictError,
  InvalidFinalizerError,
  applyFinalizer,
} from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

type ConfigMap = Serialized<V1ConfigMap>;
const FINALIZER = 'example.com/cleanup';

describe('applyFinalizer against the in-memory API server', () => {
  let server: TestApiServer;
  let all: ResourceClient<ConfigMap>;
  let cms: ResourceClient<ConfigMap>;
  before(async () => {
    server = await startTestApiServer();
    all = new ResourceClient(server.kubeConfig(), configMapsResource);
    cms = all.namespace('default');
  });
  after(async () => {
    await server.close();
  });

  function recorder() {
    const log: string[] = [];
    return {
      log,
      handlers: {
        apply: (o: ConfigMap) => {
          log.push(
            `apply ${o.metadata?.name} finalizers=${(o.metadata?.finalizers ?? []).join(',')}`,
          );
          return 'applied';
        },
        cleanup: (o: ConfigMap) => {
          log.push(`cleanup ${o.metadata?.name}`);
          return 'cleaned';
        },
      },
    };
  }

  test('the first reconcile adds the finalizer, then applies with the patched object', async () => {
    const created = await cms.create({ metadata: { name: 'first' } });
    const { log, handlers } = recorder();
    const result = await applyFinalizer(cms, FINALIZER, created, handlers);
    assert.equal(result, 'applied');
    assert.deepEqual(log, [`apply first finalizers=${FINALIZER}`]);
    assert.deepEqual((await cms.get('first')).metadata?.finalizers, [FINALIZER]);
    const patch = server.requests.filter((r) => r.method === 'PATCH').at(-1);
    assert.ok(patch?.url.includes('/configmaps/first'));
  });

  test('an unscoped client works: the namespace comes from the object', async () => {
    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'elsewhere', namespace: 'kube-public' },
    });
    const obj = await all.namespace('kube-public').get('elsewhere');
    const { handlers } = recorder();
    await applyFinalizer(all, FINALIZER, obj, handlers);
    assert.deepEqual((await all.namespace('kube-public').get('elsewhere')).metadata?.finalizers, [
      FINALIZER,
    ]);
  });

  test('with the finalizer present, apply runs without any write', async () => {
    const created = await cms.create({ metadata: { name: 'present', finalizers: [FINALIZER] } });
    server.clearRequests();
    const { log, handlers } = recorder();
    assert.equal(await applyFinalizer(cms, FINALIZER, created, handlers), 'applied');
    assert.deepEqual(log, [`apply present finalizers=${FINALIZER}`]);
    assert.equal(server.requests.filter((r) => r.method !== 'GET').length, 0);
  });

  test("adding keeps other controllers' finalizers", async () => {
    const created = await cms.create({
      metadata: { name: 'shared', finalizers: ['other.io/keep'] },
    });
    const { handlers } = recorder();
    await applyFinalizer(cms, FINALIZER, created, handlers);
    assert.deepEqual((await cms.get('shared')).metadata?.finalizers, ['other.io/keep', FINALIZER]);
  });

  test('on deletion, cleanup runs, then the finalizer is removed and the object goes away; apply never runs', async () => {
    const created = await cms.create({ metadata: { name: 'doomed' } });
    const { log, handlers } = recorder();
    await applyFinalizer(cms, FINALIZER, created, handlers);
    await cms.delete('doomed');
    const deleting = await cms.get('doomed');
    assert.ok(deleting.metadata?.deletionTimestamp, 'held by the finalizer');
    log.length = 0;
    assert.equal(await applyFinalizer(cms, FINALIZER, deleting, handlers), 'cleaned');
    assert.deepEqual(log, ['cleanup doomed']);
    assert.equal(
      server.get('configmaps', 'doomed', 'default'),
      undefined,
      'deleted once the finalizer is gone',
    );
  });

  test('apply may resolve to a reconcile result while cleanup resolves to nothing (the result type is either)', async () => {
    const created = await cms.create({ metadata: { name: 'typed' } });
    const handlers = {
      apply: async (): Promise<ReconcileResult> => ({ requeueAfterMs: 10 }),
      cleanup: async (): Promise<void> => {},
    };
    const applied: ReconcileResult | void = await applyFinalizer(cms, FINALIZER, created, handlers);
    assert.deepEqual(applied, { requeueAfterMs: 10 });
    await cms.delete('typed');
    const cleaned = await applyFinalizer(cms, FINALIZER, await cms.get('typed'), handlers);
    assert.equal(cleaned, undefined);
    assert.equal(server.get('configmaps', 'typed', 'default'), undefined);
  });

  test('a failing cleanup keeps the finalizer and the object, and the error propagates', async () => {
    await cms.create({ metadata: { name: 'stubborn', finalizers: [FINALIZER] } });
    await cms.delete('stubborn');
    const deleting = await cms.get('stubborn');
    let applied = false;
    await assert.rejects(
      applyFinalizer(cms, FINALIZER, deleting, {
        apply: () => (applied = true),
        cleanup: () => {
          throw new Error('external system down');
        },
      }),
      /external system down/,
    );
    assert.equal(applied, false);
    assert.deepEqual((await cms.get('stubborn')).metadata?.finalizers, [FINALIZER]);
    // A later successful cleanup releases it.
    const { handlers } = recorder();
    await applyFinalizer(cms, FINALIZER, await cms.get('stubborn'), handlers);
    assert.equal(server.get('configmaps', 'stubborn', 'default'), undefined);
  });

  test('removing only our finalizer leaves the others (the object stays until they are gone)', async () => {
    await cms.create({ metadata: { name: 'two', finalizers: ['other.io/keep', FINALIZER] } });
    await cms.delete('two');
    const { handlers } = recorder();
    await applyFinalizer(cms, FINALIZER, await cms.get('two'), handlers);
    const left = await cms.get('two');
    assert.deepEqual(left.metadata?.finalizers, ['other.io/keep']);
    assert.ok(left.metadata?.deletionTimestamp);
  });

  test('a deleting object without our finalizer: nothing runs, undefined', async () => {
    await cms.create({ metadata: { name: 'not-ours', finalizers: ['other.io/keep'] } });
    await cms.delete('not-ours');
    const { log, handlers } = recorder();
    assert.equal(
      await applyFinalizer(cms, FINALIZER, await cms.get('not-ours'), handlers),
      undefined,
    );
    assert.deepEqual(log, []);
  });

  test('adding to an object that changed since it was read fails as a conflict, without clobbering', async () => {
    const stale = await cms.create({ metadata: { name: 'racy' } });
    await cms.patch('racy', { metadata: { labels: { touched: 'yes' } } });
    const { log, handlers } = recorder();
    const err = await applyFinalizer(cms, FINALIZER, stale, handlers).catch((e: unknown) => e);
    assert.ok(err instanceof FinalizerConflictError, String(err));
    assert.ok(isConflict(err));
    assert.match(
      err.message,
      /adding finalizer "example.com\/cleanup" on configmaps "default\/racy" failed: the object changed/,
    );
    assert.deepEqual(log, [], 'apply did not run');
    const now = await cms.get('racy');
    assert.equal(now.metadata?.finalizers, undefined);
    assert.equal(now.metadata?.labels?.['touched'], 'yes');
  });

  test("adding when another writer changed the finalizer list fails as a conflict and keeps the writer's finalizer", async () => {
    const stale = await cms.create({ metadata: { name: 'racy2', finalizers: ['a.io/x'] } });
    await cms.patch('racy2', { metadata: { finalizers: ['a.io/x', 'b.io/y'] } });
    const { handlers } = recorder();
    await assert.rejects(applyFinalizer(cms, FINALIZER, stale, handlers), FinalizerConflictError);
    assert.deepEqual((await cms.get('racy2')).metadata?.finalizers, ['a.io/x', 'b.io/y']);
  });

  test('removing after the finalizer list shifted fails as a conflict instead of removing the wrong entry', async () => {
    await cms.create({ metadata: { name: 'shift', finalizers: ['a.io/x', FINALIZER] } });
    await cms.delete('shift');
    const stale = await cms.get('shift');
    await cms.patch('shift', { metadata: { finalizers: [FINALIZER] } }); // a.io/x removed by its owner
    const { handlers } = recorder();
    await assert.rejects(
      applyFinalizer(cms, FINALIZER, stale, handlers),
      (e: unknown) => e instanceof FinalizerConflictError && /removing finalizer/.test(e.message),
    );
    assert.deepEqual((await cms.get('shift')).metadata?.finalizers, [FINALIZER]);
  });

  test('removal from an object that is already gone counts as done', async () => {
    await cms.create({ metadata: { name: 'vanished', finalizers: [FINALIZER] } });
    await cms.delete('vanished');
    const deleting = await cms.get('vanished');
    await cms.patch('vanished', { metadata: { finalizers: null } });
    assert.equal(server.get('configmaps', 'vanished', 'default'), undefined);
    const { log, handlers } = recorder();
    assert.equal(await applyFinalizer(cms, FINALIZER, deleting, handlers), 'cleaned');
    assert.deepEqual(log, ['cleanup vanished']);
  });

  test('an empty finalizer name or a nameless object fails with InvalidFinalizerError', async () => {
    const { handlers } = recorder();
    await assert.rejects(
      applyFinalizer(cms, '', { metadata: { name: 'x' } }, handlers),
      InvalidFinalizerError,
    );
    await assert.rejects(
      applyFinalizer(cms, FINALIZER, { metadata: {} }, handlers),
      /has no metadata.name/,
    );
  });
});
