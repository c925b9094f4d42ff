import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { InvalidWorkerCountError, Queue, runWorkers } from '../../src/workqueue/index.js';
import { flushAsync } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

describe('runWorkers', () => {
  test('n workers process items concurrently, never more than n at once', async () => {
    const q = new Queue<number>();
    for (let i = 0; i < 20; i++) q.add(i);
    let inFlight = 0;
    let maxInFlight = 0;
    const seen: number[] = [];
    const ac = new AbortController();
    const run = runWorkers(
      q,
      3,
      async (item) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        await flushAsync(1);
        seen.push(item);
        inFlight--;
        if (seen.length === 20) q.shutDown();
      },
      ac.signal,
    );
    await run;
    assert.equal(maxInFlight, 3);
    assert.deepEqual(
      [...seen].sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i),
    );
  });

  test('abort stops taking work and resolves only after in-flight handlers settle', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    const gate = deferred();
    const started: string[] = [];
    let finished = false;
    const ac = new AbortController();
    const run = runWorkers(
      q,
      1,
      async (item) => {
        started.push(item);
        await gate.promise;
        finished = true;
      },
      ac.signal,
    );
    await flushAsync();
    ac.abort();
    let resolved = false;
    void run.then(() => (resolved = true));
    await flushAsync();
    assert.equal(resolved, false, 'still waiting for the in-flight handler');
    gate.resolve();
    await run;
    assert.equal(finished, true);
    assert.deepEqual(started, ['a'], 'b was not taken after the abort');
    assert.equal(q.len(), 1);
    assert.equal(q.processingLen(), 0, 'a was marked done');
  });

  test('idle workers waiting in get() stop on abort', async () => {
    const q = new Queue<string>();
    const ac = new AbortController();
    const run = runWorkers(q, 4, () => {}, ac.signal);
    await flushAsync();
    ac.abort();
    await run;
    q.add('x');
    assert.equal(q.len(), 1, 'no aborted worker took the item');
  });

  test('handler errors go to onError with the item, done() is still called, workers go on', async () => {
    const q = new Queue<string>();
    q.add('bad');
    q.add('good');
    const errors: [string, string][] = [];
    const done: string[] = [];
    const ac = new AbortController();
    await runWorkers(
      q,
      1,
      async (item) => {
        if (item === 'bad') throw new Error('cannot reconcile bad');
        done.push(item);
        q.shutDown();
      },
      ac.signal,
      { onError: (err, item) => errors.push([item, (err as Error).message]) },
    );
    assert.deepEqual(errors, [['bad', 'cannot reconcile bad']]);
    assert.deepEqual(done, ['good']);
    assert.equal(q.processingLen(), 0);
  });

  test('without onError, handler errors (and a throwing onError) are logged, never unhandled', async () => {
    const logged: string[] = [];
    const logger: Logger = {
      debug: () => {},
      info: () => {},
      warn: () => {},
      error: (m) => logged.push(m),
    };
    const q = new Queue<string>();
    q.add('a');
    q.shutDown();
    await runWorkers(q, 1, () => Promise.reject(new Error('x')), new AbortController().signal, {
      logger,
    });
    assert.deepEqual(logged, ['work queue handler failed']);
    const q2 = new Queue<string>();
    q2.add('a');
    q2.shutDown();
    await runWorkers(
      q2,
      1,
      () => {
        throw new Error('y');
      },
      new AbortController().signal,
      {
        logger,
        onError: () => {
          throw new Error('hook');
        },
      },
    );
    assert.deepEqual(logged, ['work queue handler failed', 'work queue onError hook threw']);
  });

  test('workers end when the queue is shut down and drained', async () => {
    const q = new Queue<string>();
    q.add('a');
    q.add('b');
    q.shutDown();
    const seen: string[] = [];
    await runWorkers(q, 2, (item) => void seen.push(item), new AbortController().signal);
    assert.deepEqual(seen.sort(), ['a', 'b']);
  });

  test('the handler receives the signal; an already aborted signal runs nothing', async () => {
    const q = new Queue<string>();
    q.add('a');
    await runWorkers(q, 1, () => assert.fail('must not run'), AbortSignal.abort());
    assert.equal(q.len(), 1);
  });

  test('a worker count below 1 is rejected with InvalidWorkerCountError', async () => {
    await assert.rejects(
      runWorkers(new Queue<string>(), 0, () => {}, new AbortController().signal),
      InvalidWorkerCountError,
    );
  });
});
