/**
 * Status conditions (`status.conditions[]`, metav1.Condition) with apimachinery's
 * `meta.SetStatusCondition` rules:
 *
 * - a condition of a new type is appended; its `lastTransitionTime` is the given one or now;
 * - for an existing type, `lastTransitionTime` changes **only when `status` changes** (to
 *   the given time, else now); `reason`, `message` and `observedGeneration` are updated
 *   whenever they differ;
 * - the functions report whether anything changed, so a reconcile writes status only then.
 *
 * Conditions are in their wire form (`Serialized<V1Condition>`): `lastTransitionTime` is an
 * RFC 3339 string with second precision, as metav1.Time serializes.
 *
 * @module
 */
import type { V1Condition } from '@kubernetes/client-node';
import type { Serialized } from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';

/** A status condition in its wire form (metav1.Condition). */
export type Condition = Serialized<V1Condition>;

/**
 * Any condition type these helpers work on: {@link Condition}, or a condition of a generated
 * type, whose optional `observedGeneration` may hold `undefined`
 * (`exactOptionalPropertyTypes`) and whose `status` may be a union of literals.
 */
export interface ConditionLike {
  /** The condition type. */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: string;
  /** A CamelCase reason for the last transition. */
  reason: string;
  /** A human-readable message. */
  message: string;
  /** When the status last changed (RFC 3339). */
  lastTransitionTime: string;
  /** The `metadata.generation` the condition was computed from. */
  observedGeneration?: number | undefined;
}

/** The status of a condition: `True`, `False` or `Unknown`. */
export type ConditionStatus = 'True' | 'False' | 'Unknown';

/**
 * What {@link setStatusCondition} takes: `type`, `status` and `reason` are required;
 * `message` defaults to `''`; `lastTransitionTime` defaults to now (and is used only when
 * the status changes); `observedGeneration` is left out when absent.
 */
export interface ConditionInput {
  /** The condition type, e.g. `Ready` (CamelCase or `foo.example.com/CamelCase`). */
  type: string;
  /** `True`, `False` or `Unknown`. */
  status: ConditionStatus | (string & {});
  /** A CamelCase reason for the last transition, e.g. `DeploymentAvailable`. */
  reason: string;
  /** A human-readable message (default `''`). */
  message?: string | undefined;
  /**
   * The `metadata.generation` the condition was computed from (`undefined` leaves it out,
   * so `observedGeneration: obj.metadata?.generation` compiles under
   * `exactOptionalPropertyTypes`).
   */
  observedGeneration?: number | undefined;
  /** When the status last changed (RFC 3339); default: now, from the clock. */
  lastTransitionTime?: string | undefined;
}

/** Options of {@link setStatusCondition}. */
export interface SetStatusConditionOptions {
  /** Source of "now" for `lastTransitionTime` (default the real clock). */
  clock?: Clock | undefined;
}

/** metav1.Time's wire form: RFC 3339 in UTC with whole seconds. */
export function formatConditionTime(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** The condition of type `conditionType`, or undefined (apimachinery `FindStatusCondition`). */
export function findStatusCondition<C extends ConditionLike = Condition>(
  conditions: readonly C[] | undefined,
  conditionType: string,
): C | undefined {
  return conditions?.find((c) => c.type === conditionType);
}

/**
 * Sets `newCondition` in `conditions` (in place) with apimachinery's rules; returns true when
 * anything changed. `lastTransitionTime` moves only when `status` changes.
 *
 * @example
 * ```ts
 * app.status ??= {};
 * app.status.conditions ??= [];
 * if (setStatusCondition(app.status.conditions, { type: 'Ready', status: 'True', reason: 'Available', observedGeneration: app.metadata?.generation })) {
 *   await apps.updateStatus(app);
 * }
 * ```
 */
export function setStatusCondition(
  conditions: ConditionLike[],
  newCondition: ConditionInput,
  options: SetStatusConditionOptions = {},
): boolean {
  const now = (): string => formatConditionTime((options.clock ?? realClock).now());
  const existing = findStatusCondition(conditions, newCondition.type);
  if (existing === undefined) {
    const added: Condition = {
      type: newCondition.type,
      status: newCondition.status,
      reason: newCondition.reason,
      message: newCondition.message ?? '',
      lastTransitionTime: nonEmpty(newCondition.lastTransitionTime) ?? now(),
    };
    if (newCondition.observedGeneration !== undefined) {
      added.observedGeneration = newCondition.observedGeneration;
    }
    conditions.push(added);
    return true;
  }
  let changed = false;
  if (existing.status !== newCondition.status) {
    existing.status = newCondition.status;
    existing.lastTransitionTime = nonEmpty(newCondition.lastTransitionTime) ?? now();
    changed = true;
  }
  if (existing.reason !== newCondition.reason) {
    existing.reason = newCondition.reason;
    changed = true;
  }
  const message = newCondition.message ?? '';
  if (existing.message !== message) {
    existing.message = message;
    changed = true;
  }
  if ((existing.observedGeneration ?? 0) !== (newCondition.observedGeneration ?? 0)) {
    if (newCondition.observedGeneration === undefined) delete existing.observedGeneration;
    else existing.observedGeneration = newCondition.observedGeneration;
    changed = true;
  }
  return changed;
}

function nonEmpty(s: string | undefined): string | undefined {
  return s === undefined || s === '' ? undefined : s;
}

/**
 * Removes the condition of type `conditionType` (in place); returns true when one was
 * removed (apimachinery `RemoveStatusCondition`).
 */
export function removeStatusCondition(conditions: ConditionLike[], conditionType: string): boolean {
  const i = conditions.findIndex((c) => c.type === conditionType);
  if (i < 0) return false;
  conditions.splice(i, 1);
  return true;
}

/** True when the condition is present with status `True`. */
export function isStatusConditionTrue(
  conditions: readonly ConditionLike[] | undefined,
  conditionType: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, conditionType, 'True');
}

/** True when the condition is present with status `False`. */
export function isStatusConditionFalse(
  conditions: readonly ConditionLike[] | undefined,
  conditionType: string,
): boolean {
  return isStatusConditionPresentAndEqual(conditions, conditionType, 'False');
}

/** True when the condition is present with exactly this status. */
export function isStatusConditionPresentAndEqual(
  conditions: readonly ConditionLike[] | undefined,
  conditionType: string,
  status: ConditionStatus | (string & {}),
): boolean {
  return findStatusCondition(conditions, conditionType)?.status === status;
}
