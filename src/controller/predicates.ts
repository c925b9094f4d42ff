/**
 * Event filters for update events (controller-runtime's `GenerationChangedPredicate`,
 * `LabelChangedPredicate`, `AnnotationChangedPredicate`; kube-rs's `predicates`).
 *
 * An {@link UpdatePredicate} sees the old and the new object of an update and says whether
 * the update is worth a reconcile. Adds and deletes are never filtered by it: a controller
 * must always see objects appear and disappear.
 *
 * Periodic resyncs and relists re-deliver an object as an update whose old and new
 * objects are the same; every predicate here returns false for those, so a controller
 * filtered by them does not reconcile on resync.
 *
 * @module
 */
import type { DeepReadonly } from '../cache/deep_readonly.js';
import type { KubeObject } from '../client/types.js';

/**
 * Decides whether an update (old → new) should trigger a reconcile. Both objects are the
 * informer's cached instances, read-only.
 *
 * @typeParam T - the object type.
 */
export type UpdatePredicate<T extends KubeObject = KubeObject> = (
  oldObj: DeepReadonly<T>,
  newObj: DeepReadonly<T>,
) => boolean;

function sameStringMap(
  a: Readonly<Record<string, string>> | undefined,
  b: Readonly<Record<string, string>> | undefined,
): boolean {
  if (a === b) return true;
  const ak = a === undefined ? [] : Object.keys(a);
  const bk = b === undefined ? [] : Object.keys(b);
  if (ak.length !== bk.length) return false;
  for (const k of ak) {
    if (b === undefined || !Object.hasOwn(b, k) || b[k] !== a?.[k]) return false;
  }
  return true;
}

/**
 * True when `metadata.generation` changed (the spec changed, not just metadata or status)
 * or when deletion started (`deletionTimestamp` newly set; kube-apiserver also bumps the
 * generation then, this covers servers and resources that do not). Status writes of the
 * controller itself do not pass, which is the point: a controller that writes status is
 * not woken by its own writes. Resources whose server never sets a generation (ConfigMaps,
 * Secrets, …) pass only at deletion; combine with another predicate for them.
 */
export function generationChanged(
  oldObj: DeepReadonly<KubeObject>,
  newObj: DeepReadonly<KubeObject>,
): boolean {
  if (oldObj.metadata?.generation !== newObj.metadata?.generation) return true;
  return (
    oldObj.metadata?.deletionTimestamp === undefined &&
    newObj.metadata?.deletionTimestamp !== undefined
  );
}

/** True when the labels differ (as maps: key order does not matter; absent equals empty). */
export function labelsChanged(
  oldObj: DeepReadonly<KubeObject>,
  newObj: DeepReadonly<KubeObject>,
): boolean {
  return !sameStringMap(oldObj.metadata?.labels, newObj.metadata?.labels);
}

/** True when the annotations differ (as maps: key order does not matter; absent equals empty). */
export function annotationsChanged(
  oldObj: DeepReadonly<KubeObject>,
  newObj: DeepReadonly<KubeObject>,
): boolean {
  return !sameStringMap(oldObj.metadata?.annotations, newObj.metadata?.annotations);
}

/**
 * True when every predicate is true (short-circuits; `and()` of nothing is true).
 *
 * @example
 * ```ts
 * controller.for(apps, { predicate: and(generationChanged, (_o, n) => n.metadata?.labels?.['tier'] === 'web') });
 * ```
 */
export function and<T extends KubeObject>(
  ...predicates: readonly UpdatePredicate<T>[]
): UpdatePredicate<T> {
  return (oldObj, newObj) => predicates.every((p) => p(oldObj, newObj));
}

/**
 * True when any predicate is true (short-circuits; `or()` of nothing is false).
 *
 * @example
 * ```ts
 * // Reconcile on spec changes and on label changes, not on status writes.
 * controller.for(apps, { predicate: or(generationChanged, labelsChanged) });
 * ```
 */
export function or<T extends KubeObject>(
  ...predicates: readonly UpdatePredicate<T>[]
): UpdatePredicate<T> {
  return (oldObj, newObj) => predicates.some((p) => p(oldObj, newObj));
}

/** The negation of a predicate. */
export function not<T extends KubeObject>(predicate: UpdatePredicate<T>): UpdatePredicate<T> {
  return (oldObj, newObj) => !predicate(oldObj, newObj);
}
