import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isConflict, isNotFound } from '../../src/client/errors.js';
import { LeaseLock, LeaseNotInitializedError } from '../../src/leaderelection/index.js';
import type { LeaderElectionRecord } from '../../src/leaderelection/index.js';
import { setup } from './helpers.js';

const record = (holder: string, transitions = 0): LeaderElectionRecord => ({
  holderIdentity: holder,
  leaseDurationSeconds: 15,
  acquireTime: '2026-01-01T00:00:00.000000Z',
  renewTime: '2026-01-01T00:00:01.000000Z',
  leaderTransitions: transitions,
});

describe('LeaseLock', () => {
  test('get of a missing Lease fails with NotFound', async () => {
    const { store } = setup();
    const lock = new LeaseLock(store.client('a'), {
      namespace: 'ns',
      name: 'lease',
      identity: 'a',
    });
    await assert.rejects(lock.get(), (err: unknown) => isNotFound(err));
  });

  test('create writes a coordination.k8s.io/v1 Lease whose spec carries the record and labels', async () => {
    const { store } = setup();
    const lock = new LeaseLock(store.client('a'), {
      namespace: 'ns',
      name: 'lease',
      identity: 'a',
      labels: { app: 'x' },
    });
    await lock.create(record('a'));
    assert.equal(store.lease?.apiVersion, 'coordination.k8s.io/v1');
    assert.equal(store.lease?.kind, 'Lease');
    assert.deepEqual(store.lease?.metadata?.labels, { app: 'x' });
    assert.deepEqual(store.lease?.spec, {
      holderIdentity: 'a',
      leaseDurationSeconds: 15,
      leaseTransitions: 0,
      acquireTime: '2026-01-01T00:00:00.000000Z',
      renewTime: '2026-01-01T00:00:01.000000Z',
    });
    const got = await lock.get();
    assert.deepEqual(got.record, record('a'));
  });

  test('update before any get or create fails with LeaseNotInitializedError', async () => {
    const { store } = setup();
    const lock = new LeaseLock(store.client('a'), {
      namespace: 'ns',
      name: 'lease',
      identity: 'a',
    });
    await assert.rejects(lock.update(record('a')), LeaseNotInitializedError);
  });

  test('update sends the resourceVersion last seen, so a concurrent write makes it fail with 409', async () => {
    const { store } = setup();
    const a = new LeaseLock(store.client('a'), { namespace: 'ns', name: 'lease', identity: 'a' });
    const b = new LeaseLock(store.client('b'), { namespace: 'ns', name: 'lease', identity: 'b' });
    await a.create(record('a'));
    await b.get();
    await a.update(record('a', 0)); // a's write bumps the resourceVersion
    await assert.rejects(b.update(record('b', 1)), (err: unknown) => isConflict(err));
    assert.equal(store.lease?.spec?.holderIdentity, 'a');
    await b.get();
    await b.update(record('b', 1));
    assert.equal(store.lease?.spec?.holderIdentity, 'b');
  });

  test('the raw record changes when the spec changes and not when only metadata changes', async () => {
    const { store } = setup();
    const lock = new LeaseLock(store.client('a'), {
      namespace: 'ns',
      name: 'lease',
      identity: 'a',
    });
    await lock.create(record('a'));
    const first = await lock.get();
    store.touch();
    const second = await lock.get();
    assert.equal(second.raw, first.raw);
    await lock.update(record('a', 3));
    const third = await lock.get();
    assert.notEqual(third.raw, first.raw);
  });
});
