// Fuzzing the unstructured nested-field helpers (src/dynamic/unstructured.ts) against a
// reference model built on Maps (which have no prototype to pollute): random sequences of
// set/remove (in place and copy-on-write) over objects parsed from JSON with hostile keys.
// test/dynamic/unstructured.test.ts holds the single-operation properties; this file checks
// sequences, pollution, sharing and non-mutation.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import {
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

const RUNS = 500;

// ---- the reference model ---------------------------------------------------------------

type Model = null | boolean | number | string | Model[] | ModelMap;
interface ModelMap {
  readonly map: Map<string, Model>;
}

function toModel(value: unknown): Model {
  if (value === null || typeof value !== 'object') return value as Model;
  if (Array.isArray(value)) return value.map(toModel);
  const map = new Map<string, Model>();
  for (const k of Object.keys(value)) map.set(k, toModel((value as UnstructuredMap)[k]));
  return { map };
}

function isModelMap(m: Model | undefined): m is ModelMap {
  return typeof m === 'object' && m !== null && !Array.isArray(m);
}

/** The model's typed failure: the path up to the offending field. */
class ModelTypeError extends Error {
  constructor(readonly fields: string[]) {
    super(`not a map at .${fields.join('.')}`);
  }
}

function modelSet(root: ModelMap, value: Model, path: readonly string[]): void {
  let m = root;
  for (let i = 0; i < path.length - 1; i++) {
    const next = m.map.get(path[i] as string);
    if (next === undefined || next === null) {
      const made: ModelMap = { map: new Map() };
      m.map.set(path[i] as string, made);
      m = made;
    } else if (isModelMap(next)) m = next;
    else throw new ModelTypeError(path.slice(0, i + 1));
  }
  m.map.set(path[path.length - 1] as string, value);
}

function modelRemove(root: ModelMap, path: readonly string[]): void {
  let m: Model | undefined = root;
  for (let i = 0; i < path.length - 1; i++) {
    if (!isModelMap(m)) return;
    m = m.map.get(path[i] as string);
  }
  if (isModelMap(m)) m.map.delete(path[path.length - 1] as string);
}

/** `undefined` when not found (missing or null), like the helpers' `found: false`. */
function modelGet(root: Model, path: readonly string[]): Model | undefined | ModelTypeError {
  let m: Model | undefined = root;
  for (let i = 0; i < path.length; i++) {
    if (m === undefined || m === null) return undefined;
    if (!isModelMap(m)) return new ModelTypeError(path.slice(0, i));
    m = m.map.get(path[i] as string);
  }
  return m === null ? undefined : m;
}

// ---- generators ----------------------------------------------------------------------

const HOSTILE = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf'];
const keyArb = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('spec', 'metadata', 'a', 'b', '', 'a.b', ...HOSTILE) },
  { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
);
const pathArb = fc.array(keyArb, { minLength: 1, maxLength: 4 });
const valueArb = fc.jsonValue({ maxDepth: 2 });

/**
 * Starting objects as they arrive from the API server: parsed from JSON text, so a
 * `"__proto__"` key is an own property, not the prototype.
 */
const startArb: fc.Arbitrary<UnstructuredMap> = fc
  .dictionary(keyArb, fc.oneof(valueArb, fc.dictionary(keyArb, valueArb, { maxKeys: 3 })), {
    maxKeys: 5,
  })
  .map((d) => {
    // Render by hand so hostile keys survive as own keys whatever the generator's prototypes.
    const entries = Object.keys(d).map((k) => `${JSON.stringify(k)}:${JSON.stringify(d[k])}`);
    return JSON.parse(`{${entries.join(',')}}`) as UnstructuredMap;
  });

type Op =
  | { kind: 'set' | 'with'; path: string[]; value: unknown }
  | { kind: 'remove' | 'without'; path: string[] };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constantFrom<'set' | 'with'>('set', 'with'),
    path: pathArb,
    value: valueArb,
  }),
  fc.record({ kind: fc.constantFrom<'remove' | 'without'>('remove', 'without'), path: pathArb }),
);

function deepFreeze<V>(value: V): V {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const k of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[k]);
  }
  return value;
}

const protoKeys = (): string[] => Object.getOwnPropertyNames(Object.prototype).sort();
const PROTO_KEYS = protoKeys();

/** No map in the tree has another prototype than Object.prototype; Object.prototype is intact. */
function assertNoPollution(value: unknown): void {
  assert.deepEqual(protoKeys(), PROTO_KEYS, 'Object.prototype gained a property');
  const probe: Record<string, unknown> = {};
  for (const k of ['a', 'b', 'spec', 'polluted', '']) assert.equal(probe[k], undefined);
  const walk = (v: unknown): void => {
    if (typeof v !== 'object' || v === null) return;
    if (!Array.isArray(v)) {
      assert.equal(Object.getPrototypeOf(v), Object.prototype, 'a map got another prototype');
    }
    for (const k of Object.keys(v)) walk((v as Record<string, unknown>)[k]);
  };
  walk(value);
}

describe('unstructured helpers fuzzing', () => {
  test('random set/remove sequences (in place and copy-on-write) agree with the Map-based reference model', () => {
    fc.assert(
      fc.property(startArb, fc.array(opArb, { maxLength: 12 }), (start, ops) => {
        let obj = start;
        const model = toModel(start) as ModelMap;
        for (const op of ops) {
          const before = JSON.stringify(obj);
          let expectedError: ModelTypeError | undefined;
          try {
            if (op.kind === 'set' || op.kind === 'with') {
              modelSet(model, toModel(op.value), op.path);
            } else modelRemove(model, op.path);
          } catch (err) {
            if (!(err instanceof ModelTypeError)) throw err;
            expectedError = err;
          }
          let actualError: unknown;
          try {
            if (op.kind === 'set') setNestedField(obj, op.value, ...op.path);
            else if (op.kind === 'remove') removeNestedField(obj, ...op.path);
            else {
              const input = obj;
              const out =
                op.kind === 'with'
                  ? withNestedField(input, op.value, ...op.path)
                  : withoutNestedField(input, ...op.path);
              // Copy-on-write never changes its input.
              assert.equal(JSON.stringify(input), before);
              obj = out;
            }
          } catch (err) {
            actualError = err;
          }
          if (expectedError !== undefined) {
            assert.ok(actualError instanceof NestedFieldTypeError, String(actualError));
            assert.deepEqual(actualError.fields, expectedError.fields);
            assert.equal(actualError.expected, 'map');
            // A failed set (either form) changes nothing: the non-map is met before any
            // map is made.
            assert.equal(JSON.stringify(obj), before);
          } else {
            assert.equal(actualError, undefined, `unexpected ${String(actualError)}`);
          }
          assert.deepEqual(toModel(obj), model, `after ${op.kind} ${JSON.stringify(op.path)}`);
          assertNoPollution(obj);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('after set the path reads back the value; after remove it is not found; hostile keys stay own fields', () => {
    fc.assert(
      fc.property(startArb, pathArb, valueArb, (start, path, value) => {
        const expected = toModel(start) as ModelMap;
        try {
          modelSet(expected, toModel(value), path);
        } catch {
          return; // a non-map on the path: covered by the sequence property
        }
        const copy = withNestedField(start, value, ...path);
        setNestedField(start, value, ...path);
        for (const o of [copy, start]) {
          const r = nestedField(o, ...path);
          assert.equal(r.found, value !== null);
          if (value !== null) assert.equal(r.value, value);
          assertNoPollution(o);
        }
        const removed = withoutNestedField(start, ...path);
        removeNestedField(start, ...path);
        for (const o of [removed, start]) {
          assert.equal(nestedField(o, ...path).found, false);
          assertNoPollution(o);
        }
      }),
      { numRuns: RUNS },
    );
  });

  test('getters on any object and path never change it, and throw only NestedFieldTypeError', () => {
    const getters = [
      nestedField,
      nestedString,
      nestedNumber,
      nestedBoolean,
      nestedMap,
      nestedSlice,
      nestedStringSlice,
      nestedStringMap,
    ];
    fc.assert(
      fc.property(startArb, fc.array(keyArb, { maxLength: 4 }), (start, path) => {
        const frozen = deepFreeze(start);
        const expected = modelGet(toModel(frozen), path);
        for (const get of getters) {
          try {
            const r = get(frozen, ...path);
            assert.equal(r.found, r.value !== undefined);
            if (get === nestedField) {
              assert.ok(!(expected instanceof ModelTypeError));
              assert.deepEqual(r.found ? toModel(r.value) : undefined, expected);
            }
          } catch (err) {
            assert.ok(err instanceof NestedFieldTypeError, `${get.name}: ${String(err)}`);
            if (get === nestedField) {
              assert.ok(expected instanceof ModelTypeError);
              assert.deepEqual(err.fields, expected.fields);
            }
          }
        }
        assertNoPollution(frozen);
      }),
      { numRuns: RUNS },
    );
  });

  test('copy-on-write works on a deeply frozen (cached) object and shares every branch off the path', () => {
    fc.assert(
      fc.property(startArb, pathArb, valueArb, (start, path, value) => {
        const frozen = deepFreeze(start);
        let out: UnstructuredMap;
        try {
          out = withNestedField(frozen, value, ...path);
        } catch (err) {
          assert.ok(err instanceof NestedFieldTypeError, String(err));
          return;
        }
        // Walk the path: every sibling off the path is the very same object as before.
        let a: unknown = frozen;
        let b: unknown = out;
        for (const k of path) {
          assert.notEqual(a, b, 'a map on the path is copied');
          const am = (typeof a === 'object' && a !== null ? a : {}) as UnstructuredMap;
          const bm = b as UnstructuredMap;
          for (const sibling of Object.keys(am)) {
            if (sibling !== k) assert.equal(bm[sibling], am[sibling]);
          }
          a = Object.hasOwn(am, k) ? am[k] : undefined;
          b = bm[k];
        }
        assert.equal(b, value);
        const without = withoutNestedField(frozen, ...path);
        if (nestedFieldOrUndefined(frozen, path) === undefined) assert.equal(without, frozen);
        else assert.equal(nestedFieldOrUndefined(without, path), undefined);
      }),
      { numRuns: RUNS },
    );
  });
});

/** The own value at `path`, or undefined when absent or the path runs into a non-map. */
function nestedFieldOrUndefined(obj: unknown, path: readonly string[]): unknown {
  let m: unknown = obj;
  for (const k of path) {
    if (typeof m !== 'object' || m === null || Array.isArray(m)) return undefined;
    if (!Object.hasOwn(m, k)) return undefined;
    m = (m as UnstructuredMap)[k];
  }
  return m;
}
