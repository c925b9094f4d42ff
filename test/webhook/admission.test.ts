// Admission webhooks served over real HTTPS: controller-runtime's typed Defaulter and
// Validator rules, its error mapping, panics, metrics, body limit and content type.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiError } from '../../src/client/errors.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import {
  AdmissionDenial,
  MAX_REQUEST_BYTES,
  allowed,
  denied,
  mutatePath,
  validatePath,
} from '../../src/webhook/index.js';
import type { AdmissionRequest, JsonPatchOperation } from '../../src/webhook/index.js';
import type { Harness } from './support.js';
import { post, responseOf, review, sample, startServer } from './support.js';

interface Application extends UnstructuredObject {
  spec?: { image?: string; replicas?: number; ports?: number[] };
}

const target = {
  group: 'apps.example.com',
  version: 'v1',
  kind: 'Application',
  resource: 'applications',
};
const mutate = mutatePath(target);
const validate = validatePath(target);

const app = (spec: Record<string, unknown>, extra: Record<string, unknown> = {}): Application => ({
  apiVersion: 'apps.example.com/v1',
  kind: 'Application',
  metadata: { name: 'demo', namespace: 'default' },
  spec,
  ...extra,
});

function applyPatch(doc: unknown, ops: JsonPatchOperation[]): unknown {
  const copy = structuredClone(doc) as Record<string, unknown>;
  for (const op of ops) {
    const tokens = op.path
      .split('/')
      .slice(1)
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = tokens.pop() as string;
    let parent: Record<string, unknown> | unknown[] = copy;
    for (const t of tokens) parent = parent[t] as Record<string, unknown>;
    if (Array.isArray(parent)) {
      const index = Number(last);
      if (op.op === 'add') parent.splice(index, 0, op.value);
      else if (op.op === 'replace') parent[index] = op.value;
      else parent.splice(index, 1);
    } else if (op.op === 'remove') delete parent[last];
    else parent[last] = op.value;
  }
  return copy;
}

describe('admission webhooks over HTTPS', () => {
  let h: Harness;
  const seen: { deleteOld?: Application; deleteRequest?: AdmissionRequest<Application> } = {};

  before(async () => {
    h = await startServer((server) => {
      server.registerFor<Application>(target, {
        defaulter: {
          default(obj) {
            obj.spec ??= {};
            obj.spec.replicas ??= 1;
            if (obj.spec.image === 'throw-typeerror') {
              (undefined as unknown as { x: () => void }).x();
            }
            if (obj.spec.image === 'deny') throw new Error('defaulting refused');
          },
        },
        validator: {
          validateCreate(obj) {
            const image = obj.spec?.image ?? '';
            if (image === 'api-error') {
              throw new ApiError({
                kind: 'Status',
                apiVersion: 'v1',
                status: 'Failure',
                code: 422,
                reason: 'Invalid',
                message: 'spec.image: Invalid value',
              });
            }
            if (image === 'denial') throw new AdmissionDenial('no', ['careful']);
            if (!image.includes(':')) throw new Error(`image "${image}" has no tag`);
            return image.endsWith(':old') ? ['image tag "old" is deprecated'] : [];
          },
          validateUpdate(oldObj, obj) {
            if (oldObj.spec?.image !== obj.spec?.image && obj.spec?.replicas === 0) {
              throw new Error('cannot change the image while scaled to zero');
            }
          },
          validateDelete(obj, request) {
            seen.deleteOld = obj;
            seen.deleteRequest = request;
            if (obj.metadata?.labels?.protected === 'true') throw new Error('protected');
          },
        },
      });
      server.registerAdmission({
        type: 'validating',
        name: 'raw.example.com',
        path: '/raw',
        rules: [
          { operations: ['*'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] },
        ],
        handler: (request) => {
          if (request.name === 'boom') throw new Error('handler bug');
          return request.name === 'no' ? denied('raw says no') : allowed();
        },
      });
    });
  });
  after(async () => {
    await h.stop();
  });

  const send = (path: string, body: string, contentType?: string | null) =>
    post(h.port(), path, body, {
      ca: h.ca.cert,
      ...(contentType !== undefined ? { contentType } : {}),
    });

  test('paths follow controller-runtime: /mutate-<group dashes>-<version>-<kind>, /validate-…', () => {
    assert.equal(mutate, '/mutate-apps-example-com-v1-application');
    assert.equal(validate, '/validate-apps-example-com-v1-application');
    assert.equal(mutatePath({ group: '', version: 'v1', kind: 'Pod' }), '/mutate--v1-pod');
    assert.deepEqual(h.server.paths(), [mutate, validate, '/raw']);
  });

  test('a validator error denies with 403 Forbidden and its message; the uid is echoed', async () => {
    const answer = await send(
      validate,
      review({ uid: 'abc-123', operation: 'CREATE', object: app({ image: 'nginx' }) }),
    );
    assert.equal(answer.status, 200);
    assert.equal(answer.json().apiVersion, 'admission.k8s.io/v1');
    assert.equal(answer.json().kind, 'AdmissionReview');
    const response = responseOf(answer);
    assert.equal(response.uid, 'abc-123');
    assert.equal(response.allowed, false);
    assert.deepEqual(response.status, {
      code: 403,
      reason: 'Forbidden',
      message: 'image "nginx" has no tag',
    });
  });

  test('an allowed request has code 200 and carries the warnings', async () => {
    const response = responseOf(
      await send(validate, review({ operation: 'CREATE', object: app({ image: 'nginx:old' }) })),
    );
    assert.equal(response.allowed, true);
    assert.equal(response.status?.code, 200);
    assert.deepEqual(response.warnings, ['image tag "old" is deprecated']);
  });

  test('a thrown ApiError keeps its code, reason and message', async () => {
    const response = responseOf(
      await send(validate, review({ operation: 'CREATE', object: app({ image: 'api-error' }) })),
    );
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 422);
    assert.equal(response.status?.reason, 'Invalid');
    assert.equal(response.status?.message, 'spec.image: Invalid value');
  });

  test('an AdmissionDenial denies with 403 and keeps its warnings', async () => {
    const response = responseOf(
      await send(validate, review({ operation: 'CREATE', object: app({ image: 'denial' }) })),
    );
    assert.equal(response.status?.code, 403);
    assert.equal(response.status?.message, 'no');
    assert.deepEqual(response.warnings, ['careful']);
  });

  test('UPDATE hands the validator the old and the new object', async () => {
    const response = responseOf(
      await send(
        validate,
        review({
          operation: 'UPDATE',
          object: app({ image: 'b:1', replicas: 0 }),
          oldObject: app({ image: 'a:1', replicas: 0 }),
        }),
      ),
    );
    assert.equal(response.status?.message, 'cannot change the image while scaled to zero');
  });

  test('DELETE: object is null, the validator gets oldObject (controller-runtime #1278)', async () => {
    const old = app(
      { image: 'a:1' },
      { metadata: { name: 'demo', namespace: 'default', labels: { protected: 'true' } } },
    );
    const response = responseOf(
      await send(validate, review({ operation: 'DELETE', object: null, oldObject: old })),
    );
    assert.equal(response.allowed, false);
    assert.equal(response.status?.message, 'protected');
    assert.deepEqual(seen.deleteOld, old);
    assert.equal(seen.deleteRequest?.object, null);
  });

  test('DELETE with no oldObject is a 400, not a crash', async () => {
    const response = responseOf(
      await send(validate, review({ operation: 'DELETE', object: null })),
    );
    assert.equal(response.status?.code, 400);
  });

  test('the defaulter on DELETE admits without a patch', async () => {
    const response = responseOf(
      await send(mutate, review({ operation: 'DELETE', object: null, oldObject: app({}) })),
    );
    assert.equal(response.allowed, true);
    assert.equal(response.patch, undefined);
  });

  test('the defaulting patch is the JSON Patch from the object as received; unknown fields are never dropped', async () => {
    const received = app(
      { image: 'nginx:1', futureField: { keep: true } },
      { status: { observed: 3 }, metadata: { name: 'demo', annotations: { 'a/b~c': 'x' } } },
    );
    const response = responseOf(
      await send(mutate, review({ operation: 'CREATE', object: received })),
    );
    assert.equal(response.allowed, true);
    assert.equal(response.patchType, 'JSONPatch');
    const ops = JSON.parse(
      Buffer.from(response.patch ?? '', 'base64').toString(),
    ) as JsonPatchOperation[];
    assert.deepEqual(ops, [{ op: 'add', path: '/spec/replicas', value: 1 }]);
    const patchedObject = applyPatch(received, ops) as Application;
    assert.deepEqual(patchedObject.spec, {
      image: 'nginx:1',
      futureField: { keep: true },
      replicas: 1,
    });
    assert.deepEqual(patchedObject.status, { observed: 3 });
  });

  test('an object already defaulted gets no patch', async () => {
    const response = responseOf(
      await send(
        mutate,
        review({ operation: 'CREATE', object: app({ image: 'x:1', replicas: 2 }) }),
      ),
    );
    assert.equal(response.allowed, true);
    assert.equal(response.patch, undefined);
    assert.equal(response.patchType, undefined);
  });

  test('a defaulter error denies with 403', async () => {
    const response = responseOf(
      await send(mutate, review({ operation: 'CREATE', object: app({ image: 'deny' }) })),
    );
    assert.equal(response.status?.code, 403);
    assert.equal(response.status?.message, 'defaulting refused');
  });

  test('a raw handler that throws answers 500 and counts controller_runtime_webhook_panics_total', async () => {
    const before = (await sample(h.registry, 'controller_runtime_webhook_panics_total')) ?? 0;
    const response = responseOf(
      await send('/raw', review({ uid: 'p-1', operation: 'CREATE', name: 'boom', object: {} })),
    );
    assert.equal(response.uid, 'p-1');
    assert.equal(response.allowed, false);
    assert.equal(response.status?.code, 500);
    assert.equal(response.status?.message, 'panic: handler bug [recovered]');
    assert.equal(await sample(h.registry, 'controller_runtime_webhook_panics_total'), before + 1);
  });

  test('a TypeError in a typed handler is a panic too (500), not a denial', async () => {
    const before = (await sample(h.registry, 'controller_runtime_webhook_panics_total')) ?? 0;
    const response = responseOf(
      await send(
        mutate,
        review({ operation: 'CREATE', object: app({ image: 'throw-typeerror' }) }),
      ),
    );
    assert.equal(response.status?.code, 500);
    assert.match(response.status?.message ?? '', /^panic: .* \[recovered\]$/);
    assert.equal(await sample(h.registry, 'controller_runtime_webhook_panics_total'), before + 1);
  });

  test('a raw handler denies with its own words', async () => {
    const response = responseOf(
      await send('/raw', review({ operation: 'CREATE', name: 'no', object: {} })),
    );
    assert.deepEqual(response.status, { code: 403, reason: 'Forbidden', message: 'raw says no' });
  });

  test('only application/json is read: another content type is a 400', async () => {
    const answer = await send(
      validate,
      review({ operation: 'CREATE', object: app({}) }),
      'text/plain',
    );
    assert.equal(answer.status, 200);
    assert.deepEqual(responseOf(answer).status, {
      code: 400,
      message: 'contentType=text/plain, expected application/json',
    });
  });

  test('an empty body is a 400', async () => {
    const response = responseOf(await send(validate, ''));
    assert.deepEqual(response.status, { code: 400, message: 'request body is empty' });
  });

  test('a body that is not an AdmissionReview is a 400', async () => {
    const response = responseOf(await send(validate, '{"kind":"Pod"}'));
    assert.equal(response.status?.code, 400);
  });

  test('a body over 7 MiB is refused with 413', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(MAX_REQUEST_BYTES) });
    const answer = await send(validate, big);
    assert.deepEqual(responseOf(answer).status, {
      code: 413,
      message: `request entity is too large; limit is ${MAX_REQUEST_BYTES} bytes`,
    });
  });

  test('an unregistered path is a 404', async () => {
    const answer = await send('/validate-nothing', '{}');
    assert.equal(answer.status, 404);
  });

  test('metrics: requests_total{webhook,code}, latency and in-flight by path', async () => {
    const path = validate;
    const before =
      (await sample(h.registry, 'controller_runtime_webhook_requests_total', {
        webhook: path,
        code: '200',
      })) ?? 0;
    await send(path, review({ operation: 'CREATE', object: app({ image: 'a:1' }) }));
    assert.equal(
      await sample(h.registry, 'controller_runtime_webhook_requests_total', {
        webhook: path,
        code: '200',
      }),
      before + 1,
    );
    assert.equal(
      await sample(h.registry, 'controller_runtime_webhook_requests_total', {
        webhook: '/raw',
        code: '500',
      }),
      0,
      'the 500 series exists at zero from registration on',
    );
    assert.equal(
      await sample(h.registry, 'controller_runtime_webhook_requests_in_flight', { webhook: path }),
      0,
    );
    assert.ok(
      ((await sample(h.registry, 'controller_runtime_webhook_latency_seconds_count', {
        webhook: path,
      })) ?? 0) >= 1,
    );
  });

  test('v1beta1 AdmissionReviews are answered in v1beta1', async () => {
    const body = JSON.parse(
      review({ operation: 'CREATE', object: app({ image: 'a:1' }) }),
    ) as Record<string, unknown>;
    body.apiVersion = 'admission.k8s.io/v1beta1';
    const answer = await send(validate, JSON.stringify(body));
    assert.equal(answer.json().apiVersion, 'admission.k8s.io/v1beta1');
    assert.equal(responseOf(answer).allowed, true);
  });
});
