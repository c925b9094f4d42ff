// The leader-elected example: three replicas, one leads; stopping it hands over.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../src/testing/index.js';
import type { TestApiServer } from '../../src/testing/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { runReplica } from '../../examples/leader-elected/src/replica.js';
import { eventually } from '../support/eventually.js';
import { installApplicationCrd } from './support.js';

const timing = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 };

describe('leader-elected example', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
    await installApplicationCrd(server);
  });
  after(async () => {
    await server.close();
  });

  test('of three replicas exactly one reconciles, and after the leader stops a standby takes over and reconciles new Applications', async () => {
    const leading = new Set<string>();
    const reconciledBy: string[] = [];
    const replicas = ['a', 'b', 'c'].map((identity) => {
      const stop = new AbortController();
      const done = runReplica(server.kubeConfig(), stop.signal, {
        identity,
        timing,
        logger: noopLogger,
        onEvent: (e) => {
          if (e.type === 'leading') leading.add(e.identity);
          if (e.type === 'stopped-leading') leading.delete(e.identity);
          if (e.type === 'operator' && e.event.type === 'reconciled') reconciledBy.push(e.identity);
        },
      });
      return { identity, stop, done };
    });
    try {
      server.create(
        { group: 'example.com', resource: 'applications' },
        {
          apiVersion: 'example.com/v1',
          kind: 'Application',
          metadata: { name: 'one', namespace: 'default' },
          spec: { image: 'nginx', replicas: 1 },
        },
      );
      await eventually('a reconcile', () => reconciledBy.length > 0);
      assert.equal(leading.size, 1);
      const first = [...leading][0]!;
      assert.ok(reconciledBy.every((id) => id === first));
      const leader = replicas.find((r) => r.identity === first)!;
      leader.stop.abort();
      assert.equal(await leader.done, 'cancelled');
      await eventually('a new leader', () => leading.size === 1 && !leading.has(first));
      const second = [...leading][0]!;
      server.create(
        { group: 'example.com', resource: 'applications' },
        {
          apiVersion: 'example.com/v1',
          kind: 'Application',
          metadata: { name: 'two', namespace: 'default' },
          spec: { image: 'nginx', replicas: 1 },
        },
      );
      await eventually('the new leader reconciles', () => reconciledBy.includes(second));
      await eventually(
        'the Deployment of the second Application',
        () =>
          server.get({ group: 'apps', resource: 'deployments' }, 'two', 'default') !== undefined,
      );
    } finally {
      for (const r of replicas) r.stop.abort();
      await Promise.all(replicas.map((r) => r.done));
    }
  });
});
