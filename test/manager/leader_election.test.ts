// The manager's leader election against the in-memory API server: hand-over between two
// replicas on release, losing the lease fails start() (controller-runtime exits), rejoin,
// and the graceful shutdown bound.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Controller } from '../../src/controller/index.js';
import { LeaderElectionConfigError } from '../../src/leaderelection/index.js';
import {
  InvalidManagerOptionsError,
  LeaderElectionLostError,
  Manager,
  RunnableFailedError,
} from '../../src/manager/index.js';
import type { ManagerOptions } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';
import { httpGet, recordingLogger } from './support.js';

const LEASES = { group: 'coordination.k8s.io', resource: 'leases' };

type LeaseObj = UnstructuredObject & {
  spec?: { holderIdentity?: string; leaseDurationSeconds?: number; renewTime?: string };
};

/** A runnable that records when it runs and waits for its signal. */
function probe(
  log: string[],
  name: string,
  onStop?: () => void,
): { name: string; start(signal: AbortSignal): Promise<void> } {
  return {
    name,
    start: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`${name} started`);
        signal.addEventListener(
          'abort',
          () => {
            onStop?.();
            log.push(`${name} stopped`);
            resolve();
          },
          { once: true },
        );
      }),
  };
}

describe('Manager leader election', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  function options(
    id: string,
    identity: string,
    extra: Partial<ManagerOptions> = {},
  ): ManagerOptions {
    return {
      ...plain(),
      leaderElection: {
        id,
        namespace: 'default',
        identity,
        retryPeriodMs: 100,
        renewDeadlineMs: 1000,
      },
      ...extra,
    };
  }

  function plain(extra: Partial<ManagerOptions> = {}): ManagerOptions {
    return {
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
      ...extra,
    };
  }

  const holder = (id: string): string | undefined =>
    server.get<LeaseObj>(LEASES, id, 'default')?.spec?.holderIdentity;

  test('only the leader runs leader-only runnables; on shutdown it stops them, then releases the lease, and the other replica takes over at once', async () => {
    const log: string[] = [];
    const holderWhenAStopped: (string | undefined)[] = [];
    const a = new Manager(
      options('handover', 'replica-a', { healthProbeBindAddress: '127.0.0.1:0' }),
    );
    a.add(probe(log, 'a-controller', () => holderWhenAStopped.push(holder('handover'))));
    a.add({ ...probe(log, 'a-always'), needLeaderElection: false });
    const b = new Manager(options('handover', 'replica-b'));
    b.add(probe(log, 'b-controller'));
    b.add(probe(log, 'b-always'), { needLeaderElection: false });

    const stopA = new AbortController();
    const runA = a.start(stopA.signal);
    await a.elected();
    assert.equal(holder('handover'), 'replica-a');
    await a.serving();
    const health = await httpGet(a.healthProbeAddress, '/healthz?verbose');
    assert.equal(health.status, 200);
    assert.match(
      health.body,
      /^\[\+\]leaderElection ok$/m,
      "client-go's leader election health check is registered",
    );
    const stopB = new AbortController();
    const runB = b.start(stopB.signal);
    await eventually('b observed a as leader', () => b.elector?.getLeader() === 'replica-a');
    await eventually('b-always started', () => log.includes('b-always started'));
    assert.ok(log.includes('a-controller started'));
    assert.ok(
      !log.includes('b-controller started'),
      'the non-leader does not run leader-only runnables',
    );
    assert.ok(
      log.includes('a-always started') && log.includes('b-always started'),
      'runnables without leader election run everywhere',
    );

    const stoppedAt = Date.now();
    stopA.abort();
    await runA;
    assert.deepEqual(
      holderWhenAStopped,
      ['replica-a'],
      'the lease is still held while the controller stops',
    );
    assert.ok(log.includes('a-controller stopped') && log.includes('a-always stopped'));
    assert.notEqual(holder('handover'), 'replica-a', 'released on shutdown');
    await b.elected();
    const takeover = Date.now() - stoppedAt;
    assert.ok(
      takeover < 5_000,
      `b took over in ${takeover} ms, well under the 15 s lease duration`,
    );
    assert.equal(holder('handover'), 'replica-b');
    assert.ok(log.includes('b-controller started'));
    stopB.abort();
    await runB;
  });

  test('losing the lease stops every runnable and rejects start() with LeaderElectionLostError (the process exits non-zero)', async () => {
    const log: string[] = [];
    const { logger, lines } = recordingLogger();
    const m = new Manager({ ...options('lose', 'replica-a'), logger });
    m.add(probe(log, 'controller'));
    m.add(probe(log, 'always'), { needLeaderElection: false });
    const running = m.start(new AbortController().signal);
    await m.elected();
    const lease = server.get<LeaseObj>(LEASES, 'lose', 'default')!;
    server.update(LEASES, {
      ...lease,
      spec: { ...lease.spec, holderIdentity: 'intruder' },
    });
    await assert.rejects(running, (e: unknown) => {
      assert.ok(e instanceof LeaderElectionLostError, String(e));
      assert.equal(e.lease, 'default/lose');
      assert.equal(e.identity, 'replica-a');
      assert.match(e.message, /another holder/);
      return true;
    });
    assert.ok(log.includes('controller stopped') && log.includes('always stopped'), log.join());
    assert.equal(holder('lose'), 'intruder', 'a lost lease is not released over the new holder');
    assert.ok(lines.some((l) => l.startsWith('error ') && l.includes('leader election lost')));
  });

  test("onLost 'rejoin' stops the leader-only runnables, rejoins the election and starts them again when it leads again", async () => {
    const log: string[] = [];
    const base = options('rejoin', 'replica-a');
    const m = new Manager({
      ...base,
      leaderElection: { ...base.leaderElection!, onLost: 'rejoin' },
    });
    assert.throws(
      () => m.add(new Controller({ name: 'once', reconcile: () => {} })),
      (e: unknown) => e instanceof InvalidManagerOptionsError && /runs once/.test(e.message),
    );
    m.add(probe(log, 'controller'));
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await m.elected();
    const lease = server.get<LeaseObj>(LEASES, 'rejoin', 'default')!;
    server.update(LEASES, {
      ...lease,
      spec: { ...lease.spec, holderIdentity: 'intruder', leaseDurationSeconds: 1 },
    });
    await eventually('stopped after losing', () => log.includes('controller stopped'));
    await eventually(
      'led again once the intruder lease expired',
      () => log.filter((l) => l === 'controller started').length === 2,
    );
    assert.equal(holder('rejoin'), 'replica-a');
    stop.abort();
    await running;
    assert.deepEqual(log, [
      'controller started',
      'controller stopped',
      'controller started',
      'controller stopped',
    ]);
  });

  test('a failing runnable stops the manager: start() rejects with RunnableFailedError naming it', async () => {
    const log: string[] = [];
    const m = new Manager(plain());
    m.add(probe(log, 'other'));
    m.add({
      name: 'broken',
      start: async () => {
        await Promise.resolve();
        throw new Error('cannot connect to the database');
      },
    });
    await assert.rejects(
      m.start(new AbortController().signal),
      (e: unknown) =>
        e instanceof RunnableFailedError &&
        e.runnable === 'broken' &&
        /cannot connect to the database/.test(e.message),
    );
    assert.deepEqual(log, ['other started', 'other stopped']);
  });

  test('a runnable that ignores its signal holds shutdown only for gracefulShutdownTimeoutMs; it is logged, and caches and servers still stop', async () => {
    const { logger, lines } = recordingLogger();
    const m = new Manager(
      plain({ gracefulShutdownTimeoutMs: 50, healthProbeBindAddress: '127.0.0.1:0', logger }),
    );
    let release!: () => void;
    const stuck = new Promise<void>((r) => (release = r));
    m.add({ name: 'stubborn', start: () => stuck });
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await m.elected();
    stop.abort();
    await running;
    const warn = lines.find((l) => l.startsWith('warn ') && l.includes('timed out after 50 ms'));
    assert.ok(warn, lines.join('\n'));
    assert.match(warn, /still running: stubborn/);
    const order = [
      'timed out after 50 ms',
      'manager: stopping caches',
      'manager: caches stopped',
      'manager: servers stopped',
      'manager: stopped',
    ].map((t) => lines.findIndex((l) => l.includes(t)));
    assert.ok(
      order.every((i, k) => i >= 0 && (k === 0 || i > order[k - 1]!)),
      `shutdown in order: ${lines.join(' | ')}`,
    );
    release();
  });

  test('leader election options are checked at construction: an id, a namespace outside a cluster, client-go timing rules', () => {
    const saved = process.env['POD_NAMESPACE'];
    delete process.env['POD_NAMESPACE'];
    try {
      assert.throws(
        () => new Manager({ ...plain(), leaderElection: { id: 'x' } }),
        (e: unknown) =>
          e instanceof InvalidManagerOptionsError && /not running in a cluster/.test(e.message),
      );
      process.env['POD_NAMESPACE'] = 'from-env';
      const m = new Manager({ ...plain(), leaderElection: { id: 'x' } });
      assert.equal(m.elector?.name, 'from-env/x', '$POD_NAMESPACE is the default namespace');
      assert.match(m.identity ?? '', /^.+_[0-9a-f-]{36}$/, 'hostname_uuid identity');
    } finally {
      if (saved === undefined) delete process.env['POD_NAMESPACE'];
      else process.env['POD_NAMESPACE'] = saved;
    }
    assert.throws(
      () => new Manager({ ...plain(), leaderElection: { id: '', namespace: 'default' } }),
      InvalidManagerOptionsError,
    );
    assert.throws(
      () =>
        new Manager({
          ...plain(),
          leaderElection: {
            id: 'x',
            namespace: 'default',
            leaseDurationMs: 5000,
            renewDeadlineMs: 5000,
          },
        }),
      LeaderElectionConfigError,
    );
  });

  test("a controller's reconcile that ignores its signal is bounded by the manager's graceful timeout, and its key is logged", async () => {
    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'stuck', namespace: 'default' },
    });
    const { logger, lines } = recordingLogger();
    const m = new Manager(plain({ gracefulShutdownTimeoutMs: 100, logger }));
    let entered = false;
    let release!: () => void;
    const never = new Promise<void>((r) => (release = r));
    m.add(
      new Controller({
        name: 'stuck',
        logger,
        reconcile: async (key) => {
          if (key !== 'default/stuck') return;
          entered = true;
          await never;
        },
      }).for(m.cache.configMaps()),
    );
    const stop = new AbortController();
    const running = m.start(stop.signal);
    await eventually('the reconcile is running', () => entered);
    const t0 = Date.now();
    stop.abort();
    await running;
    assert.ok(Date.now() - t0 < 5_000);
    // The controller and the manager share one deadline, so whichever timer fires first
    // names the stuck key: the controller (`controller stuck: … default/stuck (N ms)`) or
    // the manager (`… still running: controller/stuck (reconciling default/stuck)`).
    assert.ok(
      lines.some(
        (l) =>
          l.startsWith('warn ') &&
          ((l.includes('controller stuck') && l.includes('default/stuck (')) ||
            l.includes('controller/stuck (reconciling default/stuck)')),
      ),
      lines.join('\n'),
    );
    release();
  });
});
