/**
 * What the sharder does with one object, decided apart from doing it (as
 * kubernetes-controller-sharding's sharder): a pure function of the object's shard label,
 * its drain label, the shard the ring wants, whether its current shard is live, and
 * whether the object is of a controlled (child) resource. The sharder then writes the
 * labels, counts and records what was decided.
 *
 * @module
 */

/** What {@link decideShard} looks at. */
export interface ShardDecisionInput {
  /** The object's shard label, or undefined when it has none. */
  readonly current: string | undefined;
  /** Whether the object carries the drain label. */
  readonly draining: boolean;
  /** The shard the ring gives the object, or undefined when no shard is live. */
  readonly desired: string | undefined;
  /** Whether `current` is a live shard of the ring. */
  readonly currentAlive: boolean;
  /** Whether the object is of a controlled resource (it follows its controller owner). */
  readonly controlled: boolean;
}

/**
 * What to do with one object:
 *
 * - `none`: it is where it belongs;
 * - `wait`: its live shard was asked to release it and has not yet (the drain label is set);
 * - `unassign`: no shard is live; remove the shard and drain labels;
 * - `assign`: an object without a (live) shard label gets `to`;
 * - `move`: the shard label changes from `from` to `to` at once — `from` is dead, or the
 *   object is controlled (never drained: only the main resource's reconciler releases a
 *   drained object, so a drained child would stay draining);
 * - `drain`: ask the live shard `from` to release the object (set the drain label);
 * - `cancelDrain`: the ring gives the object back to the shard that was draining it.
 */
export type ShardDecision =
  | {
      /** Nothing to do. */
      readonly action: 'none';
    }
  | {
      /** Wait for the live shard to release the object. */
      readonly action: 'wait';
      /** The shard asked to release it. */
      readonly from: string;
    }
  | {
      /** Remove the shard and drain labels. */
      readonly action: 'unassign';
    }
  | {
      /** Give an object without a (live) shard label its shard. */
      readonly action: 'assign';
      /** The shard it gets. */
      readonly to: string;
    }
  | {
      /** Relabel the object at once. */
      readonly action: 'move';
      /** The shard it leaves (dead, or live for a controlled object). */
      readonly from: string;
      /** The shard it gets. */
      readonly to: string;
    }
  | {
      /** Set the drain label. */
      readonly action: 'drain';
      /** The live shard asked to release the object. */
      readonly from: string;
      /** The shard the ring gives it. */
      readonly to: string;
    }
  | {
      /** Remove the drain label: the object stays where it is. */
      readonly action: 'cancelDrain';
    };

const NONE: ShardDecision = { action: 'none' };
const UNASSIGN: ShardDecision = { action: 'unassign' };
const CANCEL_DRAIN: ShardDecision = { action: 'cancelDrain' };

/** Decides what the sharder does with one object (see {@link ShardDecision}). */
export function decideShard(input: ShardDecisionInput): ShardDecision {
  const { current, draining, desired, currentAlive, controlled } = input;
  if (current === undefined || !currentAlive) {
    if (desired === undefined) return current !== undefined || draining ? UNASSIGN : NONE;
    return current === undefined
      ? { action: 'assign', to: desired }
      : { action: 'move', from: current, to: desired };
  }
  if (desired === undefined || current === desired) return draining ? CANCEL_DRAIN : NONE;
  if (controlled) return { action: 'move', from: current, to: desired };
  return draining
    ? { action: 'wait', from: current }
    : { action: 'drain', from: current, to: desired };
}
