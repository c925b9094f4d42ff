/**
 * What the sharding components report, for a Prometheus adapter or any other sink.
 *
 * | event | meaning |
 * | --- | --- |
 * | `assigned(ring, shard)` | an unassigned object (or one of a dead shard) got a shard label |
 * | `moved(ring, from, to)` | an object of a dead shard was assigned to a live one at once |
 * | `drainRequested(ring, shard)` | the sharder asked a live shard to let an object go |
 * | `drained(ring, shard)` | a shard released an object it was asked to let go |
 * | `ringSize(ring, n)` | the number of live shards changed |
 *
 * @module
 */

/** Receives the sharding components' events; every method is optional. */
export interface ShardingMetrics {
  /** An object got its first shard, or a dead shard's object got a live one. */
  assigned?(ring: string, shard: string): void;
  /** An object of a dead shard moved to `to` without a drain. */
  moved?(ring: string, from: string, to: string): void;
  /** A live shard was asked to release an object (the drain label was set). */
  drainRequested?(ring: string, shard: string): void;
  /** A shard released an object after a drain request. */
  drained?(ring: string, shard: string): void;
  /** The number of live shards. */
  ringSize?(ring: string, size: number): void;
}
