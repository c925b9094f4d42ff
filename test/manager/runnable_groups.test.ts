// The Manager's runnable groups (controller-runtime's runnable_group.go): one group's
// contract (queue before start, ready checks, stopAndWait), and the Manager's start and
// stop order read from RUNNABLE_GROUP_ORDER — servers, webhooks, caches (synced), others,
// leader election; shutdown in reverse, then the lease, then the event recorder; a lost
// lease skips the grace period.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  InvalidManagerOptionsError,
  LeaderElectionLostError,
  Manager,
  ManagerStoppingError,
  RUNNABLE_GROUP_ORDER,
} from '../../src/manager/index.js';
import type { RunnableGroupName } from '../../src/manager/index.js';
import { RunnableGroup } from '../../src/manager/runnable_group.js';
import { configMapsResource } from '../../src/client/builtins.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import { recordingLogger } from './support.js';

/** A runnable that logs its start, its readiness and its stop, and waits for its signal. */
function member(
  log: string[],
  name: string,
  options: { ready?: Promise<void>; onStart?: () => void } = {},
): { name: string; start(signal: AbortSignal): Promise<void>; ready?(): Promise<void> } {
  return {
    name,
    start: (signal) =>
      new Promise<void>((resolve) => {
        log.push(`start ${name}`);
        options.onStart?.();
        signal.addEventListener(
          'abort',
          () => {
            log.push(`stop ${name}`);
            resolve();
          },
          { once: true },
        );
      }),
    ...(options.ready !== undefined
      ? {
          ready: async () => {
            await options.ready;
            log.push(`ready ${name}`);
          },
        }
      : {}),
  };
}

describe('RunnableGroup', () => {
  test('add before start queues; start launches the queue and resolves once every ready check passed; add after start launches at once', async () => {
    const log: string[] = [];
    const group = new RunnableGroup({ name: 'others', logger: noopLogger, onError: () => {} });
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    group.add(member(log, 'a', { ready: gate }));
    group.add(member(log, 'b'));
    assert.deepEqual(log, [], 'nothing runs before start');
    let started = false;
    const starting = group.start(new AbortController().signal).then(() => (started = true));
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(log, ['start a', 'start b']);
    assert.equal(started, false, 'start waits for the ready check of a');
    open();
    await starting;
    assert.deepEqual(log, ['start a', 'start b', 'ready a']);
    group.add(member(log, 'c'));
    assert.equal(log.at(-1), 'start c', 'added after start: launched at once');
    assert.equal(await group.stopAndWait(), true);
    assert.deepEqual(log.slice(-3).sort(), ['stop a', 'stop b', 'stop c']);
    assert.throws(() => group.add(member(log, 'd')), ManagerStoppingError);
  });

  test('a group stopped before it started never starts its runnables', async () => {
    const log: string[] = [];
    const group = new RunnableGroup({
      name: 'leaderElection',
      logger: noopLogger,
      onError: () => {},
    });
    group.add(member(log, 'controller'));
    assert.equal(await group.stopAndWait(), true);
    await group.start(new AbortController().signal);
    assert.deepEqual(log, []);
  });

  test('a failure, or a failed ready check, goes to onError once with the error as it is, and does not hold start', async () => {
    const errors: [string, unknown][] = [];
    const group = new RunnableGroup({
      name: 'httpServers',
      logger: noopLogger,
      onError: (name, err) => errors.push([name, err]),
    });
    const boom = new Error('cannot bind');
    group.add({
      name: 'server',
      start: async () => {
        await Promise.resolve();
        throw boom;
      },
      ready: () => new Promise<void>(() => {}),
    });
    group.add({ name: 'bad-check', start: () => {}, ready: () => Promise.reject(boom) });
    await group.start(new AbortController().signal);
    assert.deepEqual(errors.sort(), [
      ['bad-check', boom],
      ['server', boom],
    ]);
    await group.stopAndWait();
  });

  test('stopAndWait gives up at its deadline and names what still runs', async () => {
    const group = new RunnableGroup({ name: 'others', logger: noopLogger, onError: () => {} });
    let release!: () => void;
    group.add({ name: 'stubborn', start: () => new Promise<void>((r) => (release = r)) });
    await group.start(new AbortController().signal);
    const deadline = new AbortController();
    const stopping = group.stopAndWait(deadline.signal);
    assert.equal(group.signal.aborted, true, 'the group signal aborts at once');
    deadline.abort();
    assert.equal(await stopping, false);
    assert.deepEqual(group.running(), ['stubborn']);
    release();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(group.running(), []);
  });
});

type LeaseObj = UnstructuredObject & { spec?: { holderIdentity?: string } };

describe('Manager runnable groups', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('groups start in RUNNABLE_GROUP_ORDER, each once the previous is ready; runnables without leader election start after the caches synced; shutdown runs the order backwards, then releases the lease, then closes the recorder', async () => {
    assert.deepEqual(RUNNABLE_GROUP_ORDER, [
      'httpServers',
      'webhooks',
      'caches',
      'others',
      'leaderElection',
    ]);
    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'c1', namespace: 'default' },
    });
    const { logger, lines } = recordingLogger();
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      logger,
      leaderElection: {
        id: 'groups',
        namespace: 'default',
        identity: 'replica-a',
        retryPeriodMs: 100,
        renewDeadlineMs: 1000,
      },
    });
    const informer = manager.informer(configMapsResource);
    const log: string[] = [];
    let syncedWhenOthersStarted: boolean | undefined;
    let webhookReady!: () => void;
    const webhookGate = new Promise<void>((r) => (webhookReady = r));
    manager.add({ ...member(log, 'leader'), group: 'leaderElection' });
    manager.add({
      ...member(log, 'other', { onStart: () => (syncedWhenOthersStarted = informer.hasSynced()) }),
      needLeaderElection: false,
    });
    manager.add({ ...member(log, 'webhook', { ready: webhookGate }), group: 'webhooks' });
    manager.add(member(log, 'extra-server'), { group: 'httpServers' });
    const recorder = manager.eventRecorderFor('groups-test');
    const groupsBefore = manager.runnableGroups();
    assert.deepEqual(
      groupsBefore.map((g) => g.group),
      RUNNABLE_GROUP_ORDER,
    );
    assert.deepEqual(groupsBefore.find((g) => g.group === 'httpServers')?.runnables, [
      'health probe server',
      'extra-server',
    ]);
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(log, ['start extra-server', 'start webhook']);
    assert.ok(
      !lines.some((l) => l.includes('manager: starting caches')),
      'the caches wait for the webhooks to be ready',
    );
    webhookReady();
    await manager.elected();
    assert.deepEqual(log, [
      'start extra-server',
      'start webhook',
      'ready webhook',
      'start other',
      'start leader',
    ]);
    assert.equal(syncedWhenOthersStarted, true, 'others start once the caches synced');
    const cm = server.get<UnstructuredObject>({ resource: 'configmaps' }, 'c1', 'default')!;
    recorder.event(
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: cm.metadata! },
      'Normal',
      'Stopping',
      'flushed after the lease',
    );
    stop.abort();
    await running;
    assert.deepEqual(log.slice(5), [
      'stop leader',
      'stop other',
      'stop webhook',
      'stop extra-server',
    ]);
    const at = (text: string): number => lines.findIndex((l) => l.includes(text));
    const steps = [
      'manager: stopping leader-election runnables',
      'manager: stopping runnables without leader election',
      'manager: stopping caches',
      'manager: stopping webhooks',
      'manager: stopping servers',
      'manager: servers stopped',
      'manager: leader lease default/groups released',
      'manager: stopped',
    ].map(at);
    assert.ok(
      steps.every((i, k) => i >= 0 && (k === 0 || i > steps[k - 1]!)),
      `shutdown steps in order ${JSON.stringify(steps)}:\n${lines.join('\n')}`,
    );
    assert.equal(
      server.get<LeaseObj>(
        { group: 'coordination.k8s.io', resource: 'leases' },
        'groups',
        'default',
      )?.spec?.holderIdentity,
      '',
    );
    assert.ok(
      server
        .list<{ message?: string }>('events', 'default')
        .some((e) => e.message === 'flushed after the lease'),
      'the event recorder is flushed and closed last',
    );
  });

  test('a lost lease sets the grace period to zero: start() rejects without waiting for a runnable that ignores its signal', async () => {
    const { logger, lines } = recordingLogger();
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger,
      gracefulShutdownTimeoutMs: 60_000,
      leaderElection: {
        id: 'zero-grace',
        namespace: 'default',
        identity: 'replica-a',
        retryPeriodMs: 100,
        renewDeadlineMs: 1000,
      },
    });
    let release!: () => void;
    manager.add({ name: 'stubborn', start: () => new Promise<void>((r) => (release = r)) });
    const running = manager.start(new AbortController().signal);
    await manager.elected();
    const leases = { group: 'coordination.k8s.io', resource: 'leases' };
    const lease = server.get<LeaseObj>(leases, 'zero-grace', 'default')!;
    server.update(leases, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    const t0 = Date.now();
    await assert.rejects(running, LeaderElectionLostError);
    assert.ok(Date.now() - t0 < 10_000, 'did not wait out the 60 s grace period');
    assert.ok(
      lines.some((l) => l.includes('grace period 0') && l.includes('still running: stubborn')),
      lines.join('\n'),
    );
    release();
  });

  test('a group contradicting needLeaderElection, or an unknown group, is rejected by add()', () => {
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    const start = (): void => {};
    assert.throws(
      () => manager.add({ start, group: 'webhooks', needLeaderElection: true }),
      (e: unknown) =>
        e instanceof InvalidManagerOptionsError && /contradicts group webhooks/.test(e.message),
    );
    assert.throws(
      () => manager.add({ start }, { group: 'leaderElection', needLeaderElection: false }),
      InvalidManagerOptionsError,
    );
    assert.throws(
      () => manager.add({ start, group: 'nope' as RunnableGroupName }),
      (e: unknown) => e instanceof InvalidManagerOptionsError && /is not one of/.test(e.message),
    );
    manager.add({ start, name: 'hook', group: 'webhooks' });
    assert.deepEqual(manager.runnableGroups().find((g) => g.group === 'webhooks')?.runnables, [
      'hook',
    ]);
  });
});
