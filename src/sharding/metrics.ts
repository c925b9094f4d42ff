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
 * The Prometheus adapter (`PrometheusShardingMetrics` in `kube-controller-kit/metrics`)
 * maps them to these series, named after kubernetes-controller-sharding's
 * `controller_sharding_*` family:
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `controller_sharding_assignments_total{ring,shard}` | counter | shard labels written by the sharder, by the shard assigned |
 * | `controller_sharding_movements_total{ring,from,to}` | counter | objects of a dead shard moved at once |
 * | `controller_sharding_drain_requests_total{ring,shard}` | counter | drain labels set, by the shard asked to let go |
 * | `controller_sharding_drains_total{ring,shard}` | counter | objects a shard released after a drain request |
 * | `controller_sharding_ring_size{ring}` | gauge | live shards in the ring as the sharder last computed it |
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

/** The sharding metric names, for adapters and dashboards. */
export const shardingMetricNames = {
  /** Counter of shard assignments, labels `ring`, `shard`. */
  assignments: 'controller_sharding_assignments_total',
  /** Counter of moves away from dead shards, labels `ring`, `from`, `to`. */
  movements: 'controller_sharding_movements_total',
  /** Counter of drain requests, labels `ring`, `shard` (the shard asked to let go). */
  drainRequests: 'controller_sharding_drain_requests_total',
  /** Counter of completed drains, labels `ring`, `shard` (the shard that let go). */
  drains: 'controller_sharding_drains_total',
  /** Gauge of live shards, label `ring`. */
  ringSize: 'controller_sharding_ring_size',
} as const;
