// The clusters a provider holds (multicluster-runtime's pkg/clusters): AddOrReplace with a
// fingerprint (same one: nothing; another: the old cluster stops first), a refused engagement
// removes the cluster again, and removing stops it — its start() settled — before resolving.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ClusterNotFoundError, Clusters } from '../../src/multicluster/index.js';
import type { RunnableCluster } from '../../src/multicluster/index.js';
import { localCluster } from '../../src/multicluster/index.js';
import { Manager } from '../../src/manager/index.js';
import { KubeConfig } from '@kubernetes/client-node';
import { RecordingAware, recordingLogger } from './support.js';

/** A cluster that records its lifecycle; its start() settles a turn after its signal aborts. */
function fakeCluster(name: string, log: string[]): RunnableCluster {
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: 'http://127.0.0.1:1', skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  const manager = new Manager({
    kubeConfig: kc,
    healthProbeBindAddress: '0',
    metricsBindAddress: '0',
  });
  return {
    ...localCluster(manager),
    name,
    start: async (signal) => {
      log.push(`start ${name}`);
      await new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
      await new Promise((r) => setImmediate(r));
      manager.transport.close();
      log.push(`stopped ${name}`);
    },
  };
}

describe('Clusters', () => {
  test('addOrReplace: a new name starts and engages; the same fingerprint is left alone; another replaces, the old stopping first', async () => {
    const log: string[] = [];
    const clusters = new Clusters({ logger: recordingLogger().logger });
    const aware = new RecordingAware();
    assert.equal(await clusters.addOrReplace('a', fakeCluster('a', log), aware, 'v1'), true);
    assert.equal(await clusters.addOrReplace('a', fakeCluster('a', log), aware, 'v1'), false);
    assert.equal(await clusters.addOrReplace('a', fakeCluster('a', log), aware, 'v2'), true);
    assert.deepEqual(log, ['start a', 'stopped a', 'start a']);
    assert.deepEqual(aware.events, ['engage a', 'disengage a', 'engage a']);
    assert.equal(clusters.fingerprint('a'), 'v2');
    await clusters.removeAll();
    assert.deepEqual(clusters.names(), []);
    assert.throws(() => clusters.get('a'), ClusterNotFoundError);
  });

  test('a refused engagement removes the cluster again and stops it, logged at error', async () => {
    const log: string[] = [];
    const logger = recordingLogger();
    const clusters = new Clusters({ logger: logger.logger, description: 'test' });
    const aware = new RecordingAware();
    aware.refuse = (name) => name === 'bad';
    assert.equal(await clusters.addOrReplace('bad', fakeCluster('bad', log), aware), false);
    assert.equal(clusters.has('bad'), false);
    assert.deepEqual(log, ['start bad', 'stopped bad']);
    assert.match(
      logger.lines.join('\n'),
      /error test: engaging cluster bad failed; it is removed error=refusing bad/,
    );
  });

  test('operations on one name run in the order asked: remove after add resolves once the cluster stopped', async () => {
    const log: string[] = [];
    const clusters = new Clusters({ logger: recordingLogger().logger });
    const aware = new RecordingAware();
    const added = clusters.addOrReplace('a', fakeCluster('a', log), aware);
    const removed = clusters.remove('a');
    await Promise.all([added, removed]);
    assert.deepEqual(log, ['start a', 'stopped a']);
    assert.deepEqual(aware.events, ['engage a', 'disengage a']);
  });
});
