// The leader-elected example: three replicas, one leads and does the work; stopping it
// hands over (the Lease is released, a standby acquires it and does the work from then on).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { STAMPED_BY, STAMP_LABEL, runReplica } from '../../examples/leader-elected/src/replica.js';
import { eventually } from '../support/eventually.js';

const timing = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 };

const configMap = (name: string, labelled = true) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default', labels: labelled ? { [STAMP_LABEL]: 'true' } : {} },
});

describe('leader-elected example', () => {
  let server: TestApiServer;
  const stampOf = (name: string) =>
    server.get<{ metadata?: { annotations?: Record<string, string> } }>(
      'configmaps',
      name,
      'default',
    )?.metadata?.annotations?.[STAMPED_BY];
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('of three replicas only the leader works; after the leader stops a standby takes over and stamps with its own identity; unlabelled ConfigMaps are left alone', async () => {
    const leading = new Set<string>();
    const stampedBy: string[] = [];
    const replicas = ['a', 'b', 'c'].map((identity) => {
      const stop = new AbortController();
      const done = runReplica(server.kubeConfig(), stop.signal, {
        identity,
        timing,
        logger: noopLogger,
        onEvent: (e) => {
          if (e.type === 'leading') leading.add(e.identity);
          if (e.type === 'stopped-leading') leading.delete(e.identity);
          if (e.type === 'stamped') stampedBy.push(e.identity);
        },
      });
      return { identity, stop, done };
    });
    try {
      server.create('configmaps', configMap('one'));
      server.create('configmaps', configMap('plain', false));
      await eventually('a stamp', () => stampOf('one') !== undefined);
      assert.equal(leading.size, 1);
      const first = [...leading][0]!;
      assert.equal(stampOf('one'), first);
      assert.ok(stampedBy.every((id) => id === first));
      const leader = replicas.find((r) => r.identity === first)!;
      leader.stop.abort();
      assert.equal(await leader.done, 'cancelled');
      await eventually('a new leader', () => leading.size === 1 && !leading.has(first));
      const second = [...leading][0]!;
      server.create('configmaps', configMap('two'));
      await eventually('the new leader stamps', () => stampOf('two') === second);
      // The new leader re-stamps what the old one stamped: its cache starts from a full list.
      await eventually('the first ConfigMap restamped', () => stampOf('one') === second);
      assert.equal(stampOf('plain'), undefined);
    } finally {
      for (const r of replicas) r.stop.abort();
      await Promise.all(replicas.map((r) => r.done));
    }
  });
});
