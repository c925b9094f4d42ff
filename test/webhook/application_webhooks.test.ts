// examples/application-operator's webhooks, called over HTTPS as kube-apiserver calls them:
// the validating webhook refuses an image with no tag or the tag latest, the defaulting
// webhook patches only what it defaults, and v1 <-> v2 conversion round-trips.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import type { UnstructuredObject } from '../../src/client/types.js';
import { noopLogger } from '../../src/util/logger.js';
import { WebhookServer, webhookConfigurations } from '../../src/webhook/index.js';
import type { JsonPatchOperation } from '../../src/webhook/index.js';
import { examplePath } from '../examples/support.js';
import {
  imageProblem,
  parseImage,
  registerApplicationWebhooks,
} from '../../examples/application-operator/src/webhooks.js';
import type { Harness } from './support.js';
import { post, responseOf, review, startServer } from './support.js';

const app = (spec: Record<string, unknown>, apiVersion = 'example.com/v1'): UnstructuredObject => ({
  apiVersion,
  kind: 'Application',
  metadata: { name: 'web', namespace: 'default', uid: 'u-9', labels: { tier: 'front' } },
  spec,
});

describe('application-operator webhooks', () => {
  let h: Harness;
  before(async () => {
    h = await startServer(registerApplicationWebhooks);
  });
  after(async () => {
    await h.stop();
  });

  const admit = async (
    path: string,
    object: UnstructuredObject,
    operation: 'CREATE' | 'UPDATE' = 'CREATE',
  ) =>
    responseOf(
      await post(
        h.port(),
        path,
        review({
          operation,
          object,
          ...(operation === 'UPDATE' ? { oldObject: object } : {}),
          kind: { group: 'example.com', version: 'v1', kind: 'Application' },
          resource: { group: 'example.com', version: 'v1', resource: 'applications' },
        }),
        { ca: h.ca.cert },
      ),
    );

  test('paths follow the convention', () => {
    assert.deepEqual(h.server.paths(), [
      '/mutate-example-com-v1-application',
      '/validate-example-com-v1-application',
      '/convert',
    ]);
  });

  for (const [image, refused] of [
    ['nginx', /has no tag/],
    ['nginx:latest', /uses the tag "latest"/],
    ['registry.example.com:5000/team/app', /has no tag/],
  ] as const) {
    test(`the validating webhook refuses ${image}`, async () => {
      const response = await admit(
        '/validate-example-com-v1-application',
        app({ image, replicas: 1 }),
      );
      assert.equal(response.allowed, false);
      assert.equal(response.status?.code, 403);
      assert.match(response.status?.message ?? '', refused);
    });
  }

  for (const image of [
    'nginx:1.27',
    'registry.example.com:5000/team/app:2.0',
    'nginx@sha256:abc',
  ]) {
    test(`the validating webhook admits ${image}`, async () => {
      assert.equal(
        (await admit('/validate-example-com-v1-application', app({ image, replicas: 1 }))).allowed,
        true,
      );
    });
  }

  test('updates are validated too', async () => {
    const response = await admit(
      '/validate-example-com-v1-application',
      app({ image: 'nginx:latest', replicas: 1 }),
      'UPDATE',
    );
    assert.equal(response.allowed, false);
  });

  test('the defaulting webhook adds replicas and port only when absent', async () => {
    const response = await admit(
      '/mutate-example-com-v1-application',
      app({ image: 'nginx:1.27', port: 8080 }),
    );
    assert.equal(response.allowed, true);
    const ops = JSON.parse(
      Buffer.from(response.patch ?? '', 'base64').toString(),
    ) as JsonPatchOperation[];
    assert.deepEqual(ops, [{ op: 'add', path: '/spec/replicas', value: 1 }]);
  });

  test('conversion v1 -> v2 -> v1 round-trips; metadata and labels kept', async () => {
    const convert = async (desired: string, object: UnstructuredObject) => {
      const answer = await post(
        h.port(),
        '/convert',
        JSON.stringify({
          apiVersion: 'apiextensions.k8s.io/v1',
          kind: 'ConversionReview',
          request: { uid: 'c', desiredAPIVersion: desired, objects: [object] },
        }),
        { ca: h.ca.cert },
      );
      const response = answer.json().response as {
        convertedObjects: UnstructuredObject[];
        result: { status: string };
      };
      assert.equal(response.result.status, 'Success');
      return response.convertedObjects[0] as UnstructuredObject;
    };
    const original = app({
      image: 'registry.example.com:5000/team/app:2.0@sha256:abc',
      replicas: 3,
      port: 8080,
    });
    const v2 = await convert('example.com/v2', original);
    assert.equal(v2.apiVersion, 'example.com/v2');
    assert.deepEqual(v2.spec, {
      image: { repository: 'registry.example.com:5000/team/app', tag: '2.0', digest: 'sha256:abc' },
      replicas: 3,
      port: 8080,
    });
    assert.deepEqual(v2.metadata, original.metadata);
    const back = await convert('example.com/v1', v2);
    assert.deepEqual(back, original);
  });
});

test('parseImage: a registry port is not a tag', () => {
  assert.deepEqual(parseImage('localhost:5000/app'), { repository: 'localhost:5000/app' });
  assert.deepEqual(parseImage('app:1@sha256:x'), {
    repository: 'app',
    tag: '1',
    digest: 'sha256:x',
  });
  assert.equal(imageProblem('app:'), 'spec.image "app:" has no tag: pin a version (e.g. app:1.0)');
});

describe('application-operator deploy/webhook', () => {
  const read = (relative: string): UnstructuredObject[] =>
    parseAllDocuments(readFileSync(examplePath(relative), 'utf8'))
      .map((d) => d.toJS() as UnstructuredObject | null)
      .filter((o): o is UnstructuredObject => o !== null);

  test('the webhook configurations are what webhookConfigurations() generates from the registered handlers', () => {
    const server = new WebhookServer({ logger: noopLogger });
    registerApplicationWebhooks(server);
    const { mutating, validating } = webhookConfigurations(server, {
      endpoint: {
        service: { namespace: 'application-operator', name: 'application-operator-webhook' },
      },
      name: 'application-operator',
    });
    const annotations = {
      'cert-manager.io/inject-ca-from': 'application-operator/application-operator-serving-cert',
    };
    assert.deepEqual(read('application-operator/deploy/webhook/webhooks.yaml'), [
      { ...mutating, metadata: { ...mutating?.metadata, annotations } },
      { ...validating, metadata: { ...validating?.metadata, annotations } },
    ]);
  });

  test("the Service, the Deployment's webhook port and cert dir, the Certificate and the CRD's conversion agree", () => {
    const [service] = read('application-operator/deploy/webhook-service.yaml') as {
      metadata: { name: string; namespace: string };
      spec: { ports: { port: number; targetPort: string }[] };
    }[];
    const [deployment] = read('application-operator/deploy/deployment.yaml') as {
      spec: {
        template: {
          spec: {
            containers: {
              args: string[];
              ports: { name: string; containerPort: number }[];
              volumeMounts: { mountPath: string; name: string }[];
            }[];
            volumes: { name: string; secret: { secretName: string } }[];
          };
        };
      };
    }[];
    const pod = deployment?.spec.template.spec;
    const container = pod?.containers[0];
    const flag = (name: string) =>
      container?.args.find((a) => a.startsWith(`--${name}=`))?.split('=')[1];
    const webhookPort = container?.ports.find((p) => p.name === service?.spec.ports[0]?.targetPort);
    assert.equal(webhookPort?.containerPort, Number(flag('webhook-port')));
    const mount = container?.volumeMounts.find((m) => m.mountPath === flag('webhook-cert-path'));
    const volume = pod?.volumes.find((v) => v.name === mount?.name);
    const [, certificate] = read('application-operator/deploy/webhook/certificate.yaml') as {
      spec: { secretName: string; dnsNames: string[] };
    }[];
    assert.equal(volume?.secret.secretName, certificate?.spec.secretName);
    assert.ok(
      certificate?.spec.dnsNames.includes(
        `${service?.metadata.name}.${service?.metadata.namespace}.svc`,
      ),
    );
    const [crd] = read('application-operator/crd.yaml') as {
      spec: {
        conversion: {
          strategy: string;
          webhook: { clientConfig: { service: Record<string, unknown> } };
        };
        versions: { name: string; storage: boolean }[];
      };
    }[];
    assert.deepEqual(crd?.spec.conversion.webhook.clientConfig.service, {
      namespace: service?.metadata.namespace,
      name: service?.metadata.name,
      path: '/convert',
      port: service?.spec.ports[0]?.port,
    });
    assert.deepEqual(
      crd?.spec.versions.map((v) => [v.name, v.storage]),
      [
        ['v1', true],
        ['v2', false],
      ],
      'storage stays v1',
    );
  });
});
