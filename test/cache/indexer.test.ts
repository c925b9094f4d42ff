import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IndexFuncError,
  IndexNotFoundError,
  Indexer,
  IndexerConflictError,
  metaNamespaceIndexFunc,
  namespaceIndex,
  type IndexFunc,
} from '../../src/cache/indexer.js';
import { DeletedFinalStateUnknown, KeyError } from '../../src/cache/keys.js';
import type { KubeObject } from '../../src/client/types.js';

interface Obj extends KubeObject {
  spec?: { owner?: string; tags?: string[] };
}

function obj(ns: string, name: string, owner?: string, tags?: string[]): Obj {
  const spec: Obj['spec'] = {};
  if (owner !== undefined) spec.owner = owner;
  if (tags !== undefined) spec.tags = tags;
  return { metadata: { namespace: ns, name, resourceVersion: '1' }, spec };
}

const byOwner: IndexFunc<Obj> = (o) => (o.spec?.owner === undefined ? [] : [o.spec.owner]);
const byTag: IndexFunc<Obj> = (o) => o.spec?.tags ?? [];

function newIndexer(): Indexer<Obj> {
  return new Indexer<Obj>({
    indexers: { [namespaceIndex]: metaNamespaceIndexFunc, owner: byOwner, tag: byTag },
  });
}

function sortedNames(objs: readonly { metadata?: { name?: string } }[]): string[] {
  return objs.map((o) => o.metadata?.name ?? '').sort();
}

/** A snapshot of every index for "unchanged" checks. */
function snapshot(ix: Indexer<Obj>): unknown {
  const out: Record<string, Record<string, string[]>> = {};
  for (const name of Object.keys(ix.getIndexers())) {
    const idx: Record<string, string[]> = {};
    for (const v of ix.listIndexFuncValues(name).sort()) idx[v] = ix.indexKeys(name, v).sort();
    out[name] = idx;
  }
  return {
    keys: ix.listKeys().sort(),
    objs: ix
      .listKeys()
      .sort()
      .map((k) => ix.getByKey(k)),
    out,
  };
}

describe('Indexer: store', () => {
  test('add stores under namespace/name and get/getByKey find it', () => {
    const ix = newIndexer();
    const a = obj('ns', 'a');
    ix.add(a);
    assert.equal(ix.getByKey('ns/a'), a);
    assert.equal(ix.get(obj('ns', 'a')), a);
    assert.equal(ix.getByKey('ns/b'), undefined);
    assert.equal(ix.hasKey('ns/a'), true);
    assert.equal(ix.size, 1);
  });

  test('add and update are the same overwrite', () => {
    const ix = newIndexer();
    ix.update(obj('ns', 'a', 'x'));
    const a2 = obj('ns', 'a', 'y');
    ix.add(a2);
    assert.equal(ix.getByKey('ns/a'), a2);
    assert.deepEqual(ix.listKeys(), ['ns/a']);
  });

  test('delete of a missing key is a no-op', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a'));
    ix.delete(obj('ns', 'zzz'));
    assert.equal(ix.size, 1);
  });

  test('delete accepts a DeletedFinalStateUnknown tombstone and a key string', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o'));
    ix.add(obj('ns', 'b', 'o'));
    ix.delete(new DeletedFinalStateUnknown('ns/a', obj('stale', 'stale')));
    ix.delete('ns/b');
    assert.equal(ix.size, 0);
    assert.deepEqual(ix.listIndexFuncValues('owner'), []);
  });

  test('list and listKeys return everything', () => {
    const ix = newIndexer();
    ix.add(obj('a', '1'));
    ix.add(obj('b', '2'));
    assert.deepEqual(sortedNames(ix.list()), ['1', '2']);
    assert.deepEqual(ix.listKeys().sort(), ['a/1', 'b/2']);
  });

  test('replace swaps the whole content, rebuilds indexes and records the resourceVersion', () => {
    const ix = newIndexer();
    assert.equal(ix.lastSyncResourceVersion(), '');
    ix.add(obj('a', 'old', 'o1'));
    ix.replace([obj('b', 'new1', 'o2'), obj('b', 'new2', 'o2')], '42');
    assert.deepEqual(ix.listKeys().sort(), ['b/new1', 'b/new2']);
    assert.deepEqual(ix.listIndexFuncValues('owner'), ['o2']);
    assert.deepEqual(ix.listIndexFuncValues(namespaceIndex), ['b']);
    assert.equal(ix.lastSyncResourceVersion(), '42');
  });

  test('replace with duplicate keys keeps the last one', () => {
    const ix = newIndexer();
    const second = obj('a', 'x', 'two');
    ix.replace([obj('a', 'x', 'one'), second], '1');
    assert.equal(ix.getByKey('a/x'), second);
    assert.deepEqual(ix.listIndexFuncValues('owner'), ['two']);
  });

  test('resync is a no-op', () => {
    const ix = newIndexer();
    ix.add(obj('a', 'x'));
    const before = snapshot(ix);
    ix.resync();
    assert.deepEqual(snapshot(ix), before);
  });

  test('a custom key function is used', () => {
    const ix = new Indexer<Obj>({ keyFunc: (o) => (o as Obj).metadata?.name ?? '' });
    ix.add(obj('ns', 'a'));
    assert.deepEqual(ix.listKeys(), ['a']);
  });
});

describe('Indexer: index maintenance', () => {
  test('an update moves the key from the old value to the new one and drops empty sets', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o1'));
    ix.update(obj('ns', 'a', 'o2'));
    assert.deepEqual(ix.listIndexFuncValues('owner'), ['o2']);
    assert.deepEqual(ix.indexKeys('owner', 'o1'), []);
    assert.deepEqual(ix.indexKeys('owner', 'o2'), ['ns/a']);
  });

  test('multi-valued indexes file a key under each value and unfile removed ones', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', undefined, ['x', 'y']));
    ix.add(obj('ns', 'b', undefined, ['y']));
    assert.deepEqual(ix.indexKeys('tag', 'y').sort(), ['ns/a', 'ns/b']);
    ix.update(obj('ns', 'a', undefined, ['z']));
    assert.deepEqual(ix.listIndexFuncValues('tag').sort(), ['y', 'z']);
    assert.deepEqual(ix.indexKeys('tag', 'x'), []);
  });

  test('an object with no values is in no set of that index', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a'));
    assert.deepEqual(ix.listIndexFuncValues('owner'), []);
  });

  test('delete removes the key from every index', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o', ['t']));
    ix.delete(obj('ns', 'a'));
    for (const name of ['owner', 'tag', namespaceIndex])
      assert.deepEqual(ix.listIndexFuncValues(name), []);
  });

  test('the namespace index files cluster-scoped objects under ""', () => {
    const ix = newIndexer();
    ix.add({ metadata: { name: 'node' } });
    assert.deepEqual(ix.indexKeys(namespaceIndex, ''), ['node']);
  });
});

describe('Indexer: queries', () => {
  test('byIndex returns exactly the objects under the value', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o1'));
    ix.add(obj('ns', 'b', 'o1'));
    ix.add(obj('ns', 'c', 'o2'));
    assert.deepEqual(sortedNames(ix.byIndex('owner', 'o1')), ['a', 'b']);
    assert.deepEqual(ix.byIndex('owner', 'none'), []);
  });

  test('index returns the union over the object values', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', undefined, ['x']));
    ix.add(obj('ns', 'b', undefined, ['y']));
    ix.add(obj('ns', 'c', undefined, ['x', 'y']));
    ix.add(obj('ns', 'd', undefined, ['z']));
    assert.deepEqual(sortedNames(ix.index('tag', obj('q', 'q', undefined, ['x', 'y']))), [
      'a',
      'b',
      'c',
    ]);
    assert.deepEqual(sortedNames(ix.index('tag', obj('q', 'q', undefined, ['z']))), ['d']);
  });

  test('an unknown index fails with "Index with name X does not exist" for index, byIndex and indexKeys', () => {
    const ix = newIndexer();
    const check = (err: unknown): boolean =>
      err instanceof IndexNotFoundError &&
      err.message.startsWith('Index with name nope does not exist');
    assert.throws(() => ix.byIndex('nope', 'x'), check);
    assert.throws(() => ix.indexKeys('nope', 'x'), check);
    assert.throws(() => ix.index('nope', obj('a', 'b')), check);
  });

  test('listIndexFuncValues of an unknown index is empty, not an error', () => {
    assert.deepEqual(newIndexer().listIndexFuncValues('nope'), []);
  });

  test('getIndexers returns the registered functions by name', () => {
    const ix = newIndexer();
    const got = ix.getIndexers();
    assert.deepEqual(Object.keys(got).sort(), ['namespace', 'owner', 'tag']);
    assert.equal(got['owner'], byOwner);
  });
});

describe('Indexer: addIndexers', () => {
  test('indexes the items already stored', () => {
    const ix = new Indexer<Obj>();
    ix.add(obj('ns', 'a', 'o1'));
    ix.add(obj('ns', 'b', 'o1'));
    ix.addIndexers({ owner: byOwner });
    assert.deepEqual(ix.indexKeys('owner', 'o1').sort(), ['ns/a', 'ns/b']);
    ix.add(obj('ns', 'c', 'o1'));
    assert.equal(ix.indexKeys('owner', 'o1').length, 3);
  });

  test('a name that already exists is rejected with an indexer conflict and nothing is added', () => {
    const ix = newIndexer();
    assert.throws(
      () => ix.addIndexers({ fresh: byOwner, owner: byOwner }),
      (err: unknown) =>
        err instanceof IndexerConflictError && err.message.startsWith('indexer conflict: owner'),
    );
    assert.equal(ix.getIndexers()['fresh'], undefined);
  });

  test('a new function that throws on a stored item adds no index and changes nothing', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o'));
    const before = snapshot(ix);
    assert.throws(
      () =>
        ix.addIndexers({
          ok: byOwner,
          bad: () => {
            throw new Error('boom');
          },
        }),
      IndexFuncError,
    );
    assert.deepEqual(snapshot(ix), before);
    assert.deepEqual(Object.keys(ix.getIndexers()).sort(), ['namespace', 'owner', 'tag']);
    ix.addIndexers({ ok: byOwner });
    assert.deepEqual(ix.indexKeys('ok', 'o'), ['ns/a']);
  });
});

describe('Indexer: a failing index function rejects the write and leaves the cache as it was', () => {
  const picky: IndexFunc<Obj> = (o) => {
    if (o.spec?.owner === 'explode') throw new Error('cannot index explode');
    return [o.spec?.owner ?? ''];
  };

  function pickyIndexer(): Indexer<Obj> {
    const ix = new Indexer<Obj>({ indexers: { namespace: metaNamespaceIndexFunc, picky } });
    ix.add(obj('ns', 'a', 'o1'));
    ix.add(obj('ns', 'b', 'o2'));
    return ix;
  }

  test('add of a new object: IndexFuncError naming index and key, nothing stored', () => {
    const ix = pickyIndexer();
    const before = snapshot(ix);
    assert.throws(
      () => ix.add(obj('ns', 'c', 'explode')),
      (err: unknown) =>
        err instanceof IndexFuncError &&
        err.indexName === 'picky' &&
        err.key === 'ns/c' &&
        /cannot index explode/.test(err.message) &&
        /cache is unchanged/.test(err.message),
    );
    assert.deepEqual(snapshot(ix), before);
  });

  test('update of an existing object: the old object and its index entries stay', () => {
    const ix = pickyIndexer();
    const before = snapshot(ix);
    const old = ix.getByKey('ns/a');
    assert.throws(() => ix.update(obj('ns', 'a', 'explode')), IndexFuncError);
    assert.equal(ix.getByKey('ns/a'), old);
    assert.deepEqual(snapshot(ix), before);
  });

  test('replace is all or nothing', () => {
    const ix = pickyIndexer();
    const before = snapshot(ix);
    assert.throws(
      () => ix.replace([obj('x', 'ok', 'o'), obj('x', 'bad', 'explode')], '9'),
      IndexFuncError,
    );
    assert.deepEqual(snapshot(ix), before);
    assert.equal(ix.lastSyncResourceVersion(), '');
  });

  test('an index function returning a non-array or non-strings is rejected the same way', () => {
    const ix = new Indexer<Obj>({
      indexers: {
        weird: (o) =>
          o.spec?.owner === 'num'
            ? ([1] as unknown as string[])
            : o.spec?.owner === 'null'
              ? (null as unknown as string[])
              : [],
      },
    });
    assert.throws(() => ix.add(obj('a', 'b', 'num')), /holding a number/);
    assert.throws(() => ix.add(obj('a', 'b', 'null')), /returned null/);
    assert.equal(ix.size, 0);
  });

  test('the index query of an object the function rejects fails with IndexFuncError', () => {
    const ix = pickyIndexer();
    assert.throws(() => ix.index('picky', obj('q', 'q', 'explode')), IndexFuncError);
  });
});

describe('Indexer: bad objects', () => {
  test('an object without metadata is rejected with a KeyError and the store is unchanged', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o'));
    const before = snapshot(ix);
    assert.throws(() => ix.add({ kind: 'Pod' }), KeyError);
    assert.throws(
      () => ix.add({ metadata: { name: 5 } } as unknown as Obj),
      /metadata\.name is a number/,
    );
    assert.throws(() => ix.replace([obj('x', 'y'), {}], '2'), KeyError);
    assert.deepEqual(snapshot(ix), before);
  });

  test('a key function that throws is wrapped in a KeyError', () => {
    const ix = new Indexer<Obj>({
      keyFunc: () => {
        throw new Error('no key');
      },
    });
    assert.throws(
      () => ix.add(obj('a', 'b')),
      (err: unknown) => err instanceof KeyError && /no key/.test(err.message),
    );
  });

  test('a non-string namespace makes the namespace index reject the write', () => {
    const ix = new Indexer<Obj>({
      keyFunc: (o) => String((o as Obj).metadata?.name),
      indexers: { namespace: metaNamespaceIndexFunc },
    });
    assert.throws(
      () => ix.add({ metadata: { name: 'a', namespace: 3 } } as unknown as Obj),
      IndexFuncError,
    );
    assert.equal(ix.size, 0);
  });
});

describe('Indexer: reader', () => {
  test('the reader sees every later write and exposes no write methods', () => {
    const ix = newIndexer();
    const r = ix.reader();
    ix.add(obj('ns', 'a', 'o'));
    assert.equal(r.size, 1);
    assert.equal(r.getByKey('ns/a')?.metadata?.name, 'a');
    assert.deepEqual(sortedNames(r.byIndex('owner', 'o')), ['a']);
    assert.equal(r.hasIndex('owner'), true);
    assert.equal((r as unknown as Record<string, unknown>)['add'], undefined);
    assert.equal(Object.isFrozen(r), true);
    assert.equal(ix.reader(), r);
  });

  test('objects from the reader are typed deeply read-only', () => {
    const ix = newIndexer();
    ix.add(obj('ns', 'a', 'o', ['t']));
    const got = ix.reader().getByKey('ns/a');
    assert.ok(got);
    // Type-level checks only: never called, so the cached object is not touched.
    const mutations = (): void => {
      // @ts-expect-error metadata is read-only through the reader
      got.metadata = {};
      // @ts-expect-error nested arrays are read-only through the reader
      got.spec?.tags?.push('u');
    };
    assert.equal(typeof mutations, 'function');
  });
});

describe('Indexer.upsert (add under a key the caller computed)', () => {
  test('returns the object it replaced (undefined for a new key) and updates every index', () => {
    const ix = newIndexer();
    const a1 = obj('ns', 'a', 'o1', ['x']);
    assert.equal(ix.upsert(ix.keyOf(a1), a1), undefined);
    const a2 = obj('ns', 'a', 'o2', ['y']);
    assert.equal(ix.upsert(ix.keyOf(a2), a2), a1);
    assert.equal(ix.getByKey('ns/a'), a2);
    assert.deepEqual(sortedNames(ix.byIndex('owner', 'o2')), ['a']);
    assert.deepEqual(ix.byIndex('owner', 'o1'), []);
    assert.deepEqual(ix.byIndex('tag', 'x'), []);
    assert.deepEqual(sortedNames(ix.byIndex('tag', 'y')), ['a']);
  });

  test('an index function that throws leaves the cache unchanged', () => {
    const ix = new Indexer<Obj>({
      indexers: {
        boom: (o) => {
          if (o.spec?.owner === 'bad') throw new Error('no');
          return [];
        },
      },
    });
    const a1 = obj('ns', 'a', 'good');
    ix.upsert('ns/a', a1);
    assert.throws(() => ix.upsert('ns/a', obj('ns', 'a', 'bad')), IndexFuncError);
    assert.equal(ix.getByKey('ns/a'), a1);
    assert.equal(ix.size, 1);
  });
});
