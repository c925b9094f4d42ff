// ProcessorListener: one handler's buffer and delivery. Notifications are delivered in
// order, one call at a time, from a microtask (never inside the add that queued them); run()
// settles after stop() once the call in flight settled; an idle listener holds no pending
// delivery loop, and the next notification starts one again.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NotificationKind, ProcessorListener } from '../../src/cache/processor.js';
import type { Notification } from '../../src/cache/processor.js';
import { FakeClock, flushAsync } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';

const add = (name: string): Notification<{ name: string }> => ({
  kind: NotificationKind.Add,
  obj: { name },
  oldObj: undefined,
  isInInitialList: false,
});

function listener(handler: (name: string) => void | Promise<void>) {
  return new ProcessorListener<{ name: string }>(
    { onAdd: (obj) => handler(obj.name) },
    {
      name: 'h',
      requestedResyncPeriodMs: 0,
      resyncPeriodMs: 0,
      clock: new FakeClock(0),
      logger: noopLogger,
    },
  );
}

test('delivery is in order, from a microtask, and starts again after the buffer ran empty', async () => {
  const seen: string[] = [];
  const l = listener((n) => void seen.push(n));
  l.add(add('before-run'));
  const running = l.run();
  assert.deepEqual(seen, ['before-run'], 'run() delivers what was buffered at once');
  l.add(add('a'));
  l.add(add('b'));
  assert.deepEqual(seen, ['before-run'], 'never inside add()');
  await flushAsync();
  assert.deepEqual(seen, ['before-run', 'a', 'b']);
  assert.equal(l.pending, 0);
  l.add(add('c'));
  await flushAsync();
  assert.deepEqual(seen, ['before-run', 'a', 'b', 'c'], 'an idle listener wakes on the next add');
  l.stop();
  await running;
});

test('run() settles after stop() only once the call in flight settled; buffered ones are dropped', async () => {
  const seen: string[] = [];
  let release: (() => void) | undefined;
  const l = listener((n) => {
    seen.push(n);
    if (n === 'slow') return new Promise<void>((r) => (release = r));
  });
  const running = l.run();
  l.add(add('slow'));
  l.add(add('dropped'));
  await flushAsync();
  assert.deepEqual(seen, ['slow']);
  let settled = false;
  void running.then(() => (settled = true));
  l.stop();
  await flushAsync();
  assert.equal(settled, false, 'the call in flight is awaited');
  release?.();
  await flushAsync();
  assert.equal(settled, true);
  assert.deepEqual(seen, ['slow']);
});

test('stop() of an idle or never-run listener settles run() at once', async () => {
  const idle = listener(() => undefined);
  const running = idle.run();
  await flushAsync();
  idle.stop();
  await running;
  const never = listener(() => undefined);
  never.stop();
  await never.run();
});

test('a delivery loop that fails outside a handler (here: the logger throws) rejects run(), never leaves it pending', async () => {
  const l = new ProcessorListener<{ name: string }>(
    {
      onAdd: () => {
        throw new Error('handler');
      },
    },
    {
      name: 'h',
      requestedResyncPeriodMs: 0,
      resyncPeriodMs: 0,
      clock: new FakeClock(0),
      logger: {
        ...noopLogger,
        error: () => {
          throw new Error('logger');
        },
      },
    },
  );
  const running = l.run();
  l.add(add('a'));
  await assert.rejects(running, /logger/);
});
