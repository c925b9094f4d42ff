/**
 * One work queue for every cluster, fair across them: a multicluster controller's queue.
 *
 * Each cluster has a lane (its own FIFO of queued requests and its own rate limiter); a
 * worker's `get()` takes from the lanes in turn, one request from each lane that has one,
 * so a cluster with ten thousand queued requests delays another cluster's request by at
 * most one request per busy lane, not by ten thousand. Within a lane, first in first out.
 *
 * The work queue contract holds for every item, whatever its lane (client-go's
 * `workqueue.Typed` rules, as {@link Queue} and {@link RateLimitingQueue} keep them):
 *
 * - an item is never handed to two workers at once: an item added while it is processed
 *   is queued again after `done`;
 * - an item already queued is not queued twice (dirty items are deduplicated);
 * - `addAfter` keeps the earlier of two pending times; `addRateLimited` waits as the
 *   lane's rate limiter says for that item, and `forget` / `numRequeues` read the same
 *   limiter (so the limiter's history of a cluster goes with its lane);
 * - `get()` reports shutdown only once the queue is shut down and no lane has a ready item;
 *   `shutDownWithDrain()` resolves once nothing is being processed.
 *
 * And for lanes:
 *
 * - **Items only for engaged clusters.** A lane exists from {@link FairQueue.addCluster}
 *   to {@link FairQueue.removeCluster}; an item of a cluster without a lane is dropped (a
 *   late requeue of a cluster that went away). Removing a lane drops its queued items, its
 *   waiting (delayed) items and its rate limiter's history; an item of it being processed
 *   finishes, and is not queued again.
 * - **Held lanes.** A lane added with `ready: false` collects (and deduplicates) its items
 *   but hands none out until {@link FairQueue.setClusterReady}: a controller holds a
 *   cluster's requests until its watches of that cluster have synced.
 *
 * Items are keys that name their cluster (`clusterOf`, default the cluster of a
 * `cluster://<cluster>/<namespace>/<name>` request key).
 *
 * @module
 */
import type { Clock, Timer } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { Deque } from '../util/deque.js';
import type { RateLimitingWorkQueue } from '../workqueue/interface.js';
import type { QueueGetResult } from '../workqueue/queue.js';
import { WaitingHeap } from '../workqueue/heap.js';
import type { WaitingEntry } from '../workqueue/heap.js';
import { QueueMetrics, getDefaultMetricsProvider } from '../workqueue/metrics.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  MetricsProvider,
} from '../workqueue/metrics.js';
import { defaultControllerRateLimiter } from '../workqueue/rate_limiters.js';
import type { RateLimiter } from '../workqueue/rate_limiters.js';
import { Waiters } from '../workqueue/waiters.js';
import type { MultiClusterMetricsProvider } from './metrics.js';
import { clusterOfKey } from './request.js';

/** Options of a {@link FairQueue}. */
export interface FairQueueOptions {
  /** The queue's name: its `workqueue_*` metrics' `name` and its per-cluster series' `controller`. */
  name?: string;
  /** Source of time of delays, rate limiters and metrics (default the real clock). */
  clock?: Clock;
  /**
   * Makes each lane's rate limiter (default {@link defaultControllerRateLimiter} on the
   * queue's clock: per item 5 ms doubling to 1000 s, and 10 per second, burst 100, per
   * cluster).
   */
  newRateLimiter?: () => RateLimiter;
  /** The cluster an item belongs to (default: the cluster of a request key). */
  clusterOf?: (item: string) => string | undefined;
  /** Where the `workqueue_*` series go, counting every cluster (default: the default provider). */
  metricsProvider?: MetricsProvider;
  /** Where the per-cluster series go (default none). */
  clusterMetricsProvider?: MultiClusterMetricsProvider;
}

/** Options of {@link FairQueue.addCluster}. */
export interface AddClusterOptions {
  /** Hand out the lane's items at once (default true); false holds them until `setClusterReady`. */
  ready?: boolean;
}

interface LaneMetrics {
  readonly depth: GaugeMetric;
  readonly adds: CounterMetric;
  readonly latency: HistogramMetric;
  readonly addTimes: Map<string, number>;
}

interface Lane {
  readonly name: string;
  readonly items: Deque<string>;
  readonly limiter: RateLimiter;
  readonly metrics: LaneMetrics | undefined;
  ready: boolean;
  /** True while the lane is in the turn order (ready, with queued items). */
  inTurn: boolean;
}

interface Waiting extends WaitingEntry<string> {
  lane: Lane;
}

const SHUTDOWN: QueueGetResult<never> = Object.freeze({ shutdown: true });

/**
 * A rate-limiting work queue with one lane per cluster, served in turn; see the module
 * documentation.
 *
 * @example
 * ```ts
 * const queue = new FairQueue({ name: 'fleet-sync' });
 * queue.addCluster('member-a');
 * queue.add('cluster://member-a/default/settings');
 * const { item } = await queue.get();
 * ```
 */
export class FairQueue implements RateLimitingWorkQueue<string> {
  readonly #clock: Clock;
  readonly #name: string | undefined;
  readonly #newRateLimiter: () => RateLimiter;
  readonly #clusterOf: (item: string) => string | undefined;
  readonly #metrics: QueueMetrics | undefined;
  readonly #clusterMetrics: MultiClusterMetricsProvider | undefined;
  readonly #lanes = new Map<string, Lane>();
  /** Lanes with a ready item, in the order they get their next turn. */
  readonly #turns = new Deque<Lane>();
  readonly #dirty = new Set<string>();
  readonly #processing = new Set<string>();
  readonly #waiters = new Waiters<QueueGetResult<string>>();
  readonly #heap = new WaitingHeap<string>();
  readonly #waiting = new Map<string, Waiting>();
  #seq = 0;
  #timer: Timer | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  #queued = 0;
  #dropped = 0;
  #shuttingDown = false;
  #drainWaiters: (() => void)[] = [];

  /** An empty queue with no lanes. */
  constructor(options: FairQueueOptions = {}) {
    this.#clock = options.clock ?? realClock;
    this.#name = options.name;
    this.#newRateLimiter =
      options.newRateLimiter ?? (() => defaultControllerRateLimiter(this.#clock));
    this.#clusterOf = options.clusterOf ?? clusterOfKey;
    const provider = options.metricsProvider ?? getDefaultMetricsProvider();
    this.#metrics =
      options.name !== undefined && options.name !== '' && provider !== undefined
        ? new QueueMetrics(options.name, provider, this.#clock)
        : undefined;
    this.#clusterMetrics =
      options.name !== undefined && options.name !== ''
        ? options.clusterMetricsProvider
        : undefined;
  }

  // ------------------------------------------------------------------ lanes

  /** Open a lane for `cluster` (nothing when it has one; `ready` then only makes it ready). */
  addCluster(cluster: string, options: AddClusterOptions = {}): void {
    const existing = this.#lanes.get(cluster);
    if (existing !== undefined) {
      if (options.ready !== false) this.setClusterReady(cluster);
      return;
    }
    const p = this.#clusterMetrics;
    const name = this.#name ?? '';
    const lane: Lane = {
      name: cluster,
      items: new Deque<string>(8),
      limiter: this.#newRateLimiter(),
      metrics:
        p === undefined
          ? undefined
          : {
              depth: p.newClusterQueueDepthMetric(name, cluster),
              adds: p.newClusterQueueAddsMetric(name, cluster),
              latency: p.newClusterQueueLatencyMetric(name, cluster),
              addTimes: new Map(),
            },
      ready: options.ready !== false,
      inTurn: false,
    };
    this.#lanes.set(cluster, lane);
  }

  /** Start handing out the items of `cluster`'s lane (held since `addCluster(…, { ready: false })`). */
  setClusterReady(cluster: string): void {
    const lane = this.#lanes.get(cluster);
    if (lane === undefined || lane.ready) return;
    lane.ready = true;
    if (lane.items.length > 0) this.#giveTurn(lane);
  }

  /**
   * Close `cluster`'s lane: drop its queued and waiting items and its rate limiter's
   * history. An item of it being processed finishes and is not queued again.
   */
  removeCluster(cluster: string): void {
    const lane = this.#lanes.get(cluster);
    if (lane === undefined) return;
    this.#lanes.delete(cluster);
    if (lane.inTurn) {
      const rest = [...this.#turns].filter((l) => l !== lane);
      this.#turns.clear();
      for (const l of rest) this.#turns.push(l);
      lane.inTurn = false;
    }
    for (const item of lane.items) {
      this.#dirty.delete(item);
      this.#metrics?.discard(item);
    }
    this.#queued -= lane.items.length;
    lane.items.clear();
    for (const entry of [...this.#waiting.values()]) {
      if (entry.lane !== lane) continue;
      this.#waiting.delete(entry.key as string);
      this.#heap.remove(entry);
    }
    this.#arm();
  }

  /** The clusters with a lane, sorted. */
  clusters(): string[] {
    return [...this.#lanes.keys()].sort();
  }

  /** Queued items of `cluster` (0 when it has no lane). */
  clusterLen(cluster: string): number {
    return this.#lanes.get(cluster)?.items.length ?? 0;
  }

  /** Items dropped because their cluster had no lane (late requeues of removed clusters). */
  get dropped(): number {
    return this.#dropped;
  }

  // ------------------------------------------------------------------ the queue

  /** Mark `item` as needing processing (dropped when its cluster has no lane). */
  add(item: string): void {
    if (this.#shuttingDown) return;
    const lane = this.#laneOf(item);
    if (lane === undefined) return;
    if (this.#dirty.has(item)) return;
    this.#metrics?.add(item);
    this.#dirty.add(item);
    if (lane.metrics !== undefined) {
      lane.metrics.adds.inc();
      lane.metrics.depth.inc();
      if (!lane.metrics.addTimes.has(item)) lane.metrics.addTimes.set(item, this.#clock.now());
    }
    if (this.#processing.has(item)) return;
    this.#push(lane, item);
  }

  /** Wait for the next item, taking from the lanes in turn (see {@link workqueue!Queue.get}). */
  get(signal?: AbortSignal): Promise<QueueGetResult<string>> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    if (this.#turns.length > 0) return Promise.resolve({ shutdown: false, item: this.#take() });
    if (this.#shuttingDown) return Promise.resolve(SHUTDOWN);
    return this.#waiters.wait(signal);
  }

  /** Finish processing `item`; queue it again if it was added meanwhile (and its lane is open). */
  done(item: string): void {
    if (!this.#processing.delete(item)) return;
    this.#metrics?.done(item);
    if (this.#dirty.has(item)) {
      const lane = this.#laneOf(item);
      if (lane !== undefined) this.#push(lane, item);
      else this.#dirty.delete(item);
    } else if (this.#processing.size === 0 && this.#drainWaiters.length > 0) {
      this.#releaseDrainWaiters();
    }
  }

  /** Add `item` after `delayMs` (at once when ≤ 0); a waiting item keeps the earlier time. */
  addAfter(item: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    const lane = this.#laneOf(item);
    if (lane === undefined) return;
    this.#metrics?.retry();
    if (!(delayMs > 0)) {
      this.add(item);
      return;
    }
    const readyAt = this.#clock.now() + delayMs;
    const existing = this.#waiting.get(item);
    if (existing !== undefined) {
      if (readyAt < existing.readyAt) {
        existing.readyAt = readyAt;
        this.#heap.decreased(existing);
      }
    } else {
      const entry: Waiting = { item, key: item, readyAt, seq: this.#seq++, index: -1, lane };
      this.#waiting.set(item, entry);
      this.#heap.push(entry);
    }
    this.#arm();
  }

  /** Add `item` after its lane's rate limiter's delay (one more failure). */
  addRateLimited(item: string): void {
    const lane = this.#laneOf(item);
    if (lane === undefined) return;
    this.addAfter(item, lane.limiter.when(item));
  }

  /** Forget `item`'s failures in its lane's rate limiter. */
  forget(item: string): void {
    this.#lanes.get(this.#clusterOf(item) ?? '\0')?.limiter.forget(item);
  }

  /** How many times `item` was requeued through its lane's rate limiter. */
  numRequeues(item: string): number {
    return this.#lanes.get(this.#clusterOf(item) ?? '\0')?.limiter.numRequeues(item) ?? 0;
  }

  /** Number of queued items of every lane (held lanes included; items being processed not). */
  len(): number {
    return this.#queued;
  }

  /** Number of items being processed. */
  processingLen(): number {
    return this.#processing.size;
  }

  /** Number of items waiting for their delay. */
  waitingLen(): number {
    return this.#heap.size;
  }

  /**
   * Stop accepting adds; workers still get the items of ready lanes; held lanes' items and
   * waiting items are dropped. Releases a pending {@link FairQueue.shutDownWithDrain}.
   */
  shutDown(): void {
    this.#shuttingDown = true;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    this.#heap.clear();
    this.#waiting.clear();
    for (const lane of this.#lanes.values()) {
      if (lane.ready) continue;
      for (const item of lane.items) {
        this.#dirty.delete(item);
        this.#metrics?.discard(item);
      }
      this.#queued -= lane.items.length;
      lane.items.clear();
    }
    this.#metrics?.stop();
    if (this.#turns.length === 0) this.#waiters.resolveAll(SHUTDOWN);
    this.#releaseDrainWaiters();
  }

  /** Shut down, and resolve once no item is being processed. */
  shutDownWithDrain(): Promise<void> {
    const drained =
      this.#processing.size === 0
        ? Promise.resolve()
        : new Promise<void>((resolve) => this.#drainWaiters.push(resolve));
    const pending = this.#drainWaiters.splice(0);
    this.shutDown();
    this.#drainWaiters.push(...pending);
    return drained;
  }

  /** True once a shutdown was asked for. */
  shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  // ------------------------------------------------------------------ internals

  #laneOf(item: string): Lane | undefined {
    const cluster = this.#clusterOf(item);
    const lane = cluster === undefined ? undefined : this.#lanes.get(cluster);
    if (lane === undefined) this.#dropped++;
    return lane;
  }

  #push(lane: Lane, item: string): void {
    lane.items.push(item);
    this.#queued++;
    if (lane.ready && !lane.inTurn) this.#giveTurn(lane);
  }

  #giveTurn(lane: Lane): void {
    lane.inTurn = true;
    this.#turns.push(lane);
    // A waiter exists only while no lane has a ready item: hand them over directly.
    while (this.#waiters.length > 0 && this.#turns.length > 0) {
      this.#waiters.resolveNext({ shutdown: false, item: this.#take() });
    }
  }

  /** The next lane's first item, now being processed; called only when a lane has its turn. */
  #take(): string {
    const lane = this.#turns.shift()!;
    const item = lane.items.shift()!;
    this.#queued--;
    if (lane.items.length > 0) this.#turns.push(lane);
    else lane.inTurn = false;
    this.#metrics?.get(item);
    this.#processing.add(item);
    this.#dirty.delete(item);
    const m = lane.metrics;
    if (m !== undefined) {
      m.depth.dec();
      const added = m.addTimes.get(item);
      if (added !== undefined) {
        m.latency.observe((this.#clock.now() - added) / 1000);
        m.addTimes.delete(item);
      }
    }
    return item;
  }

  /** Make sure a timer is set for the earliest waiting item. */
  #arm(): void {
    const top = this.#heap.peek();
    if (top === undefined) {
      this.#timer?.cancel();
      this.#timer = undefined;
      this.#timerAt = Number.POSITIVE_INFINITY;
      return;
    }
    if (top.readyAt >= this.#timerAt) return;
    this.#timer?.cancel();
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    if (!Number.isFinite(top.readyAt)) return;
    this.#timerAt = top.readyAt;
    this.#timer = this.#clock.setTimeout(() => this.#fire(), top.readyAt - this.#clock.now());
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    for (;;) {
      const top = this.#heap.peek();
      if (top === undefined || top.readyAt > now) break;
      this.#heap.pop();
      this.#waiting.delete(top.key as string);
      this.add(top.item);
    }
    this.#arm();
  }

  #releaseDrainWaiters(): void {
    const waiters = this.#drainWaiters;
    this.#drainWaiters = [];
    for (const w of waiters) w();
  }
}
