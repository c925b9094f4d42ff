// Leader election against the in-memory API server, in real time, with short durations
// (lease 2 s, renew deadline 1.4 s, retry 0.3 s) and four candidates, each with its own
// connection. Every leadership interval is recorded and checked for overlaps.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { ApiError } from '../../src/client/errors.js';
import { leases } from '../../src/client/builtins.js';
import { Transport } from '../../src/client/transport.js';
import { noopLogger } from '../../src/util/logger.js';
import { LeaderElector, LeaseLock } from '../../src/leaderelection/index.js';
import type { Lease, LeaseClient, LeaseRequestOptions } from '../../src/leaderelection/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';

const timing = { leaseDurationMs: 2_000, renewDeadlineMs: 1_400, retryPeriodMs: 300 };
const SLACK = 600; // scheduling and request latency on a busy machine

/** A client whose requests fail while `partitioned` (the network to the server is down). */
class PartitionableClient implements LeaseClient {
  partitioned = false;
  constructor(readonly inner: LeaseClient) {}
  #check(): void {
    if (this.partitioned)
      throw new ApiError({
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 0,
        message: 'partitioned',
      });
  }
  async get(name: string, o?: LeaseRequestOptions): Promise<Lease> {
    this.#check();
    return this.inner.get(name, o);
  }
  async create(lease: Lease, o?: LeaseRequestOptions): Promise<Lease> {
    this.#check();
    return this.inner.create(lease, o);
  }
  async update(lease: Lease, o?: LeaseRequestOptions): Promise<Lease> {
    this.#check();
    return this.inner.update(lease, o);
  }
}

interface Interval {
  who: string;
  start: number;
  end: number | undefined;
}

class Election {
  readonly intervals: Interval[] = [];
  readonly members: {
    id: string;
    elector: LeaderElector;
    client: PartitionableClient;
    controller: AbortController;
    done: Promise<void>;
    transport: Transport;
  }[] = [];
  #waiters: (() => void)[] = [];

  constructor(
    readonly server: TestApiServer,
    readonly lease: string,
  ) {}

  add(id: string, extra: { releaseOnCancel?: boolean; random?: () => number } = {}): void {
    const transport = new Transport(this.server.kubeConfig(), { logger: noopLogger });
    const client = new PartitionableClient(leases(transport, { namespace: 'default' }));
    const lock = new LeaseLock(client, { namespace: 'default', name: this.lease, identity: id });
    const elector = new LeaderElector({
      lock,
      ...timing,
      ...extra,
      logger: noopLogger,
      callbacks: {
        onStartedLeading: (signal) => {
          const interval: Interval = { who: id, start: performance.now(), end: undefined };
          this.intervals.push(interval);
          signal.addEventListener('abort', () => {
            interval.end = performance.now();
            this.#notify();
          });
          this.#notify();
        },
        onStoppedLeading: () => {},
      },
    });
    const controller = new AbortController();
    this.members.push({
      id,
      elector,
      client,
      controller,
      transport,
      done: elector.run(controller.signal),
    });
  }

  member(id: string): Election['members'][number] {
    return this.members.find((m) => m.id === id)!;
  }

  current(): Interval | undefined {
    return this.intervals.find((i) => i.end === undefined);
  }

  /** Resolves when `predicate` holds, re-checked at every leadership change. */
  async until(predicate: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        (async () => {
          while (!predicate()) await new Promise<void>((r) => this.#waiters.push(r));
        })(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
        }),
      ]);
    } finally {
      clearTimeout(timer);
      this.#notify();
    }
  }

  async stop(id: string): Promise<void> {
    const m = this.member(id);
    m.controller.abort();
    await m.done;
  }

  #stopped = false;

  async stopAll(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    for (const m of this.members) m.controller.abort();
    await Promise.all(this.members.map((m) => m.done));
    for (const m of this.members) m.transport.close();
  }

  assertNoOverlap(): void {
    const sorted = [...this.intervals].sort((a, b) => a.start - b.start);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      assert.ok(
        prev.end !== undefined && prev.end <= cur.start,
        `${prev.who} and ${cur.who} led at the same time`,
      );
    }
  }

  #notify(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }
}

function leaseIn(server: TestApiServer, name: string): Lease | undefined {
  const found: unknown = server.get('leases.coordination.k8s.io', name, 'default');
  return found as Lease | undefined;
}

const pause = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('leader election against the in-memory API server', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('four candidates elect exactly one leader, who keeps leading', async () => {
    const e = new Election(server, 'one-leader');
    try {
      for (const id of ['a', 'b', 'c', 'd']) e.add(id);
      await e.until(() => e.current() !== undefined, 'a leader');
      await pause(1_500); // several lease durations
      assert.equal(e.intervals.length, 1);
      assert.equal(e.members.filter((m) => m.elector.isLeader()).length, 1);
      const lease = leaseIn(server, 'one-leader');
      assert.equal(lease?.spec?.holderIdentity, e.current()!.who);
      e.assertNoOverlap();
    } finally {
      await e.stopAll();
    }
  });

  test('a leader that stops without releasing is replaced within leaseDuration plus a retry', async () => {
    const e = new Election(server, 'killed');
    try {
      for (const id of ['a', 'b', 'c', 'd']) e.add(id);
      await e.until(() => e.current() !== undefined, 'a leader');
      await pause(300);
      const first = e.current()!;
      const killedAt = performance.now();
      await e.stop(first.who);
      await e.until(() => e.intervals.length === 2, 'a new leader');
      const delay = e.intervals[1]!.start - killedAt;
      assert.ok(
        delay <= timing.leaseDurationMs + 2.2 * timing.retryPeriodMs + SLACK,
        `replaced after ${delay} ms`,
      );
      assert.ok(
        delay >= timing.leaseDurationMs - 2.2 * timing.retryPeriodMs - SLACK,
        `replaced too early, after ${delay} ms`,
      );
      e.assertNoOverlap();
    } finally {
      await e.stopAll();
    }
  });

  test('release on cancel hands over within about one retry period', async () => {
    const e = new Election(server, 'released');
    try {
      for (const id of ['a', 'b', 'c', 'd']) e.add(id, { releaseOnCancel: true });
      await e.until(() => e.current() !== undefined, 'a leader');
      await pause(300);
      const first = e.current()!;
      const cancelledAt = performance.now();
      await e.stop(first.who);
      const lease = leaseIn(server, 'released');
      assert.ok(lease?.spec?.holderIdentity !== first.who);
      await e.until(() => e.intervals.length === 2, 'a new leader');
      const delay = e.intervals[1]!.start - cancelledAt;
      assert.ok(delay <= 2.2 * timing.retryPeriodMs + SLACK, `handed over after ${delay} ms`);
      e.assertNoOverlap();
    } finally {
      await e.stopAll();
    }
  });

  test('a partitioned leader steps down within renewDeadline, before another candidate acquires', async () => {
    const e = new Election(server, 'partitioned');
    try {
      for (const id of ['a', 'b', 'c', 'd']) e.add(id);
      await e.until(() => e.current() !== undefined, 'a leader');
      await pause(300);
      const first = e.current()!;
      const m = e.member(first.who);
      const partitionedAt = performance.now();
      m.client.partitioned = true;
      await e.until(() => first.end !== undefined, 'the partitioned leader to step down');
      assert.ok(
        first.end! - partitionedAt <= timing.renewDeadlineMs + SLACK,
        `stepped down after ${first.end! - partitionedAt} ms`,
      );
      await m.done; // its run() ends on loss
      await e.until(() => e.intervals.length === 2, 'a new leader');
      assert.ok(e.intervals[1]!.start > first.end!);
      m.client.partitioned = false;
      e.assertNoOverlap();
    } finally {
      await e.stopAll();
    }
  });

  test('when the server fails every Lease request the leader steps down and nobody leads until it recovers', async () => {
    const e = new Election(server, 'outage');
    try {
      for (const id of ['a', 'b', 'c', 'd']) e.add(id);
      await e.until(() => e.current() !== undefined, 'a leader');
      const first = e.current()!;
      const outageAt = performance.now();
      server.faults.failNext(1_000_000, { resource: 'leases', code: 500 });
      // (reset below, and in `finally` should an assertion fail first)
      await e.until(() => first.end !== undefined, 'the leader to step down');
      assert.ok(first.end! - outageAt <= timing.renewDeadlineMs + SLACK);
      await pause(1_200);
      assert.equal(e.intervals.length, 1, 'nobody acquires while the server fails');
      server.faults.reset();
      const others = e.members.filter((m) => m.id !== first.who);
      await e.until(() => e.intervals.length === 2, 'a leader after recovery');
      assert.ok(others.some((m) => m.id === e.intervals[1]!.who));
      e.assertNoOverlap();
    } finally {
      server.faults.reset();
      await e.stopAll();
    }
  });

  test('candidates racing to update the same resourceVersion get 409s and never yield two leaders', async () => {
    const name = 'contended';
    server.create('leases.coordination.k8s.io', {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace: 'default' },
      spec: { holderIdentity: 'ghost', leaseDurationSeconds: 1, leaseTransitions: 3 },
    });
    server.clearRequests();
    // Slow updates widen the window in which several candidates send the same resourceVersion.
    const undoLatency = server.faults.addLatency(150, { resource: 'leases', verb: 'update' });
    const e = new Election(server, name);
    try {
      // No jitter: all five retry in lockstep and try to take the expired lease together.
      for (const id of ['a', 'b', 'c', 'd', 'e']) e.add(id, { random: () => 0 });
      await e.until(() => e.current() !== undefined, 'a leader');
      undoLatency();
      await pause(500);
      const conflicts = server.requests.filter(
        (r) => r.resource === 'leases' && r.verb === 'update' && r.code === 409,
      );
      assert.ok(conflicts.length >= 1, 'the race produced at least one 409');
      assert.equal(e.intervals.length, 1);
      const lease = leaseIn(server, name);
      assert.equal(lease?.spec?.leaseTransitions, 4);
      e.assertNoOverlap();
    } finally {
      undoLatency();
      await e.stopAll();
    }
  });

  test('LeaseLock.fromKubeConfig talks to the server through its own transport, closed by close()', async () => {
    const lock = LeaseLock.fromKubeConfig(server.kubeConfig(), {
      namespace: 'default',
      name: 'from-kubeconfig',
      identity: 'solo',
      labels: { app: 'demo' },
      transport: { logger: noopLogger },
    });
    let started!: () => void;
    const leading = new Promise<void>((r) => (started = r));
    const controller = new AbortController();
    const elector = new LeaderElector({
      lock,
      ...timing,
      releaseOnCancel: true,
      logger: noopLogger,
      callbacks: { onStartedLeading: () => started(), onStoppedLeading: () => {} },
    });
    const done = elector.run(controller.signal);
    try {
      await leading;
      const held = leaseIn(server, 'from-kubeconfig');
      assert.equal(held?.spec?.holderIdentity, 'solo');
      assert.equal(held?.spec?.leaseDurationSeconds, 2);
      assert.deepEqual(held?.metadata?.labels, { app: 'demo' });
      assert.match(held?.spec?.renewTime ?? '', /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
      controller.abort();
      await done;
      assert.equal(leaseIn(server, 'from-kubeconfig')?.spec?.holderIdentity, '');
    } finally {
      controller.abort();
      await done;
      lock.close();
    }
  });
});
