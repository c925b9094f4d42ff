import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Pod } from '@kubernetes/client-node';
import { Indexer, metaNamespaceIndexFunc, namespaceIndex } from '../../src/cache/indexer.js';
import { everything, nothing, parseLabelSelector } from '../../src/apimachinery/labels.js';
import { Lister } from '../../src/cache/listers.js';
import { NotFoundError, isNotFound } from '../../src/client/errors.js';
import type { Logger } from '../../src/util/logger.js';
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';

const pods = { group: '', resource: 'pods' };

function pod(ns: string, name: string, labels?: Record<string, string>): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { namespace: ns, name, ...(labels ? { labels } : {}) },
  };
}

function recordingLogger(): { logger: Logger; warnings: string[] } {
  const warnings: string[] = [];
  const noop = (): void => {};
  return {
    warnings,
    logger: { debug: noop, info: noop, error: noop, warn: (m) => warnings.push(m) },
  };
}

function names(objs: readonly DeepReadonly<V1Pod>[]): string[] {
  return objs.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}`).sort();
}

function podIndexer(withNamespaceIndex = true): Indexer<V1Pod> {
  const ix = new Indexer<V1Pod>(
    withNamespaceIndex ? { indexers: { [namespaceIndex]: metaNamespaceIndexFunc } } : {},
  );
  ix.add(pod('a', 'web-1', { app: 'web' }));
  ix.add(pod('a', 'db-1', { app: 'db' }));
  ix.add(pod('b', 'web-2', { app: 'web' }));
  ix.add(pod('b', 'bare'));
  return ix;
}

describe('Lister.list', () => {
  test('no selector or an empty selector lists every object', () => {
    const l = new Lister(podIndexer().reader(), pods);
    assert.equal(l.list().length, 4);
    assert.equal(l.list(everything()).length, 4);
  });

  test('a selector lists the objects whose labels match; objects without labels are handled', () => {
    const l = new Lister(podIndexer().reader(), pods);
    assert.deepEqual(names(l.list(parseLabelSelector('app=web'))), ['a/web-1', 'b/web-2']);
    assert.deepEqual(names(l.list(parseLabelSelector('!app'))), ['b/bare']);
  });

  test('a selector that matches nothing returns at once without reading the cache', () => {
    const ix = podIndexer();
    let reads = 0;
    const reader = ix.reader();
    const counting = { ...reader, list: () => (reads++, reader.list()) };
    const l = new Lister(counting, pods);
    assert.deepEqual(l.list(nothing()), []);
    assert.deepEqual(l.byNamespace('a').list(nothing()), []);
    assert.equal(reads, 0);
  });
});

describe('Lister.get', () => {
  test('get of a cluster-scoped object finds it by name', () => {
    const ix = new Indexer<V1Pod>();
    ix.add({ metadata: { name: 'node-1' } });
    const l = new Lister(ix.reader(), { group: '', resource: 'nodes' });
    assert.equal(l.get('node-1').metadata?.name, 'node-1');
  });

  test('a miss throws NotFoundError with the API server message form', () => {
    const l = new Lister(podIndexer().reader(), pods);
    assert.throws(
      () => l.get('x'),
      (err: unknown) =>
        err instanceof NotFoundError &&
        isNotFound(err) &&
        err.message === 'pods "x" not found' &&
        err.resource === 'pods' &&
        err.group === '' &&
        err.objectName === 'x',
    );
    assert.equal(l.tryGet('x'), undefined);
  });

  test('a miss on a grouped resource names resource.group', () => {
    const l = new Lister(new Indexer<V1Pod>().reader(), { group: 'apps', resource: 'deployments' });
    assert.throws(
      () => l.get('d'),
      /^NotFoundError: deployments\.apps "d" not found$|deployments\.apps "d" not found/,
    );
  });
});

describe('NamespaceLister', () => {
  test('list returns only that namespace, filtered by the selector', () => {
    const l = new Lister(podIndexer().reader(), pods);
    assert.deepEqual(names(l.byNamespace('a').list()), ['a/db-1', 'a/web-1']);
    assert.deepEqual(names(l.byNamespace('b').list(parseLabelSelector('app=web'))), ['b/web-2']);
    assert.deepEqual(l.byNamespace('none').list(), []);
  });

  test('byNamespace("") lists every namespace', () => {
    const l = new Lister(podIndexer().reader(), pods);
    assert.equal(l.byNamespace('').list().length, 4);
  });

  test('list uses the namespace index when present and logs nothing', () => {
    const ix = podIndexer();
    const reader = ix.reader();
    let fullLists = 0;
    const counting = { ...reader, list: () => (fullLists++, reader.list()) };
    const { logger, warnings } = recordingLogger();
    const l = new Lister(counting, pods, { logger });
    assert.equal(l.byNamespace('a').list().length, 2);
    assert.equal(fullLists, 0);
    assert.deepEqual(warnings, []);
  });

  test('without a namespace index, list scans and logs a warning once', () => {
    const { logger, warnings } = recordingLogger();
    const l = new Lister(podIndexer(false).reader(), pods, { logger });
    assert.deepEqual(names(l.byNamespace('a').list()), ['a/db-1', 'a/web-1']);
    assert.deepEqual(names(l.byNamespace('b').list(parseLabelSelector('app'))), ['b/web-2']);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0] ?? '', /no namespace index/);
  });

  test('get looks up namespace/name and a miss throws NotFoundError', () => {
    const l = new Lister(podIndexer().reader(), pods);
    assert.equal(l.byNamespace('a').get('web-1').metadata?.name, 'web-1');
    assert.throws(
      () => l.byNamespace('b').get('web-1'),
      (err: unknown) => isNotFound(err) && /pods "web-1" not found/.test((err as Error).message),
    );
    assert.equal(l.byNamespace('b').tryGet('bare')?.metadata?.name, 'bare');
  });
});

describe('Lister: types flow end to end', () => {
  test('an Indexer<V1Pod> gives a Lister<V1Pod> whose get returns a read-only V1Pod', () => {
    const ix = podIndexer();
    const l = new Lister(ix.reader(), pods);
    const p = l.byNamespace('a').get('web-1');
    const typed: DeepReadonly<V1Pod> = p;
    assert.equal(typed.kind, 'Pod');
    const mutations = (): void => {
      // @ts-expect-error the lister's objects are read-only
      p.metadata = {};
      const labels = p.metadata?.labels;
      // @ts-expect-error nested maps are read-only too
      if (labels !== undefined) labels['app'] = 'x';
    };
    assert.equal(typeof mutations, 'function');
  });
});
