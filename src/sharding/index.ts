/**
 * Horizontal sharding: many active replicas of one controller, each reconciling its share
 * of the objects, coordinated through the API server with Leases and labels (after
 * kubernetes-controller-sharding's design).
 *
 * - {@link HashRing}: the consistent-hash ring over the live shards.
 * - {@link Shard}: one replica's membership Lease, its label selector, and the drain-aware
 *   reconciler wrapper.
 * - {@link RangeShard}: server-side sharding (KEP-5866): a replica owns ranges of the hash
 *   space from the same Leases and ring and watches them with a `shardSelector`; no labels,
 *   no sharder.
 * - {@link Sharder}: labels every object of the ring's resources with its shard, moves
 *   objects of dead shards at once and drains objects of live shards before moving them
 *   (controlled objects move with their controller, never drained); what it does with an
 *   object is the pure {@link decideShard}.
 *
 * Imported from `kube-controller-kit`. Guide: [sharding](../../docs/sharding.md), whose
 * program runs a sharder and replicas; the ring alone:
 *
 * ```ts
 * import { HashRing } from 'kube-controller-kit';
 *
 * const keys = ['default/web', 'default/db', 'shop/cart', 'shop/checkout', 'ops/backup'];
 * const three = new HashRing(['replica-a', 'replica-b', 'replica-c']);
 * const two = new HashRing(['replica-a', 'replica-b']); // replica-c's Lease expired
 * for (const key of keys) {
 *   const before = three.get(key);
 *   const after = two.get(key);
 *   // Only replica-c's objects move: a consistent hash keeps every other assignment.
 *   console.log(key, before, before === after ? '(stays)' : `→ ${after}`);
 * }
 * ```
 *
 * @module sharding
 */
export { HashRing, HashRingError, hash32, DEFAULT_VIRTUAL_NODES } from './ring.js';
export type { RingPoint } from './ring.js';
export { ringLabels, checkLabelName, ShardingNameError, DEFAULT_SHARDING_DOMAIN } from './names.js';
export type { RingLabels } from './names.js';
export { Shard, ShardLeaseLostError } from './shard.js';
export type {
  ShardOptions,
  ShardLeaseTiming,
  ShardRunOutcome,
  ShardReconcilerOptions,
  ShardRunnable,
} from './shard.js';
export { Sharder, ShardEventReason, objectHashKey } from './sharder.js';
export type {
  SharderOptions,
  ShardedResource,
  ShardState,
  AdmissionObjectRequest,
  AdmissionPatchOperation,
} from './sharder.js';
export { decideShard } from './decision.js';
export type { ShardDecision, ShardDecisionInput } from './decision.js';
export { RangeShard, RangeShardError, DEFAULT_RANGE_VIRTUAL_NODES } from './range_shard.js';
export type { RangeShardOptions, RangeShardWork } from './range_shard.js';
export {
  hashRanges,
  normalizeRanges,
  unionRanges,
  intersectRanges,
  subtractRanges,
  rangesEqual,
  rangesShare,
  rangesSelector,
  formatRanges,
  parseRanges,
} from './ranges.js';
export type { HashRange, HashRangeSet } from './ranges.js';
export { shardingMetricNames } from './metrics.js';
export type { ShardingMetrics } from './metrics.js';
