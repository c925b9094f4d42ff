/**
 * Field paths of server-side apply (structured-merge-diff's `fieldpath`): a path is a list
 * of elements, each a field name (`f:name`), the key of an item of a `map` list
 * (`k:{"name":"web"}`), the value of an item of a `set` list (`v:"a"`) or a list index
 * (`i:0`). Elements have a total order (field names before keys before values before
 * indexes), which fixes the order of `managedFields` and of conflict messages.
 *
 * @module
 */
import { FieldManagerError } from './errors.js';

/** A JSON value as it appears in an object. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [k: string]: JsonValue };

/** One step of a field path. */
export type PathElement =
  | {
      readonly kind: 'field';
      readonly name: string;
      /** Its `FieldsV1` key, `f:` and the name (made once with the element). */
      readonly key: string;
    }
  | { readonly kind: 'key'; readonly fields: readonly (readonly [string, JsonValue])[] }
  | { readonly kind: 'value'; readonly value: JsonValue }
  | { readonly kind: 'index'; readonly index: number };

/** A field path: the elements from the object's root. */
export type FieldPath = readonly PathElement[];

/** A field-name element (elements are never changed once made: one per name is shared). */
export function fieldElement(name: string): PathElement {
  let pe = FIELD_ELEMENTS.get(name);
  if (pe === undefined) {
    pe = { kind: 'field', name, key: `f:${name}` };
    if (FIELD_ELEMENTS.size < MAX_FIELD_KEYS) FIELD_ELEMENTS.set(name, pe);
  }
  return pe;
}

const FIELD_ELEMENTS = new Map<string, PathElement>();

/** A `map`-list key element; the key fields are sorted by name, as the server does. */
export function keyElement(fields: Iterable<readonly [string, JsonValue]>): PathElement {
  const sorted = [...fields];
  // An insertion sort (a key has a field or two; Array.prototype.sort with a comparator
  // allocates a work array on every call). Names are distinct: the order is total.
  for (let i = 1; i < sorted.length; i++) {
    const f = sorted[i] as readonly [string, JsonValue];
    let j = i - 1;
    while (j >= 0 && (sorted[j] as readonly [string, JsonValue])[0] > f[0]) {
      sorted[j + 1] = sorted[j] as readonly [string, JsonValue];
      j--;
    }
    sorted[j + 1] = f;
  }
  return { kind: 'key', fields: sorted };
}

/** A `set`-list value element. */
export function valueElement(value: JsonValue): PathElement {
  return { kind: 'value', value };
}

/** A list-index element. */
export function indexElement(index: number): PathElement {
  return { kind: 'index', index };
}

function isRecord(v: unknown): v is { [k: string]: JsonValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function typeRank(v: JsonValue): number {
  if (typeof v === 'number') return 0;
  if (typeof v === 'string') return 1;
  if (typeof v === 'boolean') return 2;
  if (Array.isArray(v)) return 3;
  if (v === null) return 5;
  return 4;
}

function cmp(a: string | number, b: string | number): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The total order of JSON values the server uses for keys and set items: numbers, then
 * strings, then booleans, then lists, then maps, then null.
 */
export function compareValues(a: JsonValue, b: JsonValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === 'number' || typeof a === 'string') return cmp(a, b as typeof a);
  if (typeof a === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a)) {
    const bl = b as JsonValue[];
    for (let i = 0; i < Math.min(a.length, bl.length); i++) {
      const c = compareValues(a[i] as JsonValue, bl[i] as JsonValue);
      if (c !== 0) return c;
    }
    return a.length - bl.length;
  }
  if (isRecord(a) && isRecord(b)) {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
      const c = cmp(ka[i] as string, kb[i] as string);
      if (c !== 0) return c;
      const d = compareValues(a[ka[i] as string] as JsonValue, b[kb[i] as string] as JsonValue);
      if (d !== 0) return d;
    }
    return ka.length - kb.length;
  }
  return 0;
}

const ORDER = { field: 0, key: 1, value: 2, index: 3 } as const;

/** The order of path elements: by kind (field, key, value, index), then by content. */
export function compareElements(a: PathElement, b: PathElement): number {
  if (a.kind !== b.kind) return ORDER[a.kind] - ORDER[b.kind];
  switch (a.kind) {
    case 'field':
      return cmp(a.name, (b as typeof a).name);
    case 'index':
      return a.index - (b as typeof a).index;
    case 'value':
      return compareValues(a.value, (b as typeof a).value);
    case 'key': {
      const bf = (b as typeof a).fields;
      for (let i = 0; i < Math.min(a.fields.length, bf.length); i++) {
        const [an, av] = a.fields[i] as readonly [string, JsonValue];
        const [bn, bv] = bf[i] as readonly [string, JsonValue];
        const c = cmp(an, bn);
        if (c !== 0) return c;
        const d = compareValues(av, bv);
        if (d !== 0) return d;
      }
      return a.fields.length - bf.length;
    }
  }
}

/** JSON as Go's encoder writes it (HTML characters escaped, map keys sorted). */
export function goJson(v: JsonValue): string {
  if (v === null || typeof v !== 'object') {
    const plain = JSON.stringify(v);
    return HTML_CHARS.test(plain) ? escapeHtml(plain) : plain;
  }
  const text = JSON.stringify(v, (_k, x: unknown) =>
    isRecord(x)
      ? Object.fromEntries(
          Object.keys(x)
            .sort()
            .map((k) => [k, x[k]]),
        )
      : (x as JsonValue),
  );
  return escapeHtml(text);
}

const HTML_CHARS = /[<>&\u2028\u2029]/;

function escapeHtml(text: string): string {
  return text
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The `FieldsV1` key of an element: `f:name`, `k:{"name":"web"}`, `v:"a"`, `i:0`. */
export function serializeElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      // The same names recur in every object: one key string each, kept with the shared
      // element (an object built with these keys, as FieldsV1 is, then reuses its
      // property lookups).
      return pe.key;
    case 'index':
      return `i:${pe.index}`;
    default: {
      // Keys and values serialize through JSON; one element is shared by every path below
      // it, so its text is kept (elements are never changed once made).
      let text = SERIALIZED.get(pe);
      if (text === undefined) {
        text = serializeItemElement(pe);
        SERIALIZED.set(pe, text);
      }
      return text;
    }
  }
}

/**
 * The `FieldsV1` key of a list item's element (`k:…` or `v:…`), not kept: for a walk that
 * serializes each element once.
 */
export function serializeItemElement(pe: PathElement): string {
  switch (pe.kind) {
    case 'key': {
      let text = 'k:{';
      for (let i = 0; i < pe.fields.length; i++) {
        const [n, v] = pe.fields[i] as readonly [string, JsonValue];
        text += `${i > 0 ? ',' : ''}${goJson(n)}:${goJson(v)}`;
      }
      return `${text}}`;
    }
    case 'value':
      return `v:${goJson(pe.value)}`;
    default:
      return serializeElement(pe);
  }
}

const SERIALIZED = new WeakMap<PathElement, string>();
/** Field names whose element is kept (label and annotation keys are unbounded). */
const MAX_FIELD_KEYS = 20_000;

/**
 * Parses a `FieldsV1` key. Returns `undefined` for an unknown element type (the server
 * skips those); throws {@link FieldManagerError} for a malformed one.
 */
export function deserializeElement(s: string): PathElement | undefined {
  if (s.length < 2) throw new FieldManagerError(`key must be 2 characters long: "${s}"`);
  if (s[1] !== ':') throw new FieldManagerError(`missing colon: ${s}`);
  const rest = s.slice(2);
  switch (s[0]) {
    case 'f':
      return fieldElement(rest);
    case 'i': {
      if (!/^-?\d+$/.test(rest)) throw new FieldManagerError(`invalid index element: ${s}`);
      return indexElement(Number(rest));
    }
    case 'v':
    case 'k': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(rest);
      } catch (err) {
        throw new FieldManagerError(
          `invalid ${s[0] === 'v' ? 'value' : 'key'} element ${s}: ${String(err)}`,
        );
      }
      if (s[0] === 'v') return valueElement(parsed as JsonValue);
      if (!isRecord(parsed)) throw new FieldManagerError(`key element is not an object: ${s}`);
      return keyElement(Object.entries(parsed));
    }
    default:
      return undefined;
  }
}

/** Go's `%q` of a string (close to JSON, with HTML characters unescaped). */
function quote(s: string): string {
  return JSON.stringify(s);
}

function valueToString(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(valueToString).join(',')}]`;
  return Object.entries(v)
    .map(([k, x]) => `${k}=${valueToString(x)}`)
    .join('');
}

/** An element as kube-apiserver prints it: `.name`, `[name="web"]`, `[="a"]`, `[0]`. */
export function elementToString(pe: PathElement): string {
  switch (pe.kind) {
    case 'field':
      return `.${pe.name}`;
    case 'key':
      return `[${pe.fields.map(([n, v]) => `${n}=${valueToString(v)}`).join(',')}]`;
    case 'value':
      return `[=${valueToString(pe.value)}]`;
    case 'index':
      return `[${pe.index}]`;
  }
}

/** A path as kube-apiserver prints it in conflicts: `.spec.ports[name="http"].port`. */
export function pathToString(path: FieldPath): string {
  return path.map(elementToString).join('');
}

/** Builds a path from field names (strings) and prebuilt elements. */
export function makePath(...parts: (string | PathElement)[]): FieldPath {
  return parts.map((p) => (typeof p === 'string' ? fieldElement(p) : p));
}
