// The pod-watcher example: informer + node index + lister + queue + workers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { runPodWatcher } from '../../examples/pod-watcher/src/pod_watcher.js';
import type { PodReport } from '../../examples/pod-watcher/src/pod_watcher.js';
import { eventually } from '../support/eventually.js';

const pod = (name: string, node: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default' },
  spec: { ...(node === '' ? {} : { nodeName: node }), containers: [{ name: 'c', image: 'nginx' }] },
  status: { phase: 'Running' },
});

describe('pod-watcher example', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('reports every pod with the number of pods on its node from the index, and reports deletions', async () => {
    server.create('pods', pod('a1', 'node-a'));
    server.create('pods', pod('a2', 'node-a'));
    const reports: PodReport[] = [];
    const stop = new AbortController();
    let synced = false;
    const running = runPodWatcher(server.kubeConfig(), stop.signal, {
      onReport: (r) => reports.push(r),
      onSynced: () => (synced = true),
    });
    try {
      await eventually('initial reports', () => reports.length >= 2);
      assert.ok(synced);
      assert.deepEqual(reports.map((r) => [r.key, r.node, r.podsOnNode]).sort(), [
        ['default/a1', 'node-a', 2],
        ['default/a2', 'node-a', 2],
      ]);
      server.create('pods', pod('b1', 'node-b'));
      await eventually('b1', () => reports.some((r) => r.key === 'default/b1'));
      assert.equal(reports.find((r) => r.key === 'default/b1')?.podsOnNode, 1);
      server.delete('pods', 'a2', 'default');
      // A scheduled pod is deleted gracefully: first reported as terminating.
      await eventually('a2 terminating', () =>
        reports.some((r) => r.key === 'default/a2' && r.terminating),
      );
      // An unscheduled pod is deleted at once: reported as deleted.
      server.create('pods', pod('u1', ''));
      await eventually('u1', () => reports.some((r) => r.key === 'default/u1'));
      assert.equal(reports.find((r) => r.key === 'default/u1')?.node, undefined);
      server.delete('pods', 'u1', 'default');
      await eventually('u1 deleted', () =>
        reports.some((r) => r.key === 'default/u1' && r.deleted),
      );
    } finally {
      stop.abort();
      await running;
    }
  });
});
