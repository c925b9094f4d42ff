// Nested-field helpers for unstructured objects: found flags, typed errors on wrong types,
// in-place and copy-on-write setters and removers, and property tests.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  EmptyFieldPathError,
  NestedFieldTypeError,
  nestedBoolean,
  nestedField,
  nestedMap,
  nestedNumber,
  nestedSlice,
  nestedString,
  nestedStringMap,
  nestedStringSlice,
  removeNestedField,
  setNestedField,
  withNestedField,
  withoutNestedField,
} from '../../src/dynamic/index.js';
import type { UnstructuredMap } from '../../src/dynamic/index.js';

const obj = (): UnstructuredMap => ({
  apiVersion: 'example.com/v1',
  kind: 'Widget',
  metadata: { name: 'w', labels: { app: 'shop' }, finalizers: ['a', 'b'] },
  spec: { image: 'nginx', replicas: 3, paused: false, ports: [80, 443], empty: null },
});

describe('unstructured nested-field getters', () => {
  it('nestedString of an existing string field returns it with found true', () => {
    assert.deepEqual(nestedString(obj(), 'spec', 'image'), { value: 'nginx', found: true });
  });

  it('nestedNumber and nestedBoolean read numbers and booleans (false counts as found)', () => {
    assert.deepEqual(nestedNumber(obj(), 'spec', 'replicas'), { value: 3, found: true });
    assert.deepEqual(nestedBoolean(obj(), 'spec', 'paused'), { value: false, found: true });
  });

  it('nestedMap and nestedSlice return the cached value itself, not a copy', () => {
    const o = obj();
    assert.equal(nestedMap(o, 'metadata', 'labels').value, (o.metadata as UnstructuredMap).labels);
    assert.equal(nestedSlice(o, 'spec', 'ports').value, (o.spec as UnstructuredMap).ports);
  });

  it('a missing field, a missing parent, or a null value is not found and not an error', () => {
    assert.deepEqual(nestedString(obj(), 'spec', 'nope'), { value: undefined, found: false });
    assert.deepEqual(nestedString(obj(), 'status', 'phase'), { value: undefined, found: false });
    assert.deepEqual(nestedField(obj(), 'spec', 'empty'), { value: undefined, found: false });
  });

  it('nestedField with an empty path returns the object itself', () => {
    const o = obj();
    assert.equal(nestedField(o).value, o);
  });

  it('a value of the wrong type throws NestedFieldTypeError naming the path and the type found', () => {
    assert.throws(
      () => nestedString(obj(), 'spec', 'replicas'),
      (err: unknown) =>
        err instanceof NestedFieldTypeError &&
        err.expected === 'string' &&
        err.actual === 'number' &&
        err.message.includes('.spec.replicas') &&
        err.message.includes('number'),
    );
    assert.throws(() => nestedNumber(obj(), 'spec', 'image'), NestedFieldTypeError);
    assert.throws(() => nestedBoolean(obj(), 'spec', 'image'), NestedFieldTypeError);
    assert.throws(() => nestedMap(obj(), 'spec', 'ports'), /is an array, expected a map/);
    assert.throws(() => nestedSlice(obj(), 'spec'), /is a map, expected an array/);
  });

  it('a non-map in the middle of the path throws with the path up to that field', () => {
    assert.throws(
      () => nestedString(obj(), 'spec', 'image', 'tag'),
      (err: unknown) =>
        err instanceof NestedFieldTypeError &&
        err.fields.join('.') === 'spec.image' &&
        err.actual === 'string' &&
        err.expected === 'map',
    );
  });

  it('nestedStringSlice and nestedStringMap check every element and name the bad one', () => {
    assert.deepEqual(nestedStringSlice(obj(), 'metadata', 'finalizers').value, ['a', 'b']);
    assert.deepEqual(nestedStringMap(obj(), 'metadata', 'labels').value, { app: 'shop' });
    assert.throws(
      () => nestedStringSlice(obj(), 'spec', 'ports'),
      (err: unknown) =>
        err instanceof NestedFieldTypeError && err.fields.join('.') === 'spec.ports.0',
    );
    assert.throws(
      () => nestedStringMap({ m: { a: 'x', b: 2 } }, 'm'),
      (err: unknown) => err instanceof NestedFieldTypeError && err.fields.join('.') === 'm.b',
    );
  });

  it('keys are own properties only: constructor and toString are not found', () => {
    assert.equal(nestedField(obj(), 'spec', 'constructor').found, false);
    assert.equal(nestedField(obj(), 'toString').found, false);
  });
});

describe('unstructured nested-field setters and removers', () => {
  it('setNestedField creates missing maps along the path, in place', () => {
    const o = obj();
    setNestedField(o, 'Ready', 'status', 'conditions', 'phase');
    assert.deepEqual(o.status, { conditions: { phase: 'Ready' } });
  });

  it('setNestedField replaces a null intermediate with a map', () => {
    const o = obj();
    setNestedField(o, 1, 'spec', 'empty', 'x');
    assert.deepEqual((o.spec as UnstructuredMap).empty, { x: 1 });
  });

  it('setNestedField through a non-map throws NestedFieldTypeError and changes nothing there', () => {
    const o = obj();
    assert.throws(() => setNestedField(o, 1, 'spec', 'image', 'tag'), NestedFieldTypeError);
    assert.equal((o.spec as UnstructuredMap).image, 'nginx');
  });

  it('an empty path is an EmptyFieldPathError for every setter and remover', () => {
    assert.throws(() => setNestedField(obj(), 1), EmptyFieldPathError);
    assert.throws(() => removeNestedField(obj()), EmptyFieldPathError);
    assert.throws(() => withNestedField(obj(), 1), EmptyFieldPathError);
    assert.throws(() => withoutNestedField(obj()), EmptyFieldPathError);
  });

  it('removeNestedField removes in place and ignores missing paths and non-maps', () => {
    const o = obj();
    removeNestedField(o, 'spec', 'image');
    assert.equal(nestedField(o, 'spec', 'image').found, false);
    removeNestedField(o, 'status', 'x');
    removeNestedField(o, 'spec', 'replicas', 'x');
    assert.equal(nestedNumber(o, 'spec', 'replicas').value, 3);
  });

  it('withNestedField leaves the original untouched and shares the branches off the path', () => {
    const o = obj();
    const before = structuredClone(o);
    const out = withNestedField(o, 5, 'spec', 'replicas');
    assert.deepEqual(o, before);
    assert.equal(nestedNumber(out, 'spec', 'replicas').value, 5);
    assert.equal(out.metadata, o.metadata);
    assert.notEqual(out.spec, o.spec);
    assert.equal((out.spec as UnstructuredMap).ports, (o.spec as UnstructuredMap).ports);
  });

  it('withoutNestedField leaves the original untouched; a missing field returns the same object', () => {
    const o = obj();
    const before = structuredClone(o);
    const out = withoutNestedField(o, 'metadata', 'labels', 'app');
    assert.deepEqual(o, before);
    assert.deepEqual(nestedMap(out, 'metadata', 'labels').value, {});
    assert.equal(out.spec, o.spec);
    assert.equal(withoutNestedField(o, 'metadata', 'nope'), o);
  });

  it('a __proto__ key is set as an own field and never changes the prototype', () => {
    const o: UnstructuredMap = {};
    setNestedField(o, { polluted: true }, '__proto__', 'x');
    assert.equal(Object.getPrototypeOf(o), Object.prototype);
    assert.deepEqual(nestedField(o, '__proto__', 'x').value, { polluted: true });
    assert.equal(({} as Record<string, unknown>).x, undefined);
  });
});

const key = fc.oneof(fc.string({ maxLength: 6 }), fc.constantFrom('__proto__', 'constructor'));
const path = fc.array(key, { minLength: 1, maxLength: 5 });
const json = fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null);

describe('unstructured nested-field properties', () => {
  it('setNestedField then nestedField returns the value set, for any path and JSON value', () => {
    fc.assert(
      fc.property(path, json, (p, v) => {
        const o: UnstructuredMap = {};
        setNestedField(o, v, ...p);
        const r = nestedField(o, ...p);
        assert.equal(r.found, true);
        assert.equal(r.value, v);
      }),
    );
  });

  it('withNestedField then nestedField returns the value, and the input is unchanged', () => {
    fc.assert(
      fc.property(fc.dictionary(key, json), path, json, (start, p, v) => {
        const original = JSON.stringify(start);
        let out: UnstructuredMap;
        try {
          out = withNestedField(start, v, ...p);
        } catch (err) {
          assert.ok(err instanceof NestedFieldTypeError);
          return;
        }
        assert.equal(JSON.stringify(start), original);
        assert.equal(nestedField(out, ...p).value, v);
      }),
    );
  });

  it('set then remove leaves the path not found', () => {
    fc.assert(
      fc.property(path, json, (p, v) => {
        const o: UnstructuredMap = {};
        setNestedField(o, v, ...p);
        removeNestedField(o, ...p);
        assert.equal(nestedField(o, ...p).found, false);
        const o2: UnstructuredMap = {};
        setNestedField(o2, v, ...p);
        assert.equal(nestedField(withoutNestedField(o2, ...p), ...p).found, false);
        assert.equal(nestedField(o2, ...p).value, v);
      }),
    );
  });

  it('a typed getter of a value of another type always throws NestedFieldTypeError', () => {
    const getters = [
      ['string', nestedString],
      ['number', nestedNumber],
      ['boolean', nestedBoolean],
      ['map', nestedMap],
      ['array', nestedSlice],
    ] as const;
    fc.assert(
      fc.property(path, json, (p, v) => {
        const o: UnstructuredMap = {};
        setNestedField(o, v, ...p);
        const actual = Array.isArray(v) ? 'array' : typeof v === 'object' ? 'map' : typeof v;
        for (const [type, get] of getters) {
          if (type === actual) assert.equal(get(o, ...p).value, v);
          else
            assert.throws(
              () => get(o, ...p),
              (err: unknown) => err instanceof NestedFieldTypeError && err.actual === actual,
            );
        }
      }),
    );
  });
});
