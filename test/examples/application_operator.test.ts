// The application operator against the in-memory API server: children with owners,
// status through the status subresource, and cleanup through the finalizer.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized } from '../../src/client/types.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FINALIZER, runOperator } from '../../examples/application-operator/src/operator.js';
import { applicationResource } from '../../examples/application-operator/src/generated/application_v1.js';
import type { Application } from '../../examples/application-operator/src/generated/application_v1.js';
import { eventually } from '../support/eventually.js';
import { installApplicationCrd } from './support.js';

const deploymentsRef = { group: 'apps', resource: 'deployments' };
const appsRef = { group: 'example.com', resource: 'applications' };
type Deployment = Serialized<V1Deployment> & { apiVersion: string };
type Service = Serialized<V1Service> & { apiVersion: string };

describe('application-operator example', () => {
  let server: TestApiServer;
  const getApp = () => server.get(appsRef, 'shop', 'default') as unknown as Application | undefined;
  before(async () => {
    server = await startTestApiServer();
    await installApplicationCrd(server);
  });
  after(async () => {
    await server.close();
  });

  test('an Application gets an owned Deployment with its replicas and a Service, Ready status once available, and its children are cleaned up through the finalizer on delete', async () => {
    const stop = new AbortController();
    const running = runOperator(server.kubeConfig(), stop.signal);
    try {
      const apps = new ResourceClient(server.kubeConfig(), applicationResource).namespace(
        'default',
      );
      const created = await apps.create({
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name: 'shop', namespace: 'default' },
        spec: { image: 'nginx:1.27', replicas: 2, port: 8080, env: [{ name: 'MODE', value: 'x' }] },
      });
      await eventually(
        'deployment',
        () => server.get<Deployment>(deploymentsRef, 'shop', 'default') !== undefined,
      );
      const d = server.get<Deployment>(deploymentsRef, 'shop', 'default')!;
      assert.equal(d.spec?.replicas, 2);
      assert.equal(d.spec?.template.spec?.containers[0]?.image, 'nginx:1.27');
      assert.deepEqual(d.spec?.template.spec?.containers[0]?.env, [{ name: 'MODE', value: 'x' }]);
      const owner = d.metadata?.ownerReferences?.[0];
      assert.equal(owner?.kind, 'Application');
      assert.equal(owner?.uid, created.metadata?.uid);
      assert.equal(owner?.controller, true);
      await eventually(
        'service',
        () => server.get<Service>('services', 'shop', 'default') !== undefined,
      );
      const svc = server.get<Service>('services', 'shop', 'default')!;
      assert.equal(svc.spec?.ports?.[0]?.targetPort, 8080);
      assert.equal(svc.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
      assert.deepEqual(getApp()?.metadata?.finalizers, [FINALIZER]);

      // Not available yet: status says so.
      await eventually('status not ready', () => {
        const a = getApp();
        return a?.status?.conditions?.[0]?.status === 'False';
      });
      // The Deployment becomes available: availableReplicas and Ready follow.
      server.update(deploymentsRef, { ...d, status: { replicas: 2, availableReplicas: 2 } });
      await eventually('status ready', () => {
        const a = getApp();
        return a?.status?.availableReplicas === 2 && a.status.conditions?.[0]?.status === 'True';
      });

      // A spec change reaches the Deployment.
      const live = await apps.get('shop');
      await apps.update({ ...live, spec: { ...live.spec, replicas: 4 } });
      await eventually(
        'scaled',
        () => server.get<Deployment>(deploymentsRef, 'shop', 'default')?.spec?.replicas === 4,
      );

      // Delete: cleanup removes the children, then the finalizer, then the object goes.
      await apps.delete('shop');
      await eventually(
        'application gone',
        () => server.get(appsRef, 'shop', 'default') === undefined,
      );
      assert.equal(server.get(deploymentsRef, 'shop', 'default'), undefined);
      assert.equal(server.get('services', 'shop', 'default'), undefined);
    } finally {
      stop.abort();
      await running;
    }
  });
});
