// Typed lifecycle events of the LeaderElector (eventemitter3 underneath): observers
// subscribe with `on(event, listener)` besides the callbacks that drive the guarded work.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { LeadershipLostReason } from '../../src/leaderelection/index.js';
import type { LogFields, Logger } from '../../src/util/logger.js';
import { candidate, setup } from './helpers.js';

describe('LeaderElector lifecycle events', () => {
  test('startedLeading, newLeader and stoppedLeading (with its reason) reach every listener, in order, until unsubscribed', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    const seen: string[] = [];
    const second: string[] = [];
    a.elector.on('newLeader', (id: string) => seen.push(`newLeader ${id}`));
    a.elector.on('startedLeading', (id: string) => seen.push(`startedLeading ${id}`));
    a.elector.on('stoppedLeading', (reason: LeadershipLostReason) =>
      seen.push(`stoppedLeading ${reason}`),
    );
    const off = a.elector.on('newLeader', (id) => second.push(id));
    a.start();
    await clock.advance(0);
    assert.deepEqual(seen, ['newLeader a', 'startedLeading a']);
    assert.deepEqual(second, ['a']);
    off();
    await a.stop();
    assert.deepEqual(seen, ['newLeader a', 'startedLeading a', 'stoppedLeading cancelled']);
    // The callbacks still ran as before; the events are for observers.
    assert.ok(a.events.includes('leader=a'));
    assert.ok(a.events.some((e) => e.startsWith('stopped@')));
  });

  test('a candidate that never leads emits newLeader for the other holder and never startedLeading/stoppedLeading', async () => {
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a');
    const b = candidate(clock, store, 'b');
    a.start();
    await clock.advance(0);
    const seen: string[] = [];
    b.elector.on('newLeader', (id) => seen.push(`newLeader ${id}`));
    b.elector.on('startedLeading', () => seen.push('startedLeading'));
    b.elector.on('stoppedLeading', () => seen.push('stoppedLeading'));
    b.start();
    await clock.advance(5_000);
    await b.stop();
    await a.stop();
    assert.deepEqual(seen, ['newLeader a']);
  });

  test('a listener that throws is logged and the election goes on (the other listeners still run)', async () => {
    const errors: string[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      warn() {},
      error: (msg: string, fields?: LogFields) =>
        void errors.push(`${msg}: ${String((fields?.error as Error | undefined)?.message)}`),
    };
    const { clock, store } = setup();
    const a = candidate(clock, store, 'a', { logger });
    let after = 0;
    a.elector.on('startedLeading', () => {
      throw new Error('boom');
    });
    a.elector.on('startedLeading', () => void after++);
    a.start();
    await clock.advance(0);
    assert.equal(a.elector.isLeader(), true);
    assert.equal(after, 1);
    assert.deepEqual(errors, ['a startedLeading listener failed: boom']);
    await a.stop();
  });
});
