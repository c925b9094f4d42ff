import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compactForControllers } from '../../src/cache/transforms.js';
import type { KubeObject } from '../../src/client/types.js';

interface PodLike extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

/** A pod as the API server sends it: fresh objects each time (as JSON.parse makes them). */
function pod(name: string, extra: Record<string, unknown> = {}): PodLike {
  return JSON.parse(
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        namespace: 'ns',
        labels: { app: 'web', tier: 'frontend' },
        annotations: { [lastApplied]: '{"kind":"Pod"}', keep: 'me' },
        managedFields: [{ manager: 'kubectl', operation: 'Apply' }],
      },
      spec: {
        tolerations: [
          { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' },
        ],
        containers: [{ name: 'main', image: 'registry.example.com/web:1.0', args: [name] }],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
      ...extra,
    }),
  ) as PodLike;
}

/** What a cached object must read as: the same, without the dropped fields. */
function expected(p: PodLike, dropped: string[] = [lastApplied]): unknown {
  const copy = structuredClone(p) as PodLike & { metadata: Record<string, unknown> };
  delete copy.metadata.managedFields;
  const annotations = copy.metadata.annotations;
  for (const a of dropped) if (annotations !== undefined) delete annotations[a];
  return copy;
}

describe('compactForControllers (a transform preset: less memory, the same reads)', () => {
  test('drops managedFields and the last-applied annotation (and those named), keeps every other field, and is idempotent', () => {
    const t = compactForControllers<PodLike>({ dropAnnotations: ['keep'] });
    const p = pod('a');
    const want = expected(p, [lastApplied, 'keep']);
    const out = t(p);
    assert.equal(out, p, 'it changes the object in place and returns it');
    assert.deepEqual(out, want);
    assert.deepEqual(
      t(out),
      want,
      'a second pass changes nothing (informer transforms must be idempotent)',
    );
  });

  test('an equal subtree seen before is shared from its second sighting; a different one is not', () => {
    const t = compactForControllers<PodLike>();
    const a = t(pod('a'));
    const b = t(pod('b'));
    const c = t(
      pod('c', { status: { phase: 'Pending', conditions: [{ type: 'Ready', status: 'False' }] } }),
    );
    assert.equal(
      b.spec?.tolerations,
      a.spec?.tolerations,
      'the second pod gets the first one’s list',
    );
    assert.equal(c.spec?.tolerations, a.spec?.tolerations);
    assert.equal(b.status?.conditions, a.status?.conditions);
    assert.notEqual(c.status?.conditions, a.status?.conditions, 'different values are not shared');
    assert.deepEqual(c.status?.conditions, [{ type: 'Ready', status: 'False' }]);
    // Subtrees with a per-object value stay each object's own, with their shared parts inside.
    const ca = (a.spec?.containers as { args: string[] }[])[0];
    const cb = (b.spec?.containers as { args: string[] }[])[0];
    assert.notEqual(ca, cb);
    assert.deepEqual(cb?.args, ['b']);
  });

  test('shared subtrees are frozen: writing to one throws instead of changing every object that shares it (cache objects are read-only, client-go)', () => {
    const t = compactForControllers<PodLike>();
    const a = t(pod('a'));
    const b = t(pod('b'));
    const tolerations = b.spec?.tolerations as { operator: string }[];
    assert.throws(() => {
      (tolerations[0] as { operator: string }).operator = 'Equal';
    }, TypeError);
    assert.equal((a.spec?.tolerations as { operator: string }[])[0]?.operator, 'Exists');
    // The objects themselves stay writable where nothing is shared (copy before changing anyway).
    (b.metadata as { name: string }).name = 'renamed';
    assert.equal(a.metadata?.name, 'a');
  });

  test('maxShared bounds what it shares: past the bound, equal subtrees stay separate copies', () => {
    const t = compactForControllers<PodLike>({ maxShared: 1 });
    const a = t(pod('a'));
    const b = t(pod('b'));
    const shared = [
      b.spec?.tolerations === a.spec?.tolerations,
      b.status?.conditions === a.status?.conditions,
      b.metadata?.labels === a.metadata?.labels,
    ].filter(Boolean).length;
    assert.equal(shared, 1);
    assert.deepEqual(b, expected(pod('b')));
  });

  test('any JSON objects read the same after it, alone and in sequence, and a second pass changes nothing', () => {
    const json = fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.string(), json, json), { minLength: 1, maxLength: 6 }),
        (items) => {
          const t = compactForControllers<PodLike>({ maxShared: 8, maxStrings: 16 });
          const objs = items.map(
            ([name, spec, status]) =>
              JSON.parse(
                JSON.stringify({ metadata: { name, managedFields: [spec] }, spec, status }),
              ) as PodLike,
          );
          const wants = objs.map((o) => expected(o));
          const outs = objs.map((o) => t(o));
          for (let i = 0; i < outs.length; i++) {
            assert.deepEqual(outs[i], wants[i]);
            assert.deepEqual(t(outs[i] as PodLike), wants[i]);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
