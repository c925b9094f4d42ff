// Lists by field index from the manager's cache (controller-runtime's IndexField +
// MatchingFields): registered fields ANDed with labels and namespace, an unregistered field
// is a typed error naming it, and after random churn the cache answers as the API server.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { V1Pod } from '@kubernetes/client-node';
import { podsResource } from '../../src/client/builtins.js';
import type { Serialized } from '../../src/client/types.js';
import {
  FieldIndexNotRegisteredError,
  Manager,
  UnsupportedFieldSelectorError,
} from '../../src/manager/index.js';
import type { CachedClient, ManagerOptions } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';

type Pod = Serialized<V1Pod>;

const NAMESPACES = ['ns-a', 'ns-b'] as const;
const NODES = ['node-1', 'node-2', 'node-3'] as const;
const POLICIES = ['Always', 'Never'] as const;
const APPS = ['web', 'db'] as const;

function pod(
  namespace: string,
  name: string,
  nodeName: string,
  restartPolicy: string,
  app: string,
): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels: { app } },
    spec: { nodeName, restartPolicy, containers: [{ name: 'c', image: 'busybox' }] },
  };
}

const names = (objs: readonly { metadata?: { namespace?: string; name?: string } }[]): string[] =>
  objs.map((o) => `${o.metadata?.namespace}/${o.metadata?.name}`).sort();

describe('CachedClient lists by field index', () => {
  let server: TestApiServer;
  let manager: Manager;
  let client: CachedClient<Pod>;
  let stop: AbortController;
  let running: Promise<void>;

  before(async () => {
    server = await startTestApiServer();
    for (const ns of NAMESPACES) {
      server.create('namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
    }
    server.create('pods', pod('ns-a', 'a1', 'node-1', 'Always', 'web'));
    server.create('pods', pod('ns-a', 'a2', 'node-2', 'Never', 'web'));
    server.create('pods', pod('ns-b', 'b1', 'node-1', 'Never', 'db'));
    server.create('pods', pod('ns-b', 'b2', 'node-1', 'Always', 'web'));
    const options: ManagerOptions = {
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    };
    manager = new Manager(options);
    client = manager.client(podsResource);
    client.indexField('spec.nodeName', (p) => (p.spec?.nodeName ? [p.spec.nodeName] : []));
    client.indexField('spec.restartPolicy', (p) =>
      p.spec?.restartPolicy ? [p.spec.restartPolicy] : [],
    );
    stop = new AbortController();
    running = manager.start(stop.signal);
    await manager.elected();
  });
  after(async () => {
    stop.abort();
    await running;
    await server.close();
  });

  test('one registered field, across namespaces and in one namespace', async () => {
    assert.deepEqual(names(await client.list({ fieldSelector: { 'spec.nodeName': 'node-1' } })), [
      'ns-a/a1',
      'ns-b/b1',
      'ns-b/b2',
    ]);
    assert.deepEqual(
      names(await client.list({ namespace: 'ns-b', fieldSelector: 'spec.nodeName=node-1' })),
      ['ns-b/b1', 'ns-b/b2'],
    );
    assert.deepEqual(await client.list({ fieldSelector: { 'spec.nodeName': 'node-9' } }), []);
  });

  test('several fields are ANDed, and with the label selector (MatchingFields + MatchingLabels)', async () => {
    assert.deepEqual(
      names(
        await client.list({
          fieldSelector: { 'spec.nodeName': 'node-1', 'spec.restartPolicy': 'Always' },
        }),
      ),
      ['ns-a/a1', 'ns-b/b2'],
    );
    assert.deepEqual(
      names(
        await client.list({
          fieldSelector: 'spec.nodeName=node-1,spec.restartPolicy=Always',
          labelSelector: 'app=web',
          namespace: 'ns-b',
        }),
      ),
      ['ns-b/b2'],
    );
  });

  test('an unregistered field is a typed error naming it, not a silent full scan', async () => {
    await assert.rejects(
      client.list({ fieldSelector: { 'spec.nodeName': 'node-1', 'status.phase': 'Running' } }),
      (err: unknown) =>
        err instanceof FieldIndexNotRegisteredError &&
        err.field === 'status.phase' &&
        /pods by field status\.phase.*indexField\('status\.phase'/.test(err.message),
    );
    await assert.rejects(
      client.list({ fieldSelector: 'spec.nodeName!=node-1' }),
      UnsupportedFieldSelectorError,
    );
  });

  test('property: after random churn the cached answer equals the API server’s for the same selectors', async () => {
    let seq = 0;
    const op = fc.oneof(
      fc.record({
        kind: fc.constant('create' as const),
        ns: fc.constantFrom(...NAMESPACES),
        node: fc.constantFrom(...NODES),
        policy: fc.constantFrom(...POLICIES),
        app: fc.constantFrom(...APPS),
      }),
      fc.record({
        kind: fc.constant('update' as const),
        pick: fc.nat(),
        node: fc.constantFrom(...NODES),
        app: fc.constantFrom(...APPS),
      }),
      fc.record({ kind: fc.constant('delete' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 12 }), async (ops) => {
        for (const o of ops) {
          const all = server.list<Pod>('pods');
          if (o.kind === 'create') {
            server.create('pods', pod(o.ns, `p${seq++}`, o.node, o.policy, o.app));
          } else if (all.length > 0) {
            const target = all[o.pick % all.length]!;
            if (o.kind === 'update') {
              // nodeName is immutable once set on a real server; the test server takes it.
              server.update('pods', {
                ...target,
                metadata: { ...target.metadata, labels: { app: o.app } },
                spec: { ...target.spec!, nodeName: o.node },
              });
            } else {
              server.delete('pods', target.metadata!.name!, target.metadata!.namespace);
            }
          }
        }
        const serverState = (): string =>
          server
            .list<Pod>('pods')
            .map(
              (p) => `${p.metadata?.namespace}/${p.metadata?.name}@${p.metadata?.resourceVersion}`,
            )
            .sort()
            .join(',');
        await eventually('the cache caught up', async () => {
          const cached = (await client.list())
            .map(
              (p) => `${p.metadata?.namespace}/${p.metadata?.name}@${p.metadata?.resourceVersion}`,
            )
            .sort()
            .join(',');
          return cached === serverState();
        });
        for (const namespace of ['', ...NAMESPACES]) {
          for (const node of NODES) {
            for (const policy of [undefined, ...POLICIES]) {
              for (const app of [undefined, 'web']) {
                const fields: Record<string, string> = { 'spec.nodeName': node };
                if (policy !== undefined) fields['spec.restartPolicy'] = policy;
                const fieldSelector = Object.entries(fields)
                  .map(([k, v]) => `${k}=${v}`)
                  .join(',');
                const labelSelector = app === undefined ? undefined : `app=${app}`;
                const direct =
                  namespace === '' ? client.direct : client.direct.namespace(namespace);
                const fromServer = await direct.list({
                  fieldSelector,
                  ...(labelSelector !== undefined ? { labelSelector } : {}),
                });
                const fromCache = await client.list({
                  fieldSelector: fields,
                  ...(labelSelector !== undefined ? { labelSelector } : {}),
                  ...(namespace !== '' ? { namespace } : {}),
                });
                assert.deepEqual(
                  names(fromCache),
                  names(fromServer.items),
                  `namespace=${namespace || '*'} fields=${fieldSelector} labels=${labelSelector ?? ''}`,
                );
              }
            }
          }
        }
      }),
      { numRuns: 8, seed: 25 },
    );
  });
});
