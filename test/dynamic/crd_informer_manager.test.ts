// CRDInformerManager against the in-memory API server: informers started and stopped as
// CRDs come, change and go, events carrying their resource, tombstones for dropped
// informers, predicates, sync and shutdown.
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import {
  CRDInformerManager,
  crdResources,
  crdSelector,
  isCrdEstablished,
} from '../../src/dynamic/index.js';
import type {
  CRDInformerManagerOptions,
  CustomResourceDefinition,
  CustomResourceEventHandler,
} from '../../src/dynamic/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { crdRef, fastBackoff, makeCr, makeCrd, until } from './helpers.js';

const widgetRef = { group: 'example.com', resource: 'widgets' };

function recorder(): { log: string[]; handler: CustomResourceEventHandler } {
  const log: string[] = [];
  const name = (o: { metadata?: { name?: string } } | DeletedFinalStateUnknown<unknown>): string =>
    o instanceof DeletedFinalStateUnknown ? `tombstone ${o.key}` : (o.metadata?.name ?? '?');
  return {
    log,
    handler: {
      onAdd: (r, o, initial) =>
        void log.push(`add ${r.resource}/${r.version} ${name(o)}${initial ? ' initial' : ''}`),
      onUpdate: (r, _a, b) => void log.push(`update ${r.resource}/${r.version} ${name(b)}`),
      onDelete: (r, o) => void log.push(`delete ${r.resource}/${r.version} ${name(o)}`),
    },
  };
}

describe('CRDInformerManager', () => {
  let server: TestApiServer;
  let ac: AbortController;
  let running: Promise<void> | undefined;

  beforeEach(async () => {
    server = await startTestApiServer();
    ac = new AbortController();
    running = undefined;
  });
  afterEach(async () => {
    ac.abort();
    await running;
    await server.close();
  });

  function start(options: CRDInformerManagerOptions = {}): CRDInformerManager {
    const m = new CRDInformerManager(server.kubeConfig(), {
      logger: noopLogger,
      informerOptions: { backoff: fastBackoff },
      ...options,
    });
    running = m.run(ac.signal);
    return m;
  }
  const versions = (m: CRDInformerManager): string[] =>
    m
      .resources()
      .map((r) => `${r.resource}.${r.group}/${r.version}`)
      .sort();

  it('a CRD established at run time starts an informer per served version, and events carry the resource', async () => {
    const m = start();
    const rec = recorder();
    m.addEventHandler(rec.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    assert.deepEqual(m.resources(), []);
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    await until('both versions run', () => versions(m).length === 2);
    assert.deepEqual(versions(m), ['widgets.example.com/v1', 'widgets.example.com/v1beta1']);
    assert.equal(m.resources()[0]?.kind, 'Widget');
    assert.equal(m.resources()[0]?.namespaced, true);
    await server.waitForWatch(widgetRef, 2);
    server.create(widgetRef, makeCr('Widget', 'w1'));
    await until(
      'adds from both versions',
      () => rec.log.filter((l) => l.includes('w1')).length === 2,
    );
    assert.deepEqual(rec.log.sort(), ['add widgets/v1 w1', 'add widgets/v1beta1 w1']);
    assert.equal(
      m
        .informerFor({ group: 'example.com', version: 'v1', resource: 'widgets' })
        ?.getIndexer()
        .listKeys()[0],
      'default/w1',
    );
  });

  it("with versions 'storage' only the storage version gets an informer", async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    const m = start({ versions: 'storage' });
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    assert.deepEqual(versions(m), ['widgets.example.com/v1']);
  });

  it('a version that stops being served has its informer stopped and its objects tombstoned', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    server.create(widgetRef, makeCr('Widget', 'w1'));
    const m = start();
    const rec = recorder();
    m.addEventHandler(rec.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    await until('initial adds', () => rec.log.length === 2);
    const crd = server.get(crdRef, 'widgets.example.com')!;
    const spec = crd.spec as { versions: { name: string; served: boolean }[] };
    spec.versions[1]!.served = false;
    server.update(crdRef, crd);
    await until('v1beta1 stopped', () => versions(m).length === 1);
    assert.deepEqual(versions(m), ['widgets.example.com/v1']);
    await until('tombstone', () => rec.log.includes('delete widgets/v1beta1 tombstone default/w1'));
    assert.ok(!rec.log.some((l) => l.startsWith('delete widgets/v1 ')));
    server.create(widgetRef, makeCr('Widget', 'w2'));
    await until('w2 via v1', () => rec.log.includes('add widgets/v1 w2'));
    assert.ok(!rec.log.includes('add widgets/v1beta1 w2'));
  });

  it('deleting a CRD stops its informers and every custom resource reaches onDelete', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    server.create(widgetRef, makeCr('Widget', 'a'));
    server.create(widgetRef, makeCr('Widget', 'b'));
    const m = start({ versions: 'storage' });
    const rec = recorder();
    m.addEventHandler(rec.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    await until('initial adds', () => rec.log.length === 2);
    const informer = m.informerFor({ group: 'example.com', version: 'v1', resource: 'widgets' })!;
    server.delete(crdRef, 'widgets.example.com');
    await until('informer dropped', () => m.resources().length === 0);
    await until('two deletes', () => rec.log.filter((l) => l.startsWith('delete')).length === 2);
    // Each object's delete arrives once: from the watch or, if the informer was dropped
    // first, as a tombstone.
    const deleted = rec.log
      .filter((l) => l.startsWith('delete'))
      .map((l) => l.replace('tombstone default/', ''))
      .sort();
    assert.deepEqual(deleted, ['delete widgets/v1 a', 'delete widgets/v1 b']);
    await until('informer stopped', () => informer.isStopped());
    await until('only the CRD watch is left', () => server.watchCount() === 1);
  });

  it('a CRD created again after deletion gets a fresh informer with its new objects', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    const m = start({ versions: 'storage' });
    const rec = recorder();
    m.addEventHandler(rec.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    const first = m.informerFor({ group: 'example.com', version: 'v1', resource: 'widgets' });
    server.delete(crdRef, 'widgets.example.com');
    await until('dropped', () => m.resources().length === 0);
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    await until('restarted', () => m.resources().length === 1);
    const second = m.informerFor({ group: 'example.com', version: 'v1', resource: 'widgets' });
    assert.notEqual(second, first);
    await until('synced again', () => m.hasSynced());
    await server.waitForWatch(widgetRef, 1);
    server.create(widgetRef, makeCr('Widget', 'again'));
    await until('new add', () => rec.log.includes('add widgets/v1 again'));
  });

  it('the predicate picks CRDs by group, name and labels', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget', { labels: { team: 'shop' } }));
    server.create(crdRef, makeCrd('gadgets', 'Gadget', { labels: { team: 'ops' } }));
    server.create(
      crdRef,
      makeCrd('things', 'Thing', { group: 'other.io', labels: { team: 'shop' } }),
    );
    const m = start({
      versions: 'storage',
      predicate: crdSelector({ groups: ['example.com'], labelSelector: 'team=shop' }),
    });
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    assert.deepEqual(versions(m), ['widgets.example.com/v1']);
    const byName = crdSelector({ names: ['gadgets.example.com'] });
    const gadget = server.get(crdRef, 'gadgets.example.com') as unknown as CustomResourceDefinition;
    const widget = server.get(crdRef, 'widgets.example.com') as unknown as CustomResourceDefinition;
    assert.equal(byName(gadget), true);
    assert.equal(byName(widget), false);
  });

  it('a CRD relabelled out of the predicate has its informers stopped', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget', { labels: { follow: 'yes' } }));
    const m = start({
      versions: 'storage',
      predicate: crdSelector({ labelSelector: 'follow=yes' }),
    });
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    assert.equal(m.resources().length, 1);
    const crd = server.get(crdRef, 'widgets.example.com')!;
    crd.metadata!.labels = { follow: 'no' };
    server.update(crdRef, crd);
    await until('dropped', () => m.resources().length === 0);
  });

  it('hasSynced waits for the informers of CRDs that existed at start', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    server.create(widgetRef, makeCr('Widget', 'w1'));
    const m = new CRDInformerManager(server.kubeConfig(), {
      logger: noopLogger,
      versions: 'storage',
    });
    assert.equal(m.hasSynced(), false);
    const rec = recorder();
    m.addEventHandler(rec.handler);
    running = m.run(ac.signal);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    assert.deepEqual(versions(m), ['widgets.example.com/v1']);
    assert.deepEqual(
      m
        .informerFor({ group: 'example.com', version: 'v1', resource: 'widgets' })
        ?.getIndexer()
        .listKeys(),
      ['default/w1'],
    );
    await until('initial add delivered', () => rec.log.includes('add widgets/v1 w1 initial'));
  });

  it('a handler added late is replayed every known object as an initial add', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    server.create(widgetRef, makeCr('Widget', 'w1'));
    server.create(widgetRef, makeCr('Widget', 'w2'));
    const m = start({ versions: 'storage' });
    const early = recorder();
    m.addEventHandler(early.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    await until('early adds', () => early.log.length === 2);
    const late = recorder();
    m.addEventHandler(late.handler);
    await until('late replay', () => late.log.length === 2);
    assert.deepEqual(late.log.sort(), ['add widgets/v1 w1 initial', 'add widgets/v1 w2 initial']);
  });

  it('a throwing handler is reported and the other handlers get every event', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    const errors: string[] = [];
    const m = start({
      versions: 'storage',
      onHandlerError: (err, ctx) =>
        void errors.push(`${ctx.handler} ${ctx.callback} ${(err as Error).message}`),
    });
    m.addEventHandler({ onAdd: () => Promise.reject(new Error('boom')) }, { name: 'bad' });
    const good = recorder();
    m.addEventHandler(good.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    await server.waitForWatch(widgetRef, 1);
    server.create(widgetRef, makeCr('Widget', 'w1'));
    server.create(widgetRef, makeCr('Widget', 'w2'));
    await until('good saw both', () => good.log.length === 2);
    await until('errors reported', () => errors.length === 2);
    assert.deepEqual(errors, ['bad onAdd boom', 'bad onAdd boom']);
  });

  // Rule (issue 15): the manager's handlers run on the informers' per-handler queue (the
  // processor's listener), so they share its guarantees — here, that a throwing error hook
  // is logged and the handler still gets every later event.
  it("a handler's queue survives a throwing onHandlerError hook and delivers every later event", async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    let hookCalls = 0;
    const m = start({
      versions: 'storage',
      onHandlerError: () => {
        hookCalls++;
        throw new Error('the hook itself is broken');
      },
    });
    const seen: string[] = [];
    m.addEventHandler(
      {
        onAdd: (_r, o) => {
          seen.push(o.metadata?.name ?? '?');
          if (seen.length === 1) throw new Error('first add fails');
        },
      },
      { name: 'flaky' },
    );
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    await server.waitForWatch(widgetRef, 1);
    server.create(widgetRef, makeCr('Widget', 'w1'));
    await until('first add', () => seen.length === 1 && hookCalls === 1);
    server.create(widgetRef, makeCr('Widget', 'w2'));
    await until('the next add still arrives', () => seen.length === 2);
    assert.deepEqual(seen, ['w1', 'w2']);
  });

  it('a removed handler gets nothing more', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    const m = start({ versions: 'storage' });
    const gone = recorder();
    const stays = recorder();
    const reg = m.addEventHandler(gone.handler);
    m.addEventHandler(stays.handler);
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    m.removeEventHandler(reg);
    await server.waitForWatch(widgetRef, 1);
    server.create(widgetRef, makeCr('Widget', 'w1'));
    await until('stays saw it', () => stays.log.length === 1);
    assert.deepEqual(gone.log, []);
  });

  it('run resolves only after every informer has stopped', async () => {
    server.create(crdRef, makeCrd('widgets', 'Widget'));
    server.create(crdRef, makeCrd('gadgets', 'Gadget', { scope: 'Cluster' }));
    const m = start();
    assert.equal(await m.waitForCacheSync(ac.signal), true);
    const informers = m.resources().map((r) => m.informerFor(r)!);
    assert.equal(informers.length, 4);
    ac.abort();
    await running;
    assert.ok(informers.every((i) => i.isStopped()));
    assert.ok(m.crdInformer.isStopped());
    await until('server saw every watch close', () => server.watchCount() === 0);
  });
});

describe('CRD helpers', () => {
  const crd = (conditions: { type: string; status: string }[]): CustomResourceDefinition =>
    ({
      ...makeCrd('widgets', 'Widget', { v1beta1Served: false }),
      status: { conditions },
    }) as unknown as CustomResourceDefinition;

  it('isCrdEstablished is true only with an Established=True condition', () => {
    assert.equal(isCrdEstablished(crd([{ type: 'Established', status: 'True' }])), true);
    assert.equal(isCrdEstablished(crd([{ type: 'Established', status: 'False' }])), false);
    assert.equal(isCrdEstablished(crd([{ type: 'NamesAccepted', status: 'True' }])), false);
  });

  it('crdResources lists served versions only, storage first, with kind and scope', () => {
    const c = crd([]);
    assert.deepEqual(crdResources(c), [
      {
        group: 'example.com',
        version: 'v1',
        resource: 'widgets',
        kind: 'Widget',
        namespaced: true,
      },
    ]);
    (c.spec.versions[1] as { served: boolean }).served = true;
    assert.deepEqual(
      crdResources(c).map((r) => r.version),
      ['v1', 'v1beta1'],
    );
    assert.deepEqual(
      crdResources(c, true).map((r) => r.version),
      ['v1'],
    );
  });
});
