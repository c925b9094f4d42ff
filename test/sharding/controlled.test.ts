// Controlled (child) objects move with their controller and are never drained
// (kubernetes-controller-sharding's sharder): only the main resource's reconciler releases
// a drained object, so a drained child would stay draining for good. Against the in-memory
// server, with shard Leases written by hand: when a second shard joins and the ring gives a
// ConfigMap (main resource) and its controlled Secret to it, the ConfigMap is drained from
// the still-live first shard while the Secret is relabelled to the new shard at once.
import { after, before, describe, test } from 'node:test';
import { formatMicroTime } from '../../src/apimachinery/micro_time.js';
import { configMapsResource, secretsResource } from '../../src/client/builtins.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { HashRing, Sharder, objectHashKey } from '../../src/sharding/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

const RING = 'parents';
const NS = 'default';
const LEASES = { group: 'coordination.k8s.io', resource: 'leases' };

describe('sharder and controlled objects', { timeout: 60_000 }, () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('a controlled object of a live shard moves to its new shard at once, never drained; its controller is drained', async () => {
    const sharder = new Sharder({
      ring: RING,
      leaseNamespace: NS,
      namespace: NS,
      resources: [{ resource: configMapsResource, controlled: [secretsResource] }],
      source: server.kubeConfig(),
      logger: noopLogger,
    });
    const l = sharder.labels;
    const lease = (shard: string): void => {
      server.create(LEASES, {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          name: `${RING}-${shard}`,
          namespace: NS,
          labels: { [l.leaseRing]: RING, [l.leaseShard]: shard },
        },
        spec: {
          holderIdentity: shard,
          leaseDurationSeconds: 3600,
          renewTime: formatMicroTime(Date.now()),
        },
      });
    };
    // A parent name the two-shard ring gives to "b".
    const two = new HashRing(['a', 'b']);
    let name = '';
    for (let i = 0; name === ''; i++) {
      const candidate = `parent-${i}`;
      if (two.get(objectHashKey('', 'ConfigMap', NS, candidate)) === 'b') name = candidate;
    }
    const parent = server.create<UnstructuredObject>('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace: NS },
    });
    server.create('secrets', {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: `${name}-child`,
        namespace: NS,
        ownerReferences: [
          {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            name,
            uid: String(parent.metadata?.uid),
            controller: true,
          },
        ],
      },
    });
    const labelsOf = (resource: string, n: string): Record<string, string> =>
      server.get<UnstructuredObject>({ resource }, n, NS)?.metadata?.labels ?? {};

    lease('a');
    const stop = new AbortController();
    const running = sharder.run(stop.signal);
    try {
      await eventually('both assigned to a', () => {
        return (
          labelsOf('configmaps', name)[l.shard] === 'a' &&
          labelsOf('secrets', `${name}-child`)[l.shard] === 'a'
        );
      });
      lease('b');
      await eventually('the controller owner is drained from the live shard a', () => {
        const p = labelsOf('configmaps', name);
        return p[l.shard] === 'a' && p[l.drain] !== undefined;
      });
      await eventually('the child moved to b at once, without a drain label', () => {
        const c = labelsOf('secrets', `${name}-child`);
        return c[l.shard] === 'b' && c[l.drain] === undefined;
      });
    } finally {
      stop.abort();
      await running;
    }
  });
});
