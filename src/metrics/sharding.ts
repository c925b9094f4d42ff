/**
 * The sharding metrics on prom-client (see `src/sharding/metrics.ts` for the hook and the
 * series).
 *
 * @module
 */
import { Counter, Gauge, register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ShardingMetrics } from '../sharding/metrics.js';
import { shardingMetricNames } from '../sharding/metrics.js';

/** Options of {@link PrometheusShardingMetrics}. */
export interface PrometheusShardingMetricsOptions {
  /** The registry to register the metrics in (default: prom-client's global registry). */
  registry?: Registry;
}

/**
 * Registers the `controller_sharding_*` series in a prom-client registry and counts what the
 * sharder and the shards report. Give the same instance to the `Sharder` and every `Shard`
 * of a process (`metrics` option); one instance serves any number of rings.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { PrometheusShardingMetrics } from 'kube-controller-kit/metrics';
 * const registry = new Registry();
 * const metrics = new PrometheusShardingMetrics({ registry });
 * const sharder = new Sharder({ ring: 'widgets', leaseNamespace, resources, source, metrics });
 * const shard = new Shard({ ring: 'widgets', name, namespace: leaseNamespace, source, metrics });
 * ```
 */
export class PrometheusShardingMetrics implements ShardingMetrics {
  readonly #assignments: Counter<'ring' | 'shard'>;
  readonly #movements: Counter<'ring' | 'from' | 'to'>;
  readonly #drainRequests: Counter<'ring' | 'shard'>;
  readonly #drains: Counter<'ring' | 'shard'>;
  readonly #ringSize: Gauge<'ring'>;

  /** Create the metrics and register them in the registry. */
  constructor(options: PrometheusShardingMetricsOptions = {}) {
    const registers = [options.registry ?? globalRegistry];
    const n = shardingMetricNames;
    this.#assignments = new Counter({
      name: n.assignments,
      help: 'Shard labels written by the sharder, by ring and assigned shard',
      labelNames: ['ring', 'shard'] as const,
      registers,
    });
    this.#movements = new Counter({
      name: n.movements,
      help: 'Objects of a dead shard moved to a live shard at once, by ring, from and to shard',
      labelNames: ['ring', 'from', 'to'] as const,
      registers,
    });
    this.#drainRequests = new Counter({
      name: n.drainRequests,
      help: 'Drain labels set by the sharder, by ring and the shard asked to release the object',
      labelNames: ['ring', 'shard'] as const,
      registers,
    });
    this.#drains = new Counter({
      name: n.drains,
      help: 'Objects a shard released after a drain request, by ring and shard',
      labelNames: ['ring', 'shard'] as const,
      registers,
    });
    this.#ringSize = new Gauge({
      name: n.ringSize,
      help: 'Live shards in the ring as the sharder last computed it',
      labelNames: ['ring'] as const,
      registers,
    });
  }

  /** {@inheritDoc ShardingMetrics.assigned} */
  assigned(ring: string, shard: string): void {
    this.#assignments.inc({ ring, shard });
  }
  /** {@inheritDoc ShardingMetrics.moved} */
  moved(ring: string, from: string, to: string): void {
    this.#movements.inc({ ring, from, to });
  }
  /** {@inheritDoc ShardingMetrics.drainRequested} */
  drainRequested(ring: string, shard: string): void {
    this.#drainRequests.inc({ ring, shard });
  }
  /** {@inheritDoc ShardingMetrics.drained} */
  drained(ring: string, shard: string): void {
    this.#drains.inc({ ring, shard });
  }
  /** {@inheritDoc ShardingMetrics.ringSize} */
  ringSize(ring: string, size: number): void {
    this.#ringSize.set({ ring }, size);
  }
}
