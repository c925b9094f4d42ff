// examples/application-operator's webhooks called by the in-memory API server, as the
// example installs them on it (envtest's pattern): the webhook configurations and the CRD's
// conversion point at a WebhookServer on 127.0.0.1 with a generated CA. A create with an
// untagged image is denied in kube-apiserver's words, a create without replicas is
// defaulted, and a read at v2 is converted. A server that does not serve
// admissionregistration.k8s.io (before the calling half of #23) skips, saying so.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../../src/client/errors.js';
import { customResourceDefinitionsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { ApiResource, UnstructuredObject } from '../../src/client/types.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { applyManifests, readManifests } from '../../src/program/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import {
  WebhookServer,
  generateCertificateAuthority,
  writeCertificateFiles,
} from '../../src/webhook/index.js';
import {
  installApplicationWebhooks,
  registerApplicationWebhooks,
} from '../../examples/application-operator/src/webhooks.js';
import { examplePath } from '../examples/support.js';

const applications: ApiResource<UnstructuredObject> = {
  group: 'example.com',
  version: 'v1',
  resource: 'applications',
  kind: 'Application',
  namespaced: true,
};

describe('application-operator webhooks on the in-memory API server', () => {
  let api: TestApiServer;
  let certDir: string;
  let installed: string[] = [];
  let url = '';
  let caBundle = '';
  const stop = new AbortController();
  let running: Promise<void> | undefined;

  before(async () => {
    api = await startTestApiServer();
    certDir = await mkdtemp(join(tmpdir(), 'kck-app-webhooks-'));
    const ca = generateCertificateAuthority();
    await writeCertificateFiles(certDir, ca.issue({ ipAddresses: ['127.0.0.1'] }));
    const webhookServer = new WebhookServer({
      host: '127.0.0.1',
      port: 0,
      certDir,
      logger: noopLogger,
    });
    registerApplicationWebhooks(webhookServer);
    running = webhookServer.start(stop.signal);
    await webhookServer.started();
    await applyManifests(
      api.kubeConfig(),
      await readManifests(examplePath('application-operator/crd.yaml')),
      { fieldManager: 'test' },
    );
    url = `https://127.0.0.1:${webhookServer.address?.port ?? 0}`;
    caBundle = ca.caBundle;
    installed = await installApplicationWebhooks(api.kubeConfig(), webhookServer, {
      endpoint: { url },
      caBundle,
      logger: noopLogger,
    });
  });
  after(async () => {
    stop.abort();
    await running;
    await api.close();
    await rm(certDir, { recursive: true, force: true });
  });

  test("the CRD's spec.conversion points at the server's /convert with the CA (envtest's install)", async () => {
    assert.ok(
      installed.includes('CustomResourceDefinition/applications.example.com'),
      String(installed),
    );
    const crds = new ResourceClient(api.kubeConfig(), customResourceDefinitionsResource);
    try {
      const crd = (await crds.get('applications.example.com')) as unknown as UnstructuredObject;
      assert.deepEqual((crd.spec as { conversion?: unknown }).conversion, {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: `${url}/convert`, caBundle },
          conversionReviewVersions: ['v1'],
        },
      });
    } finally {
      crds.transport.close();
    }
  });

  const skipUnlessServed = (t: { skip: (reason: string) => void }): boolean => {
    if (installed.some((i) => i.startsWith('ValidatingWebhookConfiguration/'))) return false;
    t.skip(
      'this in-memory server does not serve admissionregistration.k8s.io webhook configurations',
    );
    return true;
  };

  test("an untagged image is denied with kube-apiserver's words", async (t) => {
    if (skipUnlessServed(t)) return;
    const apps = new ResourceClient(api.kubeConfig(), applications).namespace('default');
    await assert.rejects(
      apps.create({
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name: 'untagged' },
        spec: { image: 'nginx', replicas: 1 },
      }),
      (err: unknown) => {
        assert.ok(err instanceof ApiError);
        assert.match(
          err.summary,
          /admission webhook "vapplication-v1\.kb\.io" denied the request: spec\.image "nginx" has no tag/,
        );
        return true;
      },
    );
  });

  test('a create without replicas is defaulted, and reads at v2 are converted', async (t) => {
    if (skipUnlessServed(t)) return;
    const apps = new ResourceClient(api.kubeConfig(), applications).namespace('default');
    const made = await apps.create({
      apiVersion: 'example.com/v1',
      kind: 'Application',
      metadata: { name: 'web' },
      spec: { image: 'nginx:1.27' },
    });
    assert.deepEqual(made.spec, { image: 'nginx:1.27', replicas: 1, port: 80 });
    const v2 = new ResourceClient(api.kubeConfig(), { ...applications, version: 'v2' }).namespace(
      'default',
    );
    const read = await v2.get('web');
    assert.equal(read.apiVersion, 'example.com/v2');
    assert.deepEqual(read.spec, {
      image: { repository: 'nginx', tag: '1.27' },
      replicas: 1,
      port: 80,
    });
  });
});
