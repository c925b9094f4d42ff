/**
 * Nested-field access on unstructured objects (client-go's `unstructured.Nested*`
 * helpers), for custom resources and anything else the library has no type for.
 *
 * Getters take the object and the path as separate arguments
 * (`nestedString(obj, 'spec', 'image')`) and return `{ value, found }`: `found` is false
 * when a field along the path is missing (or `null` at the end); a field of the wrong
 * type — at the end, or in the middle where a map was needed — throws a
 * {@link NestedFieldTypeError} naming the path and the type found.
 *
 * **Mutation.** Getters return the value itself, not a copy: objects from an informer's
 * cache are shared, so never change what a getter hands back (the return types are
 * read-only to remind you). `setNestedField` and `removeNestedField` change the object
 * in place, like client-go's; use them on objects you own (a fresh object, or a
 * `deepCopy` of a cached one). `withNestedField` and `withoutNestedField` are
 * copy-on-write: they return a new object that shares every untouched branch with the
 * original and leave the original (e.g. a cached object) untouched — cheaper than a deep
 * copy when you change one field of a large object.
 *
 * Keys are looked up as own properties only, so `constructor` or `__proto__` in a path
 * never reach the prototype chain.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/** A JSON map, as unstructured objects are made of. */
export type UnstructuredMap = Record<string, unknown>;

/** The result of a nested-field getter. */
export interface NestedResult<V> {
  /** The value, or `undefined` when not found. */
  value: V | undefined;
  /** False when a field along the path is missing or the value is `null`. */
  found: boolean;
}

/**
 * The name of a JSON value's type, as errors report it.
 *
 * @internal
 */
export function jsonTypeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

function withArticle(type: string): string {
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function pathText(fields: readonly string[]): string {
  return fields.length === 0 ? '(the object itself)' : `.${fields.join('.')}`;
}

/** A field along a path, or at its end, has another type than the one asked for. */
export class NestedFieldTypeError extends KubeControllerKitError {
  /** The path up to and including the offending field. */
  readonly fields: readonly string[];
  /** The type that was needed (`string`, `number`, `boolean`, `map`, `array`). */
  readonly expected: string;
  /** The type found there (`string`, `number`, `boolean`, `map`, `array`, `null`, …). */
  readonly actual: string;

  /**
   * @param fields - the path to the offending field.
   * @param expected - the type needed.
   * @param actual - the type found.
   */
  constructor(fields: readonly string[], expected: string, actual: string) {
    super(
      `${pathText(fields)} accessor error: the value is ${withArticle(actual)}, expected ${withArticle(expected)}; ` +
        `check the object against its schema or read it with nestedField`,
    );
    this.fields = [...fields];
    this.expected = expected;
    this.actual = actual;
  }
}

/** `setNestedField`, `removeNestedField` and their copy-on-write forms need at least one field. */
export class EmptyFieldPathError extends KubeControllerKitError {
  /** @param operation - the helper called with an empty path. */
  constructor(operation: string) {
    super(`${operation} needs a field path of at least one field, e.g. ('spec', 'replicas')`);
  }
}

function isMap(value: unknown): value is UnstructuredMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function own(map: UnstructuredMap, key: string): unknown {
  return Object.hasOwn(map, key) ? map[key] : undefined;
}

function setOwn(map: UnstructuredMap, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(map, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    map[key] = value;
  }
}

/**
 * The value at `fields` in `obj`, of any type. An empty path returns the object itself.
 *
 * @throws {@link NestedFieldTypeError} when a field along the path is not a map.
 */
export function nestedField(obj: unknown, ...fields: string[]): NestedResult<unknown> {
  let current: unknown = obj;
  for (let i = 0; i < fields.length; i++) {
    if (current === undefined || current === null) return { value: undefined, found: false };
    if (!isMap(current)) {
      throw new NestedFieldTypeError(fields.slice(0, i), 'map', jsonTypeName(current));
    }
    current = own(current, fields[i] as string);
  }
  if (current === undefined || current === null) return { value: undefined, found: false };
  return { value: current, found: true };
}

function typed<V>(
  obj: unknown,
  fields: string[],
  expected: string,
  check: (v: unknown) => v is V,
): NestedResult<V> {
  const r = nestedField(obj, ...fields);
  if (!r.found) return { value: undefined, found: false };
  if (!check(r.value)) throw new NestedFieldTypeError(fields, expected, jsonTypeName(r.value));
  return { value: r.value, found: true };
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isArray = (v: unknown): v is readonly unknown[] => Array.isArray(v);

/**
 * The string at `fields`.
 *
 * @throws {@link NestedFieldTypeError} when it (or a field along the path) has another type.
 */
export function nestedString(obj: unknown, ...fields: string[]): NestedResult<string> {
  return typed(obj, fields, 'string', isString);
}

/**
 * The number at `fields` (JSON has one number type: integers and floats alike).
 *
 * @throws {@link NestedFieldTypeError} when it (or a field along the path) has another type.
 */
export function nestedNumber(obj: unknown, ...fields: string[]): NestedResult<number> {
  return typed(obj, fields, 'number', isNumber);
}

/**
 * The boolean at `fields`.
 *
 * @throws {@link NestedFieldTypeError} when it (or a field along the path) has another type.
 */
export function nestedBoolean(obj: unknown, ...fields: string[]): NestedResult<boolean> {
  return typed(obj, fields, 'boolean', isBoolean);
}

/**
 * The map at `fields`, not copied: do not change it.
 *
 * @throws {@link NestedFieldTypeError} when it (or a field along the path) has another type.
 */
export function nestedMap(
  obj: unknown,
  ...fields: string[]
): NestedResult<Readonly<UnstructuredMap>> {
  return typed(obj, fields, 'map', isMap);
}

/**
 * The array at `fields`, not copied: do not change it.
 *
 * @throws {@link NestedFieldTypeError} when it (or a field along the path) has another type.
 */
export function nestedSlice(obj: unknown, ...fields: string[]): NestedResult<readonly unknown[]> {
  return typed(obj, fields, 'array', isArray);
}

/**
 * The array of strings at `fields` (e.g. `metadata.finalizers`), not copied.
 *
 * @throws {@link NestedFieldTypeError} when it is not an array, or an element is not a
 *   string (the path then ends with the element's index).
 */
export function nestedStringSlice(
  obj: unknown,
  ...fields: string[]
): NestedResult<readonly string[]> {
  const r = nestedSlice(obj, ...fields);
  if (r.value === undefined) return { value: undefined, found: false };
  r.value.forEach((v, i) => {
    if (typeof v !== 'string') {
      throw new NestedFieldTypeError([...fields, String(i)], 'string', jsonTypeName(v));
    }
  });
  return { value: r.value as readonly string[], found: true };
}

/**
 * The map of strings at `fields` (e.g. `metadata.labels`), not copied.
 *
 * @throws {@link NestedFieldTypeError} when it is not a map, or a value is not a string
 *   (the path then ends with the value's key).
 */
export function nestedStringMap(
  obj: unknown,
  ...fields: string[]
): NestedResult<Readonly<Record<string, string>>> {
  const r = nestedMap(obj, ...fields);
  if (r.value === undefined) return { value: undefined, found: false };
  for (const [k, v] of Object.entries(r.value)) {
    if (typeof v !== 'string') {
      throw new NestedFieldTypeError([...fields, k], 'string', jsonTypeName(v));
    }
  }
  return { value: r.value as Readonly<Record<string, string>>, found: true };
}

/**
 * Set the value at `fields`, creating missing maps along the way (in place, like
 * client-go's `SetNestedField`). A `null` or missing intermediate field is replaced by a
 * new map.
 *
 * @throws {@link NestedFieldTypeError} when a field along the path exists and is not a map.
 * @throws {@link EmptyFieldPathError} for an empty path.
 */
export function setNestedField(obj: UnstructuredMap, value: unknown, ...fields: string[]): void {
  if (fields.length === 0) throw new EmptyFieldPathError('setNestedField');
  let m = obj;
  for (let i = 0; i < fields.length - 1; i++) {
    const key = fields[i] as string;
    const next = own(m, key);
    if (next === undefined || next === null) {
      const made: UnstructuredMap = {};
      setOwn(m, key, made);
      m = made;
    } else if (isMap(next)) {
      m = next;
    } else {
      throw new NestedFieldTypeError(fields.slice(0, i + 1), 'map', jsonTypeName(next));
    }
  }
  setOwn(m, fields[fields.length - 1] as string, value);
}

/**
 * Remove the field at `fields` in place (like client-go's `RemoveNestedField`). A path
 * that does not exist, or runs into a non-map, is left alone.
 *
 * @throws {@link EmptyFieldPathError} for an empty path.
 */
export function removeNestedField(obj: UnstructuredMap, ...fields: string[]): void {
  if (fields.length === 0) throw new EmptyFieldPathError('removeNestedField');
  let m: unknown = obj;
  for (let i = 0; i < fields.length - 1; i++) {
    if (!isMap(m)) return;
    m = own(m, fields[i] as string);
  }
  if (!isMap(m)) return;
  const last = fields[fields.length - 1] as string;
  if (Object.hasOwn(m, last)) delete m[last];
}

function copyMap(m: UnstructuredMap): UnstructuredMap {
  const out: UnstructuredMap = {};
  for (const k of Object.keys(m)) setOwn(out, k, m[k]);
  return out;
}

/**
 * Copy-on-write {@link setNestedField}: a new object with the value at `fields`, sharing
 * every branch off the path with `obj`, which is not changed. Safe on cached objects.
 *
 * @throws {@link NestedFieldTypeError} when a field along the path exists and is not a map.
 * @throws {@link EmptyFieldPathError} for an empty path.
 */
export function withNestedField<T extends object>(obj: T, value: unknown, ...fields: string[]): T {
  if (fields.length === 0) throw new EmptyFieldPathError('withNestedField');
  const root = copyMap(obj as UnstructuredMap);
  let m = root;
  for (let i = 0; i < fields.length - 1; i++) {
    const key = fields[i] as string;
    const next = own(m, key);
    let made: UnstructuredMap;
    if (next === undefined || next === null) made = {};
    else if (isMap(next)) made = copyMap(next);
    else throw new NestedFieldTypeError(fields.slice(0, i + 1), 'map', jsonTypeName(next));
    setOwn(m, key, made);
    m = made;
  }
  setOwn(m, fields[fields.length - 1] as string, value);
  return root as T;
}

/**
 * Copy-on-write {@link removeNestedField}: a new object without the field at `fields`,
 * sharing every branch off the path with `obj`, which is not changed. When the field does
 * not exist, `obj` itself is returned.
 *
 * @throws {@link EmptyFieldPathError} for an empty path.
 */
export function withoutNestedField<T extends object>(obj: T, ...fields: string[]): T {
  if (fields.length === 0) throw new EmptyFieldPathError('withoutNestedField');
  const chain: UnstructuredMap[] = [obj as UnstructuredMap];
  for (let i = 0; i < fields.length - 1; i++) {
    const next = own(chain[i] as UnstructuredMap, fields[i] as string);
    if (!isMap(next)) return obj;
    chain.push(next);
  }
  const last = fields[fields.length - 1] as string;
  if (!Object.hasOwn(chain[chain.length - 1] as UnstructuredMap, last)) return obj;
  let child: UnstructuredMap | undefined;
  for (let i = chain.length - 1; i >= 0; i--) {
    const copy = copyMap(chain[i] as UnstructuredMap);
    if (child === undefined) delete copy[last];
    else setOwn(copy, fields[i] as string, child);
    child = copy;
  }
  return child as T;
}
