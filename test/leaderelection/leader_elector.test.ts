import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ElectorAlreadyRunningError,
  HealthzAdaptor,
  LeadershipLostError,
  LeaseRenewalOverdueError,
  formatMicroTime,
} from '../../src/leaderelection/index.js';
import { candidate, setup } from './helpers.js';

const T0 = Date.UTC(2026, 0, 1);

describe('LeaderElector', () => {
  test('the first acquire attempt is immediate and creates the Lease with transitions 0', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(0);
    assert.deepEqual(store.lease?.spec, {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: formatMicroTime(T0),
      renewTime: formatMicroTime(T0),
    });
    assert.equal(a.elector.isLeader(), true);
    assert.equal(a.elector.getLeader(), 'a');
    assert.deepEqual(a.events, ['leader=a', `started@${T0}`]);
    await a.stop();
  });

  test('the leader renews every retryPeriod through the fast path (update only, no get)', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(0);
    const updates = store.ops('a', 'update');
    await clock.advance(10_000);
    assert.equal(store.ops('a', 'update') - updates, 5);
    assert.equal(store.ops('a', 'get'), 1); // only the initial get that found nothing
    assert.equal(store.lease?.spec?.renewTime, formatMicroTime(T0 + 10_000));
    assert.equal(store.lease?.spec?.acquireTime, formatMicroTime(T0));
    assert.equal(store.lease?.spec?.leaseTransitions, 0);
    await a.stop();
  });

  test('a candidate retries every retryPeriod × [1, 2.2) and never takes a lease that keeps being renewed', async () => {
    for (const [r, wait] of [
      [0, 2000],
      [0.5, 3200],
    ] as const) {
      const { clock, store } = setup();
      const a = candidate(clock, store, 'a');
      const b = candidate(clock, store, 'b', { random: () => r });
      a.start();
      await clock.advance(0);
      b.start();
      await clock.advance(0);
      const times: number[] = [];
      for (let i = 0; i < 30; i++) {
        await clock.advance(1000);
        const gets = store.log
          .filter((l) => l.client === 'b' && l.op === 'get')
          .map((l) => l.at - T0);
        times.splice(0, times.length, ...gets);
      }
      const gaps = times.slice(1).map((t, i) => t - times[i]!);
      assert.ok(gaps.length >= 5);
      for (const gap of gaps) assert.equal(gap, wait);
      assert.equal(b.elector.isLeader(), false);
      assert.equal(b.elector.getLeader(), 'a');
      assert.deepEqual(b.events, ['leader=a']);
      await a.stop();
      await b.stop();
    }
  });

  test('expiry is judged from the local time the record last changed, never from its renewTime', async () => {
    const { clock, store } = setup();
    // A dead holder whose renewTime is from another century: still valid for 15 s after we first see it.
    store.setSpec({
      holderIdentity: 'dead',
      leaseDurationSeconds: 15,
      acquireTime: '2000-01-01T00:00:00.000000Z',
      renewTime: '2000-01-01T00:00:00.000000Z',
      leaseTransitions: 4,
    });
    const b = candidate(clock, store, 'b');
    b.start();
    await clock.advance(14_000);
    assert.equal(store.lease?.spec?.holderIdentity, 'dead');
    await clock.advance(2_000);
    assert.equal(store.lease?.spec?.holderIdentity, 'b');
    assert.equal(store.lease?.spec?.leaseTransitions, 5);
    assert.equal(b.elector.leaseTransitions, 5);
    assert.deepEqual(b.events, ['leader=dead', 'leader=b', `started@${T0 + 16_000}`]);
    await b.stop();
  });

  test('a renewTime in the future does not extend the lease beyond leaseDuration after the last change', async () => {
    const { clock, store } = setup();
    store.setSpec({
      holderIdentity: 'skewed',
      leaseDurationSeconds: 15,
      acquireTime: '2099-01-01T00:00:00.000000Z',
      renewTime: '2099-01-01T00:00:00.000000Z',
      leaseTransitions: 0,
    });
    const b = candidate(clock, store, 'b');
    b.start();
    await clock.advance(16_000);
    assert.equal(store.lease?.spec?.holderIdentity, 'b');
    await b.stop();
  });

  test('metadata-only writes do not reset the observation time (only record changes do)', async () => {
    const { clock, store } = setup();
    store.setSpec({ holderIdentity: 'dead', leaseDurationSeconds: 15, leaseTransitions: 0 });
    const b = candidate(clock, store, 'b');
    b.start();
    for (let i = 0; i < 8; i++) {
      await clock.advance(2000);
      store.touch();
    }
    assert.equal(store.lease?.spec?.holderIdentity, 'b');
    await b.stop();
  });

  test('a change to the record restarts the wait', async () => {
    const { clock, store } = setup();
    store.setSpec({
      holderIdentity: 'x',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      renewTime: 'r0',
    });
    const b = candidate(clock, store, 'b');
    b.start();
    await clock.advance(10_000);
    store.setSpec({
      holderIdentity: 'x',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      renewTime: 'r1',
    });
    await clock.advance(10_000); // 20 s after b first saw the lease, 10 s after the change was seen
    assert.equal(store.lease?.spec?.holderIdentity, 'x');
    await clock.advance(8_000);
    assert.equal(store.lease?.spec?.holderIdentity, 'b');
    await b.stop();
  });

  test('a renew error is not a loss: the leader keeps leading while it renews within renewDeadline', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(0);
    a.client.failNext = 4; // fails the renews at +2, +4, +6, +8 s
    await clock.advance(9_999);
    assert.equal(a.elector.isLeader(), true);
    await clock.advance(1); // renew at +10 s succeeds
    await clock.advance(5_000);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(a.leadSignals[0]?.aborted, false);
    await a.stop();
  });

  test('a partitioned leader steps down exactly renewDeadline after the start of its last successful renewal', async () => {
    for (const partition of ['fail', 'hang'] as const) {
      const { clock, store } = setup();
      const a = candidate(clock, store, 'a');
      a.start();
      await clock.advance(4_000); // last successful renew started at T0 + 4000
      a.client.partition = partition;
      await clock.advance(9_999);
      assert.equal(a.elector.isLeader(), true, partition);
      await clock.advance(1);
      assert.equal(a.elector.isLeader(), false, partition);
      const reason: unknown = a.leadSignals[0]?.reason;
      assert.ok(reason instanceof LeadershipLostError);
      assert.equal(reason.reason, 'renew-deadline-exceeded');
      await a.done; // run() ends by itself, nothing left running
      assert.deepEqual(a.events.slice(-2), [`lost@${T0 + 14_000}`, `stopped@${T0 + 14_000}`]);
      assert.equal(clock.pendingTimers(), 0, partition);
    }
  });

  test('a leader that is partitioned stops before another candidate can take over', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    const b = candidate(clock, store, 'b');
    a.start();
    await clock.advance(0);
    b.start();
    await clock.advance(1_000);
    a.client.partition = 'fail';
    await clock.advance(30_000);
    const aLost = Number(a.events.find((e) => e.startsWith('lost@'))!.slice(5));
    const bStarted = Number(b.events.find((e) => e.startsWith('started@'))!.slice(8));
    assert.ok(aLost < bStarted, `a lost at ${aLost - T0}, b started at ${bStarted - T0}`);
    assert.equal(store.lease?.spec?.leaseTransitions, 1);
    await b.stop();
    await a.done;
  });

  test('onStoppedLeading is called even when this candidate never led', async () => {
    const { clock, store } = setup();
    store.setSpec({ holderIdentity: 'x', leaseDurationSeconds: 15, leaseTransitions: 0 });
    const b = candidate(clock, store, 'b');
    b.start();
    await clock.advance(3_000);
    await b.stop();
    assert.deepEqual(b.events, ['leader=x', `stopped@${T0 + 3_000}`]);
    assert.equal(clock.pendingTimers(), 0);
  });

  test('cancelling aborts the leading signal at once; without releaseOnCancel the Lease still names the leader', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(1_000);
    a.controller.abort();
    assert.equal(a.leadSignals[0]?.aborted, true);
    assert.equal(a.elector.isLeader(), false);
    await a.done;
    assert.equal(store.lease?.spec?.holderIdentity, 'a');
  });

  test('releaseOnCancel writes an empty holder, 1 s duration, times now and keeps transitions; another takes over within a retry', async () => {
    const { clock, store } = setup();
    store.setSpec({ holderIdentity: 'old', leaseDurationSeconds: 15, leaseTransitions: 6 });
    const a = candidate(clock, store, 'a', { releaseOnCancel: true });
    a.start();
    await clock.advance(16_000); // a takes over: transitions 7
    assert.equal(store.lease?.spec?.holderIdentity, 'a');
    const b = candidate(clock, store, 'b');
    b.start();
    await clock.advance(1_000);
    await a.stop();
    const now = formatMicroTime(clock.now());
    assert.deepEqual(store.lease?.spec, {
      holderIdentity: '',
      leaseDurationSeconds: 1,
      leaseTransitions: 7,
      acquireTime: now,
      renewTime: now,
    });
    const released = clock.now();
    await clock.advance(2_000);
    assert.equal(store.lease?.spec?.holderIdentity, 'b');
    const bStarted = Number(b.events.find((e) => e.startsWith('started@'))!.slice(8));
    assert.ok(bStarted - released <= 2_000);
    assert.equal(store.lease?.spec?.leaseTransitions, 8);
    await b.stop();
  });

  test('the elector waits for the onStartedLeading promise before it releases and calls onStoppedLeading', async () => {
    const { clock, store } = setup();
    const order: string[] = [];
    const a = candidate(clock, store, 'a', {
      releaseOnCancel: true,
      callbacks: {
        onStartedLeading: async (signal) => {
          await new Promise<void>((r) => signal.addEventListener('abort', () => r()));
          await clock.sleep(500);
          order.push(`work done, holder=${store.lease?.spec?.holderIdentity}`);
        },
        onStoppedLeading: () => {
          order.push(`stopped, holder=${store.lease?.spec?.holderIdentity}`);
        },
      },
    });
    a.start();
    await clock.advance(1_000);
    a.controller.abort();
    await clock.advance(500);
    await a.done;
    assert.deepEqual(order, ['work done, holder=a', 'stopped, holder=']);
  });

  test('a leader that sees another holder after a 409 steps down at once', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(1_000);
    store.setSpec({ holderIdentity: 'intruder', leaseDurationSeconds: 15, leaseTransitions: 1 });
    await clock.advance(1_000); // next renew: 409 on the fast path, get shows the intruder
    assert.equal(a.elector.isLeader(), false);
    const reason: unknown = a.leadSignals[0]?.reason;
    assert.ok(reason instanceof LeadershipLostError && reason.reason === 'another-holder');
    await a.done;
    assert.ok(a.events.includes('leader=intruder'));
  });

  test('a 409 on the fast path falls back to get and update, keeping acquireTime and transitions', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(1_000);
    store.touch(); // a concurrent metadata write
    const gets = store.ops('a', 'get');
    await clock.advance(1_000);
    assert.equal(store.ops('a', 'get'), gets + 1);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(store.lease?.spec?.acquireTime, formatMicroTime(T0));
    assert.equal(store.lease?.spec?.renewTime, formatMicroTime(T0 + 2_000));
    assert.equal(store.lease?.spec?.leaseTransitions, 0);
    await a.stop();
  });

  test('onNewLeader reports every observed change, including the release to an empty holder', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a', { releaseOnCancel: true });
    const b = candidate(clock, store, 'b');
    a.start();
    await clock.advance(0);
    b.start();
    await clock.advance(1_000);
    b.client.conflictRate = 1; // b's takeover attempts meet 409s, so it observes the empty holder
    b.client.random = () => 0;
    await a.stop();
    await clock.advance(2_500);
    b.client.conflictRate = 0;
    await clock.advance(2_000);
    await b.stop();
    assert.deepEqual(
      b.events.filter((e) => e.startsWith('leader=')),
      ['leader=a', 'leader=', 'leader=b'],
    );
  });

  test('check() is healthy while renewing and fails after leaseDuration + tolerance without renewal', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    const b = candidate(clock, store, 'b');
    const healthz = new HealthzAdaptor(5_000);
    assert.equal(healthz.name, 'leaderElection');
    assert.equal(healthz.check(), undefined);
    healthz.setLeaderElection(a.elector);
    a.start();
    await clock.advance(0);
    b.start();
    await clock.advance(30_000);
    assert.equal(a.elector.check(0), undefined);
    assert.equal(healthz.check(), undefined);
    assert.equal(b.elector.check(0), undefined); // not the leader
    a.client.partition = 'fail';
    await clock.advance(20_000); // last renewal at +30 s; now +50 s
    assert.equal(a.elector.check(5_000), undefined);
    await clock.advance(1);
    assert.ok(a.elector.check(5_000) instanceof LeaseRenewalOverdueError);
    assert.ok(healthz.check() instanceof LeaseRenewalOverdueError);
    await a.done;
    await b.stop();
  });

  test('a second run() while the first is active fails with ElectorAlreadyRunningError', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await assert.rejects(a.elector.run(), ElectorAlreadyRunningError);
    await a.stop();
  });

  test('run() can be called again after it ended and re-acquires a lease it still holds', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.start();
    await clock.advance(1_000);
    await a.stop();
    a.start();
    await clock.advance(0);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(store.lease?.spec?.leaseTransitions, 0);
    await a.stop();
  });

  test('a rejection from onStartedLeading gives up leadership, releases, and is rethrown by run()', async () => {
    const { clock, store } = setup();
    const boom = new Error('controller crashed');
    const stopped: string[] = [];
    const a = candidate(clock, store, 'a', {
      releaseOnCancel: true,
      callbacks: {
        onStartedLeading: async () => {
          await clock.sleep(3_000);
          throw boom;
        },
        onStoppedLeading: () => {
          stopped.push('stopped');
        },
      },
    });
    a.start();
    const settled = a.done!.then(
      () => 'resolved',
      (err: unknown) => err,
    );
    await clock.advance(3_000);
    assert.equal(await settled, boom);
    assert.deepEqual(stopped, ['stopped']);
    assert.equal(store.lease?.spec?.holderIdentity, '');
    assert.equal(clock.pendingTimers(), 0);
  });

  test('errors other than NotFound on get are retried, never treated as an empty lease', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    a.client.failNext = 2;
    a.start();
    await clock.advance(0);
    assert.equal(store.lease, undefined);
    await clock.advance(4_000);
    assert.equal(store.lease!.spec?.holderIdentity, 'a');
    await a.stop();
  });

  test('metrics report master status on acquire and loss, and count slow-path renewals', async () => {
    const { clock, store } = setup();
    const calls: string[] = [];
    const a = candidate(clock, store, 'a', {
      name: 'my-lease',
      metrics: {
        leaderOn: (name) => calls.push(`on:${name}`),
        leaderOff: (name) => calls.push(`off:${name}`),
        slowpathExercised: (name) => calls.push(`slow:${name}`),
      },
    });
    a.start();
    await clock.advance(1_000);
    assert.deepEqual(calls, ['on:my-lease']);
    store.touch(); // the next renewal meets a 409 and takes the slow path
    await clock.advance(1_000);
    assert.deepEqual(calls, ['on:my-lease', 'slow:my-lease']);
    await a.stop();
    assert.deepEqual(calls, ['on:my-lease', 'slow:my-lease', 'off:my-lease']);
  });

  test('release still succeeds when a renewal cut short by the cancel had already been applied', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a', { releaseOnCancel: true });
    a.start();
    await clock.advance(1_000);
    a.client.latency = () => 100; // each leg of a request takes 100 ms
    await clock.advance(1_150); // the renewal sent at +2000 s was applied at +2100, answer due at +2200
    assert.equal(store.lease?.spec?.renewTime, formatMicroTime(T0 + 2_000));
    a.controller.abort();
    await clock.advance(1_000);
    await a.done;
    assert.equal(store.lease?.spec?.holderIdentity, '');
    assert.equal(store.lease?.spec?.leaseDurationSeconds, 1);
  });
});
