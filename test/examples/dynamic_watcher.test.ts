// The dynamic-watcher example: follows CRDs of one group as they appear and disappear.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { runDynamicWatcher } from '../../examples/dynamic-watcher/src/dynamic_watcher.js';
import type { DynamicEvent } from '../../examples/dynamic-watcher/src/dynamic_watcher.js';
import { eventually } from '../support/eventually.js';
import { applicationCrds, crdRef } from './support.js';

const appsRef = { group: 'example.com', resource: 'applications' };

describe('dynamic-watcher example', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('a CRD of the group created after start is followed and its events are logged per group/version/resource; other groups are ignored', async () => {
    const events: DynamicEvent[] = [];
    const stop = new AbortController();
    const running = runDynamicWatcher(server.kubeConfig(), stop.signal, {
      group: 'example.com',
      onEvent: (e) => events.push(e),
    });
    try {
      const [crd] = await applicationCrds();
      server.create(crdRef, crd!);
      // A CRD of another group, with an object: never reported.
      const other = structuredClone(crd!) as typeof crd & {
        spec: { group: string };
        metadata: { name: string };
      };
      other.metadata.name = 'applications.other.io';
      other.spec.group = 'other.io';
      server.create(crdRef, other);
      await eventually('the informer for applications', () => server.watchCount(appsRef) > 0);
      server.create(appsRef, {
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name: 'web', namespace: 'default' },
        spec: { image: 'nginx', replicas: 1 },
      });
      server.create(
        { group: 'other.io', resource: 'applications' },
        {
          apiVersion: 'other.io/v1',
          kind: 'Application',
          metadata: { name: 'elsewhere', namespace: 'default' },
          spec: { image: 'nginx', replicas: 1 },
        },
      );
      server.delete(appsRef, 'web', 'default');
      await eventually('the delete', () => events.some((e) => e.type === 'deleted'));
      assert.deepEqual(events, [
        { gvr: 'applications.example.com/v1', type: 'added', key: 'default/web' },
        { gvr: 'applications.example.com/v1', type: 'deleted', key: 'default/web' },
      ]);
    } finally {
      stop.abort();
      await running;
    }
  });
});
