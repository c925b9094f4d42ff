import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { noopLogger } from '../../src/util/logger.js';
import { LeaderElectedRunner, LeaseLock, runWhileLeading } from '../../src/leaderelection/index.js';
import type { LeaderElectedRunnerOptions } from '../../src/leaderelection/index.js';
import type { FakeClock } from '../../src/util/clock.js';
import type { FakeLeaseStore } from './fake_lease_store.js';
import { setup } from './helpers.js';

function options(
  clock: FakeClock,
  store: FakeLeaseStore,
  id: string,
  run: LeaderElectedRunnerOptions['run'],
  extra: Partial<LeaderElectedRunnerOptions> = {},
): LeaderElectedRunnerOptions & { client: ReturnType<FakeLeaseStore['client']> } {
  const client = store.client(id);
  return {
    lock: new LeaseLock(client, { namespace: 'ns', name: 'lease', identity: id }),
    clock,
    logger: noopLogger,
    random: () => 0,
    run,
    client,
    ...extra,
  };
}

const untilAborted = (signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));

describe('runWhileLeading', () => {
  test("with onLost 'exit', losing leadership aborts the function and ends with 'leadership-lost'", async () => {
    const { clock, store } = setup();
    const seen: string[] = [];
    const opts = options(clock, store, 'a', async (signal) => {
      seen.push('running');
      await untilAborted(signal);
      seen.push('aborted');
    });
    const outcome = runWhileLeading(opts);
    await clock.advance(1_000);
    opts.client.partition = 'fail';
    await clock.advance(10_000);
    assert.equal(await outcome, 'leadership-lost');
    assert.deepEqual(seen, ['running', 'aborted']);
  });

  test("with onLost 'rejoin', the runner goes back to the election and runs the function again when it wins", async () => {
    const { clock, store } = setup();
    let runs = 0;
    const opts = options(
      clock,
      store,
      'a',
      async (signal) => {
        runs++;
        await untilAborted(signal);
      },
      { onLost: 'rejoin' },
    );
    const controller = new AbortController();
    const runner = new LeaderElectedRunner(opts);
    const outcome = runner.run(controller.signal);
    await clock.advance(1_000);
    opts.client.partition = 'fail';
    await clock.advance(10_000);
    assert.equal(runner.elector.isLeader(), false);
    opts.client.partition = 'none';
    await clock.advance(5_000);
    assert.equal(runner.elector.isLeader(), true);
    assert.equal(runs, 2);
    controller.abort();
    await clock.advance(0);
    assert.equal(await outcome, 'cancelled');
  });

  test("a function that returns while leading gives up leadership (released) and ends with 'completed'", async () => {
    const { clock, store } = setup();
    const opts = options(clock, store, 'a', async () => clock.sleep(3_000), {
      releaseOnCancel: true,
    });
    const outcome = runWhileLeading(opts);
    await clock.advance(3_000);
    assert.equal(await outcome, 'completed');
    assert.equal(store.lease?.spec?.holderIdentity, '');
  });

  test('a function that throws gives up leadership and the runner rejects with its error', async () => {
    const { clock, store } = setup();
    const boom = new Error('reconcile loop crashed');
    const opts = options(clock, store, 'a', async () => {
      await clock.sleep(1_000);
      throw boom;
    });
    const outcome = runWhileLeading(opts).then(
      () => undefined,
      (err: unknown) => err,
    );
    await clock.advance(1_000);
    assert.equal(await outcome, boom);
  });

  test('the function never runs while another candidate leads, and cancelling ends with cancelled', async () => {
    const { clock, store } = setup();
    store.setSpec({ holderIdentity: 'other', leaseDurationSeconds: 15, leaseTransitions: 0 });
    let ran = false;
    const opts = options(clock, store, 'b', async () => {
      ran = true;
    });
    const controller = new AbortController();
    const outcome = runWhileLeading(opts, controller.signal);
    for (let i = 0; i < 7; i++) {
      await clock.advance(2_000);
      store.setSpec({
        holderIdentity: 'other',
        leaseDurationSeconds: 15,
        leaseTransitions: 0,
        renewTime: `r${i}`,
      });
    }
    controller.abort();
    await clock.advance(0);
    assert.equal(await outcome, 'cancelled');
    assert.equal(ran, false);
  });
});
