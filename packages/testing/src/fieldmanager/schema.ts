/**
 * The type schema server-side apply merges by (structured-merge-diff's `schema`): which
 * values are scalars, which objects are structs (named fields) or maps (any key), whether
 * a map is `granular` (merged key by key) or `atomic` (replaced whole), and whether a list
 * is `atomic` (replaced whole), a `set` of scalars or a `map` keyed by some fields of its
 * items. Built from a CRD's `openAPIV3Schema` (`x-kubernetes-list-type`,
 * `x-kubernetes-list-map-keys`, `x-kubernetes-map-type`, `x-kubernetes-preserve-unknown-fields`)
 * or from the table of built-in types in `builtin_schema.ts`.
 *
 * @module
 */
import type { JsonValue } from './path.js';

/** A scalar (string, number, boolean, null), or an int-or-string. */
export interface ScalarType {
  /** Discriminant. */
  readonly kind: 'scalar';
}

/** An object: named fields, and/or any key of one element type. */
export interface MapType {
  /** Discriminant. */
  readonly kind: 'map';
  /** Named fields (a struct's properties). */
  readonly fields: ReadonlyMap<string, TypeNode>;
  /** The type of keys that are not named fields (`additionalProperties`); untyped when absent. */
  readonly elementType?: TypeNode;
  /** Keys that are not named fields still count as named fields (partially described built-ins). */
  readonly openStruct?: boolean;
  /** Replaced whole on apply (`x-kubernetes-map-type: atomic`, `+structType=atomic`). */
  readonly atomic: boolean;
  /** Defaults of named fields (used for missing list-map keys, e.g. `protocol: TCP`). */
  readonly defaults?: ReadonlyMap<string, JsonValue>;
}

/** A list. */
export interface ListType {
  /** Discriminant. */
  readonly kind: 'list';
  /** The items' type. */
  readonly elementType: TypeNode;
  /** `atomic` (default), `set` of scalars, or `map` keyed by {@link keys}. */
  readonly listType: 'atomic' | 'set' | 'map';
  /** Key fields of a `map` list. */
  readonly keys: readonly string[];
}

/**
 * A value of unknown shape (`x-kubernetes-preserve-unknown-fields`): objects are granular
 * maps whose every key is a map key, lists are atomic. With `struct`, objects' keys count
 * as named fields instead (used below partially described built-in types).
 */
export interface UntypedType {
  /** Discriminant. */
  readonly kind: 'untyped';
  /** Treat object keys as named fields. */
  readonly struct?: boolean;
}

/** A node of the type schema. */
export type TypeNode = ScalarType | MapType | ListType | UntypedType;

/** The scalar type. */
export const scalar: ScalarType = { kind: 'scalar' };
/** The untyped (deduced) type. */
export const untyped: UntypedType = { kind: 'untyped' };
/** The untyped type whose object keys are named fields. */
export const untypedStruct: UntypedType = { kind: 'untyped', struct: true };

/** A struct with named fields. */
export function struct(
  fields: Record<string, TypeNode>,
  opts: { atomic?: boolean; open?: boolean; defaults?: Record<string, JsonValue> } = {},
): MapType {
  return {
    kind: 'map',
    fields: new Map(Object.entries(fields)),
    atomic: opts.atomic ?? false,
    ...(opts.open ? { openStruct: true, elementType: untypedStruct } : {}),
    ...(opts.defaults ? { defaults: new Map(Object.entries(opts.defaults)) } : {}),
  };
}

/** A map of any keys to one element type (`map[string]T`). */
export function mapOf(elementType: TypeNode, atomic = false): MapType {
  return { kind: 'map', fields: new Map(), elementType, atomic };
}

/** A `map` list keyed by `keys`. */
export function listMap(keys: string[], elementType: TypeNode): ListType {
  return { kind: 'list', elementType, listType: 'map', keys };
}

/** A `set` list of scalars. */
export function listSet(elementType: TypeNode = scalar): ListType {
  return { kind: 'list', elementType, listType: 'set', keys: [] };
}

/** An atomic list. */
export function listAtomic(elementType: TypeNode = untyped): ListType {
  return { kind: 'list', elementType, listType: 'atomic', keys: [] };
}

/** The field's type in a map type: a named field, else the element type, else untyped. */
export function fieldType(t: MapType, key: string): { type: TypeNode; named: boolean } {
  const f = t.fields.get(key);
  if (f) return { type: f, named: true };
  return { type: t.elementType ?? untyped, named: t.openStruct === true };
}

const OWNER_REFERENCE = struct({
  apiVersion: scalar,
  kind: scalar,
  name: scalar,
  uid: scalar,
  controller: scalar,
  blockOwnerDeletion: scalar,
});

/**
 * `ObjectMeta` (from `k8s.io/apimachinery`'s OpenAPI): labels and annotations are granular
 * maps, finalizers a set, ownerReferences a map list keyed by uid, managedFields atomic.
 */
export const objectMetaType: MapType = struct({
  name: scalar,
  generateName: scalar,
  namespace: scalar,
  selfLink: scalar,
  uid: scalar,
  resourceVersion: scalar,
  generation: scalar,
  creationTimestamp: scalar,
  deletionTimestamp: scalar,
  deletionGracePeriodSeconds: scalar,
  labels: mapOf(scalar),
  annotations: mapOf(scalar),
  ownerReferences: listMap(['uid'], OWNER_REFERENCE),
  finalizers: listSet(),
  managedFields: listAtomic(),
});

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The type of an OpenAPI v3 (structural) schema node, as apiextensions-apiserver derives
 * it: `x-kubernetes-int-or-string` is a scalar; an object's `properties` are named fields,
 * `additionalProperties` the type of other keys, `x-kubernetes-preserve-unknown-fields`
 * makes other keys untyped; `x-kubernetes-embedded-resource` adds apiVersion, kind and
 * ObjectMeta; lists default to atomic and maps to granular.
 */
export function typeFromOpenAPI(schema: unknown): TypeNode {
  if (!isRecord(schema)) return untyped;
  if (schema['x-kubernetes-int-or-string'] === true) return scalar;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const type = schema.type;
  if (type === 'array') {
    const elementType = typeFromOpenAPI(schema.items);
    const lt = schema['x-kubernetes-list-type'];
    if (lt === 'map') {
      const keys = Array.isArray(schema['x-kubernetes-list-map-keys'])
        ? schema['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string')
        : [];
      return listMap(keys, elementType);
    }
    if (lt === 'set') return listSet(elementType);
    return listAtomic(elementType);
  }
  if (
    type === 'object' ||
    isRecord(schema.properties) ||
    schema.additionalProperties !== undefined
  ) {
    const fields = new Map<string, TypeNode>();
    const defaults = new Map<string, JsonValue>();
    if (isRecord(schema.properties)) {
      for (const [k, v] of Object.entries(schema.properties)) {
        fields.set(k, typeFromOpenAPI(v));
        if (isRecord(v) && v.default !== undefined) defaults.set(k, v.default as JsonValue);
      }
    }
    if (schema['x-kubernetes-embedded-resource'] === true) {
      if (!fields.has('apiVersion')) fields.set('apiVersion', scalar);
      if (!fields.has('kind')) fields.set('kind', scalar);
      fields.set('metadata', objectMetaType);
    }
    let elementType: TypeNode | undefined;
    if (isRecord(schema.additionalProperties))
      elementType = typeFromOpenAPI(schema.additionalProperties);
    else if (schema.additionalProperties === true || preserve) elementType = untyped;
    const atomic = schema['x-kubernetes-map-type'] === 'atomic';
    return {
      kind: 'map',
      fields,
      atomic,
      ...(elementType ? { elementType } : {}),
      ...(defaults.size > 0 ? { defaults } : {}),
    };
  }
  if (type === undefined && preserve) return untyped;
  if (type === undefined) return untyped;
  return scalar;
}

/**
 * The root type of a custom resource from its version's `openAPIV3Schema`: the schema's
 * fields, with `apiVersion`, `kind` and `metadata` typed as every object's. Without a
 * schema every field is untyped.
 */
export function customResourceType(openAPIV3Schema: unknown): MapType {
  const base = typeFromOpenAPI(openAPIV3Schema);
  const fields = new Map<string, TypeNode>(base.kind === 'map' ? base.fields : []);
  fields.set('apiVersion', scalar);
  fields.set('kind', scalar);
  fields.set('metadata', objectMetaType);
  const elementType = base.kind === 'map' ? base.elementType : untyped;
  return { kind: 'map', fields, atomic: false, ...(elementType ? { elementType } : {}) };
}
