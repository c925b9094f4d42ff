// HTTPS with bearer-token and client-certificate authentication: KubeConfig's auth flows
// through client-node to the test API server.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import * as k8s from '@kubernetes/client-node';
import { startTestApiServer } from '../../packages/testing/src/index.js';

async function code(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (err) {
    return (err as k8s.ApiException<unknown>).code;
  }
}

describe('test API server over HTTPS', () => {
  it('with a bearer token: the KubeConfig token is accepted, a wrong token is 401', async () => {
    const server = await startTestApiServer({ https: true, auth: { token: 's3cret' } });
    try {
      assert.match(server.url, /^https:\/\/127\.0\.0\.1:\d+$/);
      const ok = server.kubeConfig().makeApiClient(k8s.CoreV1Api);
      assert.ok((await ok.listNamespace()).items.length >= 2);
      const wrong = new k8s.KubeConfig();
      wrong.loadFromOptions({
        clusters: server.kubeConfig().clusters,
        users: [{ name: 'u', token: 'nope' }],
        contexts: [{ name: 'x', cluster: 'test-apiserver', user: 'u' }],
        currentContext: 'x',
      });
      assert.equal(await code(wrong.makeApiClient(k8s.CoreV1Api).listNamespace()), 401);
    } finally {
      await server.close();
    }
  });

  it('with a client certificate: the KubeConfig certificate is accepted, none is 401', async () => {
    const server = await startTestApiServer({ auth: { clientCertificate: true } });
    try {
      assert.ok(server.certificates);
      const ok = server.kubeConfig().makeApiClient(k8s.CoreV1Api);
      assert.ok((await ok.listNamespace()).items.length >= 2);
      const anon = new k8s.KubeConfig();
      anon.loadFromOptions({
        clusters: [
          {
            name: 'c',
            server: server.url,
            caData: Buffer.from(server.certificates.caCert).toString('base64'),
            skipTLSVerify: false,
          },
        ],
        users: [{ name: 'u' }],
        contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
        currentContext: 'x',
      });
      assert.equal(await code(anon.makeApiClient(k8s.CoreV1Api).listNamespace()), 401);
    } finally {
      await server.close();
    }
  });
});
