// The webhook server on a Manager: it runs on every replica (not leader-gated), in the
// `webhooks` group before the caches, its StartedChecker is the `webhook` readiness check,
// and it stops with the Manager.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { Manager } from '../../src/manager/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { WebhookServer, allowed } from '../../src/webhook/index.js';
import { httpGet } from '../manager/support.js';
import { makeCertDir, post, review } from './support.js';

test('a Manager runs its webhook server on every replica and reports it on /readyz', async () => {
  const api = await startTestApiServer();
  const { dir, ca } = await makeCertDir();
  try {
    const webhookServer = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir: dir,
      logger: noopLogger,
    });
    webhookServer.registerAdmission({
      type: 'validating',
      name: 'raw.example.com',
      path: '/raw',
      rules: [],
      handler: () => allowed(),
    });
    assert.equal(webhookServer.needLeaderElection, false);
    const manager = new Manager({
      kubeConfig: api.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      // Leader election on, lease held by someone else: the webhook still serves.
      leaderElection: { id: 'webhook-test', namespace: 'default', identity: 'replica-b' },
      webhookServer,
      logger: noopLogger,
    });
    assert.equal(manager.webhookServer, webhookServer);
    api.create(
      { group: 'coordination.k8s.io', resource: 'leases' },
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: 'webhook-test', namespace: 'default' },
        spec: {
          holderIdentity: 'replica-a',
          leaseDurationSeconds: 3600,
          renewTime: new Date().toISOString().replace('Z', '000Z'),
          acquireTime: new Date().toISOString().replace('Z', '000Z'),
        },
      },
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    await webhookServer.started();
    const port = webhookServer.address?.port ?? 0;
    const answer = await post(port, '/raw', review({ operation: 'CREATE', object: {} }), {
      ca: ca.cert,
    });
    assert.equal(answer.status, 200, 'served while another replica leads');
    const ready = await httpGet(manager.healthProbeAddress, '/readyz/webhook');
    assert.equal(ready.status, 200);
    assert.equal(ready.body, 'ok');
    stop.abort();
    await running;
    assert.equal(webhookServer.address, undefined, 'stopped with the Manager');
  } finally {
    await api.close();
    await rm(dir, { recursive: true, force: true });
  }
});
