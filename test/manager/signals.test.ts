// setupSignalHandler: controller-runtime's SetupSignalHandler — the first SIGTERM/SIGINT
// starts a graceful shutdown, a second one exits at once.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { setupSignalHandler } from '../../src/manager/index.js';

describe('setupSignalHandler', () => {
  test('the first SIGTERM aborts the signal naming it; a second signal calls the exit hook; dispose removes the listeners', () => {
    const before = process.listenerCount('SIGTERM');
    const second: string[] = [];
    const handler = setupSignalHandler({ onSecondSignal: (s) => void second.push(s) });
    assert.equal(process.listenerCount('SIGTERM'), before + 1);
    assert.equal(process.listenerCount('SIGINT') >= 1, true);
    assert.equal(handler.signal.aborted, false);
    process.emit('SIGTERM', 'SIGTERM');
    assert.equal(handler.signal.aborted, true);
    assert.match(String((handler.signal.reason as Error).message), /received SIGTERM/);
    assert.deepEqual(second, []);
    process.emit('SIGINT', 'SIGINT');
    assert.deepEqual(second, ['SIGINT'], 'a second signal exits (here: the hook)');
    handler.dispose();
    assert.equal(process.listenerCount('SIGTERM'), before);
  });

  test('SIGINT alone also starts the shutdown', () => {
    const handler = setupSignalHandler({ onSecondSignal: () => {} });
    process.emit('SIGINT', 'SIGINT');
    assert.equal(handler.signal.aborted, true);
    handler.dispose();
  });
});
