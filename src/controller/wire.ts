/**
 * Converting between `@kubernetes/client-node`'s model objects and the wire form this library
 * works in.
 *
 * Everything this library reads and writes — clients, informers, listers, the event
 * recorder — is the **wire form**, `Serialized<T>`: plain JSON with timestamps as RFC 3339
 * strings. client-node's generated APIs (`CoreV1Api` and friends) take and return **model
 * objects**, class instances whose timestamps are `Date`s. {@link toWire} and
 * {@link fromWire} convert one into the other, through client-node's own `ObjectSerializer`,
 * so the conversion is exactly client-node's:
 *
 * ```ts
 * import { V1Pod } from '@kubernetes/client-node';
 * const model: V1Pod = fromWire(V1Pod, podFromInformer); // metadata.creationTimestamp is a Date
 * const wire = toWire(V1Pod, model);                      // back to strings
 * ```
 *
 * Notes: client-node's deserializer keeps only the fields its model declares (unknown fields
 * are dropped, as with any client-node call); timestamps with whole seconds are written
 * without fractional seconds (`2026-01-01T00:00:00Z`, metav1.Time's form), others keep their
 * milliseconds; absent fields stay absent (no `undefined` members).
 *
 * @module
 */
import { ObjectSerializer } from '@kubernetes/client-node/dist/gen/models/ObjectSerializer.js';
import type { Serialized } from '../client/types.js';
import { KubeControllerKitError } from '../util/errors.js';

/** One entry of a client-node model's generated attribute map. */
export interface ModelAttribute {
  /** The property name on the model object. */
  name: string;
  /** The field name on the wire. */
  baseName: string;
  /** The field's type name, e.g. `V1ObjectMeta` or `Date`. */
  type: string;
}

/**
 * A client-node model class, such as `V1Pod` or `V1Condition`: constructible, with the
 * generated attribute map that `ObjectSerializer` reads.
 */
export interface ModelClass<T> {
  /** Creates an empty model object. */
  new (): T;
  /** The class name, which is the model's type name in client-node (`V1Pod`). */
  readonly name: string;
  /** The generated attribute map. */
  getAttributeTypeMap(): readonly ModelAttribute[];
}

/** The value given is not a client-node model class (or its name was lost, e.g. by a minifier). */
export class UnknownModelError extends KubeControllerKitError {}

function checkModel<T>(model: ModelClass<T>): void {
  if (typeof model !== 'function' || typeof model.getAttributeTypeMap !== 'function') {
    throw new UnknownModelError(
      `toWire/fromWire need a @kubernetes/client-node model class such as V1Pod; got ${typeof model}`,
    );
  }
}

/** RFC 3339 as the API server writes it: no fractional part when it is zero. */
function formatTime(d: Date): string {
  const iso = d.toISOString();
  return iso.endsWith('.000Z') ? iso.slice(0, -5) + 'Z' : iso;
}

const namesByModel = new WeakMap<object, Map<string, string>>();
const noNames = new Map<string, string>();

/** Wire name → property name of a model class (from its attribute map), cached per class. */
function wireNames(ctor: unknown): Map<string, string> {
  if (typeof ctor !== 'function') return noNames;
  let names = namesByModel.get(ctor);
  if (names === undefined) {
    names = new Map();
    const map = (ctor as { attributeTypeMap?: unknown }).attributeTypeMap;
    if (Array.isArray(map)) {
      for (const a of map as ModelAttribute[]) names.set(a.baseName, a.name);
    }
    namesByModel.set(ctor, names);
  }
  return names;
}

/**
 * Replace serializer-made ISO strings by the API's form wherever the model held a Date, and
 * drop the `undefined` members the serializer writes for absent fields (JSON has none).
 */
function fixTimes(model: unknown, wire: unknown): unknown {
  if (model instanceof Date) return formatTime(model);
  if (Array.isArray(model) && Array.isArray(wire)) {
    return wire.map((w, i) => fixTimes(model[i], w));
  }
  if (model !== null && typeof model === 'object' && wire !== null && typeof wire === 'object') {
    const m = model as Record<string, unknown>;
    const w = wire as Record<string, unknown>;
    const names = wireNames((model as { constructor?: unknown }).constructor);
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(w)) {
      const v = w[k];
      if (v !== undefined) out[k] = fixTimes(m[names.get(k) ?? k], v);
    }
    return out;
  }
  return wire;
}

/**
 * A client-node model object (timestamps as `Date`) in the wire form (`Serialized<T>`,
 * timestamps as RFC 3339 strings), ready for this library's clients.
 *
 * @param model - the model class, e.g. `V1Pod`.
 * @param obj - the model object.
 */
export function toWire<T>(model: ModelClass<T>, obj: T): Serialized<T> {
  checkModel(model);
  const wire: unknown = ObjectSerializer.serialize(obj, model.name, '');
  return fixTimes(obj, wire) as Serialized<T>;
}

/**
 * A wire-form object (as clients, informers and listers return it) as a client-node model
 * object of class `model`, with `Date` timestamps, for client-node's generated APIs.
 *
 * @param model - the model class, e.g. `V1Pod`.
 * @param wire - the wire-form object.
 * @throws UnknownModelError when `model` is not a client-node model class.
 */
export function fromWire<T>(model: ModelClass<T>, wire: Serialized<T>): T {
  checkModel(model);
  const out: unknown = ObjectSerializer.deserialize(wire, model.name, '');
  if (!(out instanceof model)) {
    throw new UnknownModelError(
      `client-node does not know the model "${model.name}"; pass a generated class such as V1Pod ` +
        `(a minifier that renames classes breaks this lookup)`,
    );
  }
  return out;
}
