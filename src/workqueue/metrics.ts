/**
 * Work queue metrics under client-go's names.
 *
 * A queue emits metrics only when it has a `name` and a {@link MetricsProvider} (given in
 * its options or set with {@link setDefaultMetricsProvider}). The provider creates one
 * metric per kind for each queue name; every metric carries the label `name`:
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `workqueue_depth` | gauge | items waiting to be processed (dirty items) |
 * | `workqueue_adds_total` | counter | adds that were not duplicates |
 * | `workqueue_queue_duration_seconds` | histogram | time from add to get |
 * | `workqueue_work_duration_seconds` | histogram | time from get to done |
 * | `workqueue_unfinished_work_seconds` | gauge | summed age of the work in progress |
 * | `workqueue_longest_running_processor_seconds` | gauge | age of the oldest work in progress |
 * | `workqueue_retries_total` | counter | `addAfter` / `addRateLimited` calls |
 *
 * A {@link PriorityQueue} reports its depth by priority instead, when the provider has
 * `newDepthWithPriorityMetric`: `workqueue_depth{name,priority}` as controller-runtime's
 * priority queue does (after 25 distinct priorities the label becomes
 * `exceeded_cardinality_limit`). Without that method it reports the plain depth.
 *
 * The two gauges of work in progress are refreshed every 500 ms through the queue's clock
 * while a worker holds an item (client-go's `updateUnfinishedWorkLoop`), and set to 0 when
 * the last one is done. With no work in progress no timer runs, so a queue that was made
 * but never used (a controller constructed and never run, a standby replica) keeps no
 * process alive; the timer also stops when the queue shuts down.
 *
 * @module
 */
import type { Clock, Timer } from '../util/clock.js';

import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
} from '../util/metrics.js';

export type { CounterMetric, GaugeMetric, HistogramMetric, SettableGaugeMetric };

/**
 * Creates the metrics of one named queue. Each method is called once per queue name, when
 * the queue is created. Implementations must return the same series for the same name if
 * two queues share a name (prom-client's labelled children do).
 */
export interface MetricsProvider {
  /** `workqueue_depth{name}`. */
  newDepthMetric(name: string): GaugeMetric;
  /** `workqueue_adds_total{name}`. */
  newAddsMetric(name: string): CounterMetric;
  /** `workqueue_queue_duration_seconds{name}`, in seconds. */
  newLatencyMetric(name: string): HistogramMetric;
  /** `workqueue_work_duration_seconds{name}`, in seconds. */
  newWorkDurationMetric(name: string): HistogramMetric;
  /** `workqueue_unfinished_work_seconds{name}`. */
  newUnfinishedWorkSecondsMetric(name: string): SettableGaugeMetric;
  /** `workqueue_longest_running_processor_seconds{name}`. */
  newLongestRunningProcessorSecondsMetric(name: string): SettableGaugeMetric;
  /** `workqueue_retries_total{name}`. */
  newRetriesMetric(name: string): CounterMetric;
  /**
   * `workqueue_depth{name,priority}`: the depth of a priority queue's items of one
   * priority (controller-runtime's `DepthMetricWithPriority`). Optional; called once per
   * (queue, priority label), lazily, as priorities appear.
   */
  newDepthWithPriorityMetric?(name: string, priority: string): GaugeMetric;
}

/** The `priority` label once a queue has seen more than 25 priorities (controller-runtime's). */
export const PRIORITY_CARDINALITY_EXCEEDED = 'exceeded_cardinality_limit';
/** How many distinct priorities get their own `priority` label (controller-runtime's limit). */
export const MAX_PRIORITY_LABELS = 25;

/** client-go's metric names, for providers and dashboards. */
export const workqueueMetricNames = {
  /** Gauge of items waiting. */
  depth: 'workqueue_depth',
  /** Counter of adds. */
  adds: 'workqueue_adds_total',
  /** Histogram of time waiting in the queue. */
  queueDuration: 'workqueue_queue_duration_seconds',
  /** Histogram of processing time. */
  workDuration: 'workqueue_work_duration_seconds',
  /** Gauge of summed age of work in progress. */
  unfinishedWork: 'workqueue_unfinished_work_seconds',
  /** Gauge of the age of the oldest work in progress. */
  longestRunningProcessor: 'workqueue_longest_running_processor_seconds',
  /** Counter of retries. */
  retries: 'workqueue_retries_total',
} as const;

/** How often the unfinished-work gauges are refreshed, as in client-go. */
export const UNFINISHED_WORK_UPDATE_PERIOD_MS = 500;

let defaultProvider: MetricsProvider | undefined;

/**
 * Set the provider used by named queues created afterwards without a `metricsProvider`
 * option (client-go's `workqueue.SetProvider`). Pass `undefined` to turn it off again.
 */
export function setDefaultMetricsProvider(provider: MetricsProvider | undefined): void {
  defaultProvider = provider;
}

/** The provider set with {@link setDefaultMetricsProvider}, if any. */
export function getDefaultMetricsProvider(): MetricsProvider | undefined {
  return defaultProvider;
}

/**
 * The metrics bookkeeping of one queue (internal). Keys are the queue's item keys.
 * @internal
 */
export class QueueMetrics {
  readonly #clock: Clock;
  readonly #depth: GaugeMetric;
  readonly #adds: CounterMetric;
  readonly #latency: HistogramMetric;
  readonly #workDuration: HistogramMetric;
  readonly #unfinished: SettableGaugeMetric;
  readonly #longest: SettableGaugeMetric;
  readonly #retries: CounterMetric;
  readonly #depthByPriority: Map<string, GaugeMetric> | undefined;
  readonly #newDepthWithPriority: ((priority: string) => GaugeMetric) | undefined;
  readonly #addTimes = new Map<unknown, number>();
  readonly #processingStartTimes = new Map<unknown, number>();
  #timer: Timer | undefined;
  #stopped = false;

  /**
   * Create the queue's metrics from `provider`. The gauges of work in progress are
   * refreshed only while an item is being processed.
   */
  constructor(name: string, provider: MetricsProvider, clock: Clock) {
    this.#clock = clock;
    this.#depth = provider.newDepthMetric(name);
    this.#adds = provider.newAddsMetric(name);
    this.#latency = provider.newLatencyMetric(name);
    this.#workDuration = provider.newWorkDurationMetric(name);
    this.#unfinished = provider.newUnfinishedWorkSecondsMetric(name);
    this.#longest = provider.newLongestRunningProcessorSecondsMetric(name);
    this.#retries = provider.newRetriesMetric(name);
    if (provider.newDepthWithPriorityMetric !== undefined) {
      const make = provider.newDepthWithPriorityMetric.bind(provider);
      this.#newDepthWithPriority = (priority) => make(name, priority);
      this.#depthByPriority = new Map();
    }
  }

  /** An item became dirty (ready, for a priority queue, which passes its priority). */
  add(key: unknown, priority?: number): void {
    this.#adds.inc();
    this.#depthOf(priority).inc();
    if (!this.#addTimes.has(key)) this.#addTimes.set(key, this.#clock.now());
  }

  /** An item was handed to a worker (with its priority, for a priority queue). */
  get(key: unknown, priority?: number): void {
    const now = this.#clock.now();
    this.#depthOf(priority).dec();
    this.#processingStartTimes.set(key, now);
    if (this.#timer === undefined) this.#schedule();
    const added = this.#addTimes.get(key);
    if (added !== undefined) {
      this.#latency.observe((now - added) / 1000);
      this.#addTimes.delete(key);
    }
  }

  /**
   * A queued item was dropped without being handed to a worker (a queue that removes a
   * group of items, e.g. a disengaged cluster's): the depth no longer counts it.
   */
  discard(key: unknown, priority?: number): void {
    this.#depthOf(priority).dec();
    this.#addTimes.delete(key);
  }

  /** A worker finished an item. */
  done(key: unknown): void {
    const started = this.#processingStartTimes.get(key);
    if (started !== undefined) {
      this.#workDuration.observe((this.#clock.now() - started) / 1000);
      this.#processingStartTimes.delete(key);
      if (this.#processingStartTimes.size === 0 && this.#timer !== undefined) {
        // Nothing in progress: the gauges read 0 until the next get; no timer meanwhile.
        this.#timer.cancel();
        this.#timer = undefined;
        this.updateUnfinishedWork();
      }
    }
  }

  /** A queued item of a priority queue moved from one priority to another. */
  changePriority(from: number, to: number): void {
    if (this.#depthByPriority === undefined) return;
    this.#depthOf(from).dec();
    this.#depthOf(to).inc();
  }

  /** The depth gauge for `priority` (the plain one without priorities). */
  #depthOf(priority: number | undefined): GaugeMetric {
    const byPriority = this.#depthByPriority;
    if (priority === undefined || byPriority === undefined) return this.#depth;
    let label = String(priority);
    let gauge = byPriority.get(label);
    if (gauge !== undefined) return gauge;
    if (byPriority.size >= MAX_PRIORITY_LABELS) label = PRIORITY_CARDINALITY_EXCEEDED;
    gauge = byPriority.get(label);
    if (gauge === undefined) {
      gauge = this.#newDepthWithPriority!(label);
      byPriority.set(label, gauge);
    }
    return gauge;
  }

  /** An item was added with a delay. */
  retry(): void {
    this.#retries.inc();
  }

  /** Recompute the two gauges of work in progress. */
  updateUnfinishedWork(): void {
    const now = this.#clock.now();
    let total = 0;
    let oldest = 0;
    for (const started of this.#processingStartTimes.values()) {
      const age = (now - started) / 1000;
      total += age;
      if (age > oldest) oldest = age;
    }
    this.#unfinished.set(total);
    this.#longest.set(oldest);
  }

  /** Stop the refresh timer (on shutdown). */
  stop(): void {
    this.#stopped = true;
    this.#timer?.cancel();
    this.#timer = undefined;
  }

  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = undefined;
      this.updateUnfinishedWork();
      if (this.#processingStartTimes.size > 0) this.#schedule();
    }, UNFINISHED_WORK_UPDATE_PERIOD_MS);
  }
}
