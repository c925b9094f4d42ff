// Fuzzing the key functions (src/cache/keys.ts): keys of valid objects split back into
// their namespace and name, tombstones give their stored key whatever they hold, and
// anything that is not a nameable object fails with the typed KeyError.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
  DeletedFinalStateUnknown,
  KeyError,
  UnexpectedKeyFormatError,
  deletionHandlingMetaNamespaceKeyFunc,
  describe as describeObject,
  metaNamespaceKeyFunc,
  objectKey,
  splitMetaNamespaceKey,
} from '../../src/cache/keys.js';

const RUNS = 1000;

// Kubernetes names and namespaces: DNS-1123 labels/subdomains (never a '/').
const labelArb = fc.stringMatching(/^[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?$/);
const nameArb = fc.oneof(
  labelArb,
  fc.array(labelArb, { minLength: 2, maxLength: 3 }).map((parts) => parts.join('.')),
  // Names the API server would refuse but a key function must still handle: no '/' is the
  // only thing keys rely on.
  fc.string({ unit: 'binary', maxLength: 12 }).filter((s) => !s.includes('/')),
);

// Everything JavaScript can hand a key function, including values JSON cannot render.
const anythingArb = fc.anything({
  withBigInt: true,
  withBoxedValues: true,
  withDate: true,
  withMap: true,
  withSet: true,
  withNullPrototype: true,
  withObjectString: true,
  withSparseArray: true,
  withTypedArray: true,
  withUnicodeString: true,
});

function keyError(fn: () => unknown): KeyError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof KeyError, `expected KeyError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected a KeyError');
}

describe('key function fuzzing', () => {
  test('namespace/name keys split back into the same namespace and name', () => {
    fc.assert(
      fc.property(fc.option(nameArb, { nil: undefined }), nameArb, (namespace, name) => {
        const obj = { metadata: namespace === undefined ? { name } : { namespace, name } };
        const key = metaNamespaceKeyFunc(obj);
        assert.equal(key, objectKey(namespace, name));
        assert.equal(deletionHandlingMetaNamespaceKeyFunc(obj), key);
        // A cluster-scoped object (or the empty namespace) is keyed by its name alone.
        assert.deepEqual(splitMetaNamespaceKey(key), [namespace ?? '', name]);
        // A key is an explicit key: key functions hand strings back unchanged.
        assert.equal(metaNamespaceKeyFunc(key), key);
      }),
      { numRuns: RUNS },
    );
  });

  test('a tombstone gives its stored key whatever object it holds', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), anythingArb, (key, obj) => {
        assert.equal(
          deletionHandlingMetaNamespaceKeyFunc(new DeletedFinalStateUnknown(key, obj)),
          key,
        );
      }),
      { numRuns: RUNS },
    );
  });

  test('splitMetaNamespaceKey splits any string with at most one slash and rejects the rest with UnexpectedKeyFormatError', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 6 }), fc.constant('/')), {
          maxLength: 6,
        }),
        (parts) => {
          const key = parts.join('');
          const slashes = key.split('/').length - 1;
          if (slashes > 1) {
            assert.throws(
              () => splitMetaNamespaceKey(key),
              (err: unknown) => err instanceof UnexpectedKeyFormatError && err.key === key,
            );
            return;
          }
          const [ns, name] = splitMetaNamespaceKey(key);
          assert.equal(slashes === 0 ? name : `${ns}/${name}`, key);
          if (slashes === 0) assert.equal(ns, '');
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('any value gives a string key or a KeyError that carries the value, never another error', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          anythingArb,
          fc.record({ metadata: anythingArb }),
          fc.record({ metadata: fc.record({ name: anythingArb, namespace: anythingArb }) }),
          fc.record({ kind: anythingArb, metadata: fc.record({ name: anythingArb }) }),
        ),
        (obj) => {
          let key: string;
          try {
            key = metaNamespaceKeyFunc(obj);
          } catch (err) {
            assert.ok(err instanceof KeyError, `expected KeyError, got ${String(err)}`);
            assert.equal(err.obj, obj);
            assert.equal(typeof err.message, 'string');
            return;
          }
          assert.equal(typeof key, 'string');
          if (typeof obj !== 'string') {
            const meta = (obj as { metadata: { name: string; namespace?: unknown } }).metadata;
            assert.equal(typeof meta.name, 'string');
            assert.ok(key.endsWith(meta.name));
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('invalid shapes are KeyErrors: not an object, no metadata, non-string name or namespace', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined)),
          fc.bigInt().map((n) => n),
          fc.record({ spec: anythingArb }),
          fc.record({ metadata: fc.oneof(fc.constant(null), fc.integer(), fc.string()) }),
          fc.record({
            metadata: fc.record({ name: fc.oneof(fc.integer(), fc.bigInt(), fc.object()) }),
          }),
          fc.record({
            metadata: fc.record({
              name: fc.string(),
              namespace: fc.oneof(fc.integer({ min: 1 }), fc.bigInt(), fc.object(), fc.boolean()),
            }),
          }),
        ),
        (obj) => {
          const err = keyError(() => metaNamespaceKeyFunc(obj));
          assert.equal(err.obj, obj);
          assert.match(err.message, /couldn't create key for object/);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('regression: a BigInt (or a value whose toJSON throws) gives a KeyError, not a TypeError from the message', () => {
    const throwing = {
      toJSON() {
        throw new Error('no JSON for me');
      },
    };
    for (const obj of [
      10n,
      { metadata: { name: 10n } },
      { metadata: { name: throwing } },
      { metadata: { name: 'a', namespace: 10n } },
      { spec: 10n },
    ]) {
      const err = keyError(() => metaNamespaceKeyFunc(obj));
      assert.equal(err.obj, obj);
    }
    assert.equal(typeof describeObject(10n), 'string');
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    assert.equal(typeof describeObject(circular), 'string');
  });
});
