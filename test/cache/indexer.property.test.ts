import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  IndexFuncError,
  Indexer,
  IndexerConflictError,
  metaNamespaceIndexFunc,
  type IndexFunc,
} from '../../src/cache/indexer.js';
import { KeyError } from '../../src/cache/keys.js';

interface Obj {
  metadata?: { namespace?: string; name?: unknown };
  spec: { owner: string; tags: string[] };
}

const pool: Record<string, IndexFunc<Obj>> = {
  namespace: metaNamespaceIndexFunc,
  owner: (o) => [o.spec.owner],
  tags: (o) => o.spec.tags,
  none: () => [],
  picky: (o) => {
    if (o.spec.owner === 'explode') throw new Error('picky refuses explode');
    return [o.spec.owner.toUpperCase()];
  },
  firstTag: (o) => o.spec.tags.slice(0, 1),
};
const poolNames = Object.keys(pool);

const objArb: fc.Arbitrary<Obj> = fc.record({
  metadata: fc.record({
    namespace: fc.constantFrom('', 'a', 'b'),
    name: fc.constantFrom('x', 'y', 'z', 'w'),
  }),
  spec: fc.record({
    owner: fc.constantFrom('o1', 'o2', 'o3', 'explode'),
    tags: fc.array(fc.constantFrom('t1', 't2', 't3'), { maxLength: 3 }),
  }),
});

const badObjArb: fc.Arbitrary<Obj> = fc.constantFrom<Obj>(
  { spec: { owner: 'o1', tags: [] } },
  { metadata: { name: 7 }, spec: { owner: 'o1', tags: [] } },
);

type Op =
  | { op: 'add'; obj: Obj }
  | { op: 'delete'; obj: Obj }
  | { op: 'replace'; list: Obj[] }
  | { op: 'addIndexers'; names: string[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 5, arbitrary: objArb.map((obj): Op => ({ op: 'add', obj })) },
  { weight: 1, arbitrary: badObjArb.map((obj): Op => ({ op: 'add', obj })) },
  { weight: 3, arbitrary: objArb.map((obj): Op => ({ op: 'delete', obj })) },
  {
    weight: 1,
    arbitrary: fc.array(objArb, { maxLength: 6 }).map((list): Op => ({ op: 'replace', list })),
  },
  {
    weight: 1,
    arbitrary: fc
      .uniqueArray(fc.constantFrom(...poolNames), { minLength: 1, maxLength: 2 })
      .map((names): Op => ({ op: 'addIndexers', names })),
  },
);

function keyOf(o: Obj): string {
  const ns = o.metadata?.namespace ?? '';
  const name = o.metadata?.name as string;
  return ns === '' ? name : `${ns}/${name}`;
}

/** Every index recomputed from the stored objects: name → value → sorted keys. */
function recompute(ix: Indexer<Obj>): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const [name, fn] of Object.entries(ix.getIndexers())) {
    const idx: Record<string, Set<string>> = {};
    for (const key of ix.listKeys()) {
      for (const v of fn(ix.getByKey(key) as Obj)) (idx[v] ??= new Set()).add(key);
    }
    out[name] = Object.fromEntries(
      Object.entries(idx)
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([v, keys]) => [v, [...keys].sort()]),
    );
  }
  return out;
}

/** Every index as the indexer reports it. */
function reported(ix: Indexer<Obj>): Record<string, Record<string, string[]>> {
  const out: Record<string, Record<string, string[]>> = {};
  for (const name of Object.keys(ix.getIndexers())) {
    out[name] = Object.fromEntries(
      ix
        .listIndexFuncValues(name)
        .sort()
        .map((v) => [v, ix.indexKeys(name, v).sort()]),
    );
  }
  return out;
}

describe('Indexer properties', () => {
  test('random add/update/delete/replace/addIndexers sequences leave every index equal to recomputing it, and failed writes change nothing', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...poolNames), { maxLength: 3 }),
        fc.array(opArb, { maxLength: 40 }),
        (initial, ops) => {
          const ix = new Indexer<Obj>({
            indexers: Object.fromEntries(initial.map((n) => [n, pool[n] as IndexFunc<Obj>])),
          });
          const model = new Map<string, Obj>();
          for (const step of ops) {
            const before = {
              model: new Map(model),
              idx: reported(ix),
              names: Object.keys(ix.getIndexers()),
            };
            const has = new Set(Object.keys(ix.getIndexers()));
            let failed = false;
            try {
              switch (step.op) {
                case 'add':
                  ix.add(step.obj);
                  model.set(keyOf(step.obj), step.obj);
                  break;
                case 'delete':
                  ix.delete(step.obj);
                  model.delete(keyOf(step.obj));
                  break;
                case 'replace':
                  ix.replace(step.list, 'rv');
                  model.clear();
                  for (const o of step.list) model.set(keyOf(o), o);
                  break;
                case 'addIndexers':
                  ix.addIndexers(
                    Object.fromEntries(step.names.map((n) => [n, pool[n] as IndexFunc<Obj>])),
                  );
                  break;
              }
            } catch (err) {
              failed = true;
              // Only these typed errors are allowed, and only for these reasons.
              if (err instanceof IndexerConflictError) {
                assert.equal(step.op, 'addIndexers');
                assert.ok(err.names.every((n) => has.has(n)));
              } else if (err instanceof KeyError) {
                assert.equal(step.op, 'add');
              } else if (err instanceof IndexFuncError) {
                assert.equal(err.indexName, 'picky');
              } else {
                throw err;
              }
            }
            if (failed) {
              assert.deepEqual(new Map(model), before.model);
              assert.deepEqual(reported(ix), before.idx);
              assert.deepEqual(Object.keys(ix.getIndexers()), before.names);
            }
            assert.deepEqual(ix.listKeys().sort(), [...model.keys()].sort());
            for (const [k, o] of model) assert.equal(ix.getByKey(k), o);
            assert.deepEqual(reported(ix), recompute(ix));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
