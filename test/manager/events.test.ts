// The manager's event recorder (controller-runtime's GetEventRecorderFor): one broadcaster
// on the manager's transport, shared by every component's recorder, flushed on shutdown
// after the runnables stopped, so an Event recorded during the last reconcile is written.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1ConfigMap } from '@kubernetes/client-node';
import type { Serialized } from '../../src/client/types.js';
import { Manager } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';

interface CoreEventLike {
  reason?: string;
  message?: string;
  source?: { component?: string };
  involvedObject?: { kind?: string; name?: string; namespace?: string };
}

describe('Manager.eventRecorderFor', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('events recorded by a runnable just before shutdown are written by shutdown (flush), under each component name', async () => {
    const cm = server.create<Serialized<V1ConfigMap>>('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'cfg', namespace: 'default' },
    });
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    const a = manager.eventRecorderFor('alpha-controller');
    const b = manager.eventRecorderFor('beta-controller');
    const stop = new AbortController();
    manager.add({
      name: 'recorder',
      needLeaderElection: false,
      start: (signal) =>
        new Promise<void>((resolve) => {
          signal.addEventListener(
            'abort',
            () => {
              // Recorded while shutting down: only the flush can write these.
              a.event(cm, 'Normal', 'Stopping', 'alpha saw the stop');
              b.eventf(cm, 'Warning', 'Stopping', 'beta saw %s', 'the stop');
              resolve();
            },
            { once: true },
          );
        }),
    });
    const done = manager.start(stop.signal);
    // Every group has started once elected() resolves (no leader election: after the
    // caches synced and the runnables without leader election started).
    await manager.elected();
    stop.abort();
    await done;
    const events = server
      .list<CoreEventLike & Record<string, never>>('events', 'default')
      .filter((e) => e.reason === 'Stopping');
    assert.deepEqual(events.map((e) => [e.source?.component, e.message]).sort(), [
      ['alpha-controller', 'alpha saw the stop'],
      ['beta-controller', 'beta saw the stop'],
    ]);
    for (const e of events) {
      assert.deepEqual(
        [e.involvedObject?.kind, e.involvedObject?.namespace, e.involvedObject?.name],
        ['ConfigMap', 'default', 'cfg'],
      );
    }
  });
});
