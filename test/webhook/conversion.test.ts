// The conversion webhook at /convert: hub and spoke (controller-runtime's Hub/Convertible),
// round trips, spoke to spoke through the hub, unknown versions refused by name, metadata
// kept except labels and annotations, panics counted.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { UnstructuredObject } from '../../src/client/types.js';
import { ConversionWebhook } from '../../src/webhook/index.js';
import type { ConvertibleKind } from '../../src/webhook/index.js';
import type { Harness } from './support.js';
import { post, sample, startServer } from './support.js';

// v1 (hub): spec.image "repo:tag"; v2: spec.image {repository, tag}; v3: spec.container.image string.
const applicationKind: ConvertibleKind = {
  group: 'apps.example.com',
  kind: 'Application',
  hub: 'v1',
  spokes: {
    v2: {
      toHub(obj) {
        const spec = obj.spec as { image: { repository: string; tag: string }; replicas?: number };
        const { image, ...rest } = spec;
        return { ...obj, spec: { ...rest, image: `${image.repository}:${image.tag}` } };
      },
      fromHub(hub) {
        const spec = hub.spec as { image: string; replicas?: number };
        const [repository = '', tag = ''] = spec.image.split(':');
        const labels = { ...(hub.metadata?.labels ?? {}), converted: 'v2' };
        return {
          ...hub,
          metadata: { ...hub.metadata, labels, uid: 'changed-by-converter', name: 'renamed' },
          spec: { ...spec, image: { repository, tag } },
        };
      },
    },
    v3: {
      toHub(obj) {
        const spec = obj.spec as { container: { image: string } };
        return { ...obj, spec: { image: spec.container.image } };
      },
      fromHub(hub) {
        const spec = hub.spec as { image: string };
        if (spec.image === 'crash:1') (null as unknown as { x: number }).x.toFixed();
        if (spec.image === 'bad:1') throw new Error('image cannot be expressed in v3');
        return { ...hub, spec: { container: { image: spec.image } } };
      },
    },
  },
};

const v1 = (image: string, extra: Partial<UnstructuredObject> = {}): UnstructuredObject => ({
  apiVersion: 'apps.example.com/v1',
  kind: 'Application',
  metadata: {
    name: 'demo',
    namespace: 'default',
    uid: 'u-1',
    resourceVersion: '7',
    labels: { app: 'demo' },
  },
  spec: { image, replicas: 2 },
  ...extra,
});

const conversionReview = (
  desiredAPIVersion: string,
  objects: UnstructuredObject[],
  uid = 'c-1',
): string =>
  JSON.stringify({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'ConversionReview',
    request: { uid, desiredAPIVersion, objects },
  });

describe('conversion webhook', () => {
  let h: Harness;
  before(async () => {
    h = await startServer((server) => server.registerConversion(applicationKind));
  });
  after(async () => {
    await h.stop();
  });

  const convert = async (desired: string, objects: UnstructuredObject[], uid = 'c-1') => {
    const answer = await post(h.port(), '/convert', conversionReview(desired, objects, uid), {
      ca: h.ca.cert,
    });
    assert.equal(answer.status, 200);
    const body = answer.json();
    assert.equal(body.kind, 'ConversionReview');
    assert.equal(body.apiVersion, 'apiextensions.k8s.io/v1');
    return body.response as {
      uid: string;
      convertedObjects: UnstructuredObject[];
      result: { status: string; message?: string };
    };
  };

  test('hub → spoke: apiVersion set, uid echoed, metadata kept except labels', async () => {
    const response = await convert('apps.example.com/v2', [v1('nginx:1.27')], 'abc');
    assert.equal(response.uid, 'abc');
    assert.deepEqual(response.result, { status: 'Success' });
    const [out] = response.convertedObjects;
    assert.equal(out?.apiVersion, 'apps.example.com/v2');
    assert.equal(out?.kind, 'Application');
    assert.deepEqual(out?.spec, { replicas: 2, image: { repository: 'nginx', tag: '1.27' } });
    assert.deepEqual(out?.metadata, {
      name: 'demo',
      namespace: 'default',
      uid: 'u-1',
      resourceVersion: '7',
      labels: { app: 'demo', converted: 'v2' },
    });
  });

  test('round trip v1 → v2 → v1 gives the original spec back', async () => {
    const original = v1('nginx:1.27');
    const [v2] = (await convert('apps.example.com/v2', [original])).convertedObjects;
    const [back] = (await convert('apps.example.com/v1', [v2 as UnstructuredObject]))
      .convertedObjects;
    assert.deepEqual(back?.spec, original.spec);
    assert.equal(back?.apiVersion, 'apps.example.com/v1');
  });

  test('spoke → spoke goes through the hub (v2 → v3)', async () => {
    const [v2] = (await convert('apps.example.com/v2', [v1('redis:7')])).convertedObjects;
    const [v3] = (await convert('apps.example.com/v3', [v2 as UnstructuredObject]))
      .convertedObjects;
    assert.deepEqual(v3?.spec, { container: { image: 'redis:7' } });
  });

  test('several objects keep their order; one already at the desired version is unchanged', async () => {
    const response = await convert('apps.example.com/v1', [
      { ...v1('a:1'), apiVersion: 'apps.example.com/v3', spec: { container: { image: 'a:1' } } },
      v1('b:2'),
    ]);
    assert.deepEqual(
      response.convertedObjects.map((o) => (o.spec as { image: string }).image),
      ['a:1', 'b:2'],
    );
  });

  test('an unknown version is refused with a message naming it', async () => {
    const response = await convert('apps.example.com/v9', [v1('a:1')]);
    assert.equal(response.result.status, 'Failure');
    assert.match(
      response.result.message ?? '',
      /unknown version "v9" of Application\.apps\.example\.com/,
    );
    assert.match(response.result.message ?? '', /v1 \(hub\), v2, v3/);
    assert.deepEqual(response.convertedObjects, []);
  });

  test('an unknown kind is refused naming it', async () => {
    const response = await convert('apps.example.com/v2', [{ ...v1('a:1'), kind: 'Other' }]);
    assert.equal(response.result.status, 'Failure');
    assert.match(
      response.result.message ?? '',
      /no conversion registered for kind Other\.apps\.example\.com/,
    );
  });

  test('a converter error fails the review with its message', async () => {
    const response = await convert('apps.example.com/v3', [v1('bad:1')]);
    assert.equal(response.result.status, 'Failure');
    assert.match(response.result.message ?? '', /image cannot be expressed in v3/);
  });

  test('a converter bug is a panic: generic message, counted', async () => {
    const before =
      (await sample(h.registry, 'controller_runtime_conversion_webhook_panics_total')) ?? 0;
    const response = await convert('apps.example.com/v3', [v1('crash:1')]);
    assert.deepEqual(response.result, {
      status: 'Failure',
      message: 'internal error occurred during conversion',
    });
    assert.equal(
      await sample(h.registry, 'controller_runtime_conversion_webhook_panics_total'),
      before + 1,
    );
  });

  test('a body that is not a ConversionReview is a 400; so is another content type', async () => {
    assert.equal((await post(h.port(), '/convert', 'nope', { ca: h.ca.cert })).status, 400);
    assert.equal((await post(h.port(), '/convert', '{}', { ca: h.ca.cert })).status, 400);
    assert.equal(
      (
        await post(h.port(), '/convert', conversionReview('apps.example.com/v2', []), {
          ca: h.ca.cert,
          contentType: 'text/plain',
        })
      ).status,
      400,
    );
  });

  test('requests at /convert are counted under webhook="/convert"', async () => {
    assert.ok(
      ((await sample(h.registry, 'controller_runtime_webhook_requests_total', {
        webhook: '/convert',
        code: '200',
      })) ?? 0) > 0,
    );
  });
});

test('a kind registered twice, or a hub listed as a spoke, is refused', () => {
  const webhook = new ConversionWebhook();
  webhook.register(applicationKind);
  assert.throws(() => webhook.register(applicationKind), /registered already/);
  assert.throws(
    () =>
      webhook.register({
        group: 'g',
        kind: 'K',
        hub: 'v1',
        spokes: { v1: { toHub: (o) => o, fromHub: (o) => o } },
      }),
    /hub and cannot also be a spoke/,
  );
});
