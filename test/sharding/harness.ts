// A ring of in-process shard replicas and a sharder on one in-memory API server, with every
// reconcile recorded as an interval, for the sharding invariants.
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import type { KubeObject } from '../../src/client/types.js';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import { Controller } from '../../src/controller/controller.js';
import type { EventRecorder } from '../../src/record/index.js';
import {
  hashRanges,
  HashRing,
  RangeShard,
  rangesEqual,
  Shard,
  Sharder,
  DEFAULT_RANGE_VIRTUAL_NODES,
} from '../../src/sharding/index.js';
import { fnv1a64 } from '../../src/apimachinery/shard_selector.js';
import type { RingLabels, ShardingMetrics, ShardRunOutcome } from '../../src/sharding/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';
import { PartitionProxy } from '../support/partition_proxy.js';

export const RING = 'widgets';
export const NAMESPACE = 'default';
export const timing = { leaseDurationMs: 2_000, renewDeadlineMs: 1_400, retryPeriodMs: 300 };

/** One reconcile: which shard, which key, when (ms, performance.now()). */
export interface Interval {
  shard: string;
  key: string;
  start: number;
  end: number;
}

/** No key was ever reconciled by two shards (or twice) at overlapping times. */
export function assertNoOverlap(intervals: readonly Interval[]): void {
  const byKey = new Map<string, Interval[]>();
  for (const i of intervals) {
    const list = byKey.get(i.key) ?? [];
    list.push(i);
    byKey.set(i.key, list);
  }
  for (const [key, list] of byKey) {
    list.sort((a, b) => a.start - b.start);
    let prev: Interval | undefined;
    for (const i of list) {
      if (prev !== undefined && i.start < prev.end) {
        assert.fail(
          `${key} reconciled by ${prev.shard} [${prev.start.toFixed(1)}, ${prev.end.toFixed(1)}] and ${i.shard} [${i.start.toFixed(1)}, ${i.end.toFixed(1)}] at once`,
        );
      }
      if (prev === undefined || i.end > prev.end) prev = i;
    }
  }
}

/**
 * Waits for quiescence: the sharder's ring (when given) holds the live shards, every object carries the label of a live shard and no drain
 * label, and its latest reconcile (by start time) was by that shard. Returns the labels.
 */
export async function waitSettled(
  objects: ResourceClient<KubeObject>,
  labels: RingLabels,
  live: () => Set<string>,
  intervals: readonly Interval[],
  timeoutMs = 15_000,
  ring?: () => readonly string[],
): Promise<Map<string, string | undefined>> {
  let last = new Map<string, string | undefined>();
  await eventually(
    'every object labelled with a live shard and reconciled by it',
    async () => {
      const shards = live();
      // The sharder's ring must hold exactly the live shards (a new one has joined).
      if (ring !== undefined && ring().join(',') !== [...shards].sort().join(',')) return false;
      const list = await objects.list();
      const lastBy = new Map<string, Interval>();
      for (const i of intervals) {
        const prev = lastBy.get(i.key);
        if (prev === undefined || i.start >= prev.start) lastBy.set(i.key, i);
      }
      last = new Map();
      for (const o of list.items) {
        const l = o.metadata?.labels ?? {};
        const key = `${NAMESPACE}/${o.metadata?.name ?? ''}`;
        const shard = l[labels.shard];
        if (shard === undefined || !shards.has(shard)) return false;
        if (l[labels.drain] !== undefined) return false;
        if (lastBy.get(key)?.shard !== shard) return false;
        last.set(key, shard);
      }
      return true;
    },
    timeoutMs,
    20,
  );
  return last;
}

/** A KubeConfig like the server's, pointing at `url` (a proxy in front of it). */
function kubeConfigVia(server: TestApiServer, url: string): KubeConfig {
  const base = server.kubeConfig();
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: base.clusters.map((c) => ({ ...c, server: url })),
    users: base.users,
    contexts: base.contexts,
    currentContext: base.currentContext,
  });
  return kc;
}

/**
 * One replica of the sharded controller. It reaches the server only through its own
 * {@link PartitionProxy}, so {@link Replica.partition} cuts everything it does — Lease
 * renewals, its informers' lists and watches, its label writes — and nothing of the others.
 */
export class Replica {
  readonly #proxy: PartitionProxy;
  #controller = new AbortController();
  #transport: Transport | undefined;
  outcome: Promise<ShardRunOutcome> | undefined;
  /** Set while the replica's controller works (holds its Lease). */
  working = false;
  /** Server mode: the range shard (its held ranges). */
  rangeShard: RangeShard | undefined;
  /** The cache of the replica's current informer (for benchmarks). */
  cache: { list(): unknown[] } | undefined;

  constructor(
    readonly ring: Ring,
    readonly name: string,
  ) {
    this.#proxy = new PartitionProxy(new URL(ring.server.url));
  }

  /** Runs the replica: joins the ring and works until stopped or its Lease is lost. */
  start(): void {
    this.#controller = new AbortController();
    this.outcome = this.#run(this.#controller.signal);
  }

  async #run(signal: AbortSignal): Promise<ShardRunOutcome> {
    this.#transport ??= new Transport(kubeConfigVia(this.ring.server, await this.#proxy.url), {
      logger: noopLogger,
    });
    const transport = this.#transport;
    if (this.ring.mode === 'server') {
      const rangeShard = new RangeShard({
        ring: RING,
        name: this.name,
        namespace: NAMESPACE,
        source: transport,
        logger: noopLogger,
        ...timing,
      });
      this.rangeShard = rangeShard;
      const outcome = rangeShard.run(
        (selector, s) => this.#workServer(transport, selector, s),
        signal,
      );
      this.working = true;
      try {
        return await outcome;
      } finally {
        this.working = false;
      }
    }
    const shard = new Shard({
      ring: RING,
      name: this.name,
      namespace: NAMESPACE,
      source: transport,
      logger: noopLogger,
      ...timing,
      ...(this.ring.options.metrics === undefined ? {} : { metrics: this.ring.options.metrics }),
    });
    return shard.run((s) => this.#work(shard, transport, s), signal);
  }

  async #work(shard: Shard, transport: Transport, signal: AbortSignal): Promise<void> {
    const factory = new SharedInformerFactory(transport, {
      labelSelector: shard.labelSelector,
      logger: noopLogger,
    });
    const informer = factory.forResource(configMapsResource, { namespace: NAMESPACE });
    this.cache = informer.getIndexer();
    const client = new ResourceClient(transport, configMapsResource);
    const record = async (key: string): Promise<void> => {
      const start = performance.now();
      await new Promise((r) => setTimeout(r, 1 + Math.floor(Math.random() * 4)));
      this.ring.intervals.push({ shard: this.name, key, start, end: performance.now() });
    };
    const controller = new Controller({
      name: `shard-${this.name}`,
      workers: 3,
      logger: noopLogger,
      reconcile: shard.reconciler({ store: informer.getIndexer(), client, reconcile: record }),
    }).for(informer);
    this.working = true;
    factory.start(signal);
    try {
      await controller.run(signal, { shutdown: 'abort' });
    } finally {
      this.working = false;
      await factory.shutdown();
    }
  }

  /** Server mode: informers with the shard selector, no drain wrapper, no label writes. */
  async #workServer(transport: Transport, selector: string, signal: AbortSignal): Promise<void> {
    const factory = new SharedInformerFactory(transport, {
      shardSelector: selector,
      logger: noopLogger,
    });
    const informer = factory.forResource(configMapsResource, { namespace: NAMESPACE });
    this.cache = informer.getIndexer();
    const record = async (key: string): Promise<void> => {
      const start = performance.now();
      await new Promise((r) =>
        setTimeout(r, this.ring.reconcileMs ?? 1 + Math.floor(Math.random() * 4)),
      );
      this.ring.intervals.push({ shard: this.name, key, start, end: performance.now() });
    };
    const controller = new Controller({
      name: `shard-${this.name}`,
      workers: 3,
      logger: noopLogger,
      reconcile: record,
    }).for(informer);
    factory.start(signal);
    try {
      await controller.run(signal, { shutdown: 'abort' });
    } finally {
      await factory.shutdown();
    }
  }

  /** Stops cleanly (the work stops, then the Lease is released), then closes the proxy. */
  async stop(): Promise<ShardRunOutcome | undefined> {
    this.#controller.abort();
    try {
      return await this.outcome;
    } finally {
      this.#transport?.close();
      await this.#proxy.close();
    }
  }

  /**
   * Cuts the replica off from the server (every connection, open or new): it can neither
   * renew its Lease nor list, watch or write, and stops working at its renew deadline.
   */
  partition(): void {
    this.#proxy.cut();
  }

  /** Ends the partition: the replica's requests reach the server again. */
  heal(): void {
    this.#proxy.heal();
  }
}

/** What a {@link Ring} hands its sharder and replicas. */
export interface RingOptions {
  /** The sharder's and every replica's metrics sink. */
  metrics?: ShardingMetrics;
  /** The sharder's event recorder. */
  recorder?: EventRecorder;
  /**
   * `labels` (default): a sharder labels objects, replicas select on their label. `server`:
   * no sharder; each replica is a {@link RangeShard} watching its ranges with a
   * `shardSelector` (the server needs the ShardedListAndWatch gate).
   */
  mode?: 'labels' | 'server';
}

/** The sharder, N replicas and the recorded reconciles. */
export class Ring {
  readonly intervals: Interval[] = [];
  readonly replicas = new Map<string, Replica>();
  /** Partitioned replicas, stopped (not working) but not closed. */
  readonly #partitioned = new Map<string, Replica>();
  readonly sharder: Sharder;
  readonly #sharderStop = new AbortController();
  #sharderDone: Promise<void> | undefined;
  readonly objects: ResourceClient<KubeObject>;
  readonly mode: 'labels' | 'server';
  /** Server mode: how long each reconcile takes, in ms (default 1–4, random). */
  reconcileMs: number | undefined;

  constructor(
    readonly server: TestApiServer,
    readonly options: RingOptions = {},
  ) {
    this.mode = options.mode ?? 'labels';
    this.sharder = new Sharder({
      ring: RING,
      leaseNamespace: NAMESPACE,
      resources: [{ resource: configMapsResource }],
      source: server.kubeConfig(),
      namespace: NAMESPACE,
      logger: noopLogger,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(options.recorder === undefined ? {} : { recorder: options.recorder }),
    });
    this.objects = new ResourceClient<KubeObject>(server.kubeConfig(), configMapsResource, {
      namespace: NAMESPACE,
    });
  }

  startSharder(): void {
    if (this.mode === 'server') return; // server mode has no sharder
    this.#sharderDone = this.sharder.run(this.#sharderStop.signal);
  }

  add(name: string): Replica {
    const r = new Replica(this, name);
    this.replicas.set(name, r);
    r.start();
    return r;
  }

  async remove(name: string): Promise<ShardRunOutcome | undefined> {
    const r = this.replicas.get(name);
    assert.ok(r);
    this.replicas.delete(name);
    return r.stop();
  }

  /**
   * Partitions replica `name` from the server and waits until it has stopped working
   * (its run ends with `'lease-lost'`); it leaves the live replicas until {@link Ring.rejoin}.
   */
  async partition(name: string): Promise<ShardRunOutcome | undefined> {
    const r = this.replicas.get(name);
    assert.ok(r);
    this.replicas.delete(name);
    this.#partitioned.set(name, r);
    r.partition();
    return r.outcome;
  }

  /** Heals the partition of replica `name` and runs it again (a restarted process). */
  rejoin(name: string): Replica {
    const r = this.#partitioned.get(name);
    assert.ok(r);
    this.#partitioned.delete(name);
    r.heal();
    this.replicas.set(name, r);
    r.start();
    return r;
  }

  async createObjects(prefix: string, count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      await this.objects.create({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${prefix}-${i}`, namespace: NAMESPACE },
      });
    }
  }

  /** The shard label of every object. */
  async assignments(): Promise<Map<string, string | undefined>> {
    const list = await this.objects.list();
    return new Map(
      list.items.map((o) => [
        `${NAMESPACE}/${o.metadata?.name ?? ''}`,
        o.metadata?.labels?.[this.sharder.labels.shard],
      ]),
    );
  }

  /**
   * Quiescence: every object carries the label of a working replica and no drain label,
   * and its latest reconcile was by that replica.
   */
  settled(timeoutMs = 15_000): Promise<Map<string, string | undefined>> {
    if (this.mode === 'server') return this.#settledServer(timeoutMs);
    return waitSettled(
      this.objects,
      this.sharder.labels,
      () => new Set([...this.replicas.values()].filter((r) => r.working).map((r) => r.name)),
      this.intervals,
      timeoutMs,
      () => this.sharder.ring.shards,
    );
  }

  /**
   * Server-mode quiescence: every working replica holds exactly its ranges on the ring of
   * working replicas, and every object's latest reconcile was by the replica whose ranges
   * hold the hash of its uid.
   */
  async #settledServer(timeoutMs: number): Promise<Map<string, string | undefined>> {
    let last = new Map<string, string | undefined>();
    await eventually(
      'every working replica holds its ranges and every object was last reconciled by its owner',
      async () => {
        const working = [...this.replicas.values()];
        // Every running replica (started, not removed or partitioned) has joined.
        if (working.length === 0 || working.some((r) => r.rangeShard?.shard.isMember() !== true))
          return false;
        const ring = new HashRing(
          working.map((r) => r.name),
          DEFAULT_RANGE_VIRTUAL_NODES,
        );
        for (const r of working) {
          if (!rangesEqual(r.rangeShard?.heldRanges() ?? [], hashRanges(ring, r.name)))
            return false;
        }
        const lastBy = new Map<string, Interval>();
        for (const i of this.intervals) {
          const prev = lastBy.get(i.key);
          if (prev === undefined || i.start >= prev.start) lastBy.set(i.key, i);
        }
        const list = await this.objects.list();
        last = new Map();
        for (const o of list.items) {
          const key = `${NAMESPACE}/${o.metadata?.name ?? ''}`;
          const h = fnv1a64(o.metadata?.uid ?? '');
          const owner = working.find((r) =>
            (r.rangeShard?.heldRanges() ?? []).some((x) => h >= x.start && h < x.end),
          )?.name;
          if (owner === undefined || lastBy.get(key)?.shard !== owner) return false;
          last.set(key, owner);
        }
        return true;
      },
      timeoutMs,
      20,
    );
    return last;
  }

  /** No key was ever reconciled by two shards (or twice) at overlapping times. */
  assertNoOverlap(): void {
    assertNoOverlap(this.intervals);
  }

  async close(): Promise<void> {
    await Promise.all([...this.replicas.keys()].map((n) => this.remove(n)));
    await Promise.all([...this.#partitioned.values()].map((r) => r.stop()));
    this.#partitioned.clear();
    this.#sharderStop.abort();
    await this.#sharderDone;
  }
}
