// CRD conversion webhooks in the test API server, as apiextensions-apiserver calls them:
// objects stored at the storage version, converted by the webhook (over HTTPS, caBundle
// checked) on read to the version asked and on write from the version sent; the
// ConversionReview checks and kube-apiserver's words on failure; `kubectl get
// <plural>.<version>.<group>` works.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { generateTestCertificates, startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { hasKubectl, raw, RawWatch } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- reviews are arbitrary JSON */

const skipKubectl = hasKubectl() ? false : 'kubectl is not installed on this machine';

/** v1 has spec.size; v2 calls it spec.replicas. */
function convert(obj: any, desired: string): any {
  const out = structuredClone(obj);
  out.apiVersion = desired;
  const spec = out.spec ?? {};
  if (desired === 'example.com/v2' && 'size' in spec) {
    spec.replicas = spec.size;
    delete spec.size;
  } else if (desired === 'example.com/v1' && 'replicas' in spec) {
    spec.size = spec.replicas;
    delete spec.replicas;
  }
  out.spec = spec;
  return out;
}

const MWC = 'mutatingwebhookconfigurations.admissionregistration.k8s.io';
const VWC = 'validatingwebhookconfigurations.admissionregistration.k8s.io';
type HookKind = 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';

/** A webhook configuration of one webhook on gadgets at v2, served by a registered Service. */
function gadgetsV2Hook(
  kind: HookKind,
  name: string,
  matchPolicy: 'Exact' | 'Equivalent',
  service: string,
  path: string,
  operations: string[],
): UnstructuredObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: [
      {
        name: `${name}.example.com`,
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        matchPolicy,
        clientConfig: { service: { namespace: 'default', name: service, path } },
        rules: [
          { operations, apiGroups: ['example.com'], apiVersions: ['v2'], resources: ['gadgets'] },
        ],
      },
    ],
  };
}

describe('CRD conversion webhooks (test API server)', () => {
  let server: TestApiServer;
  let hooks: Server;
  let caBundle: string;
  let caCert: string;
  let hooksUrl: string;
  const reviews: any[] = [];
  let mode: 'ok' | 'fail' | 'wrong-uid' | 'drop' | 'rename' = 'ok';
  let dir: string;

  const crd = (): UnstructuredObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'gadgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget' },
      conversion: {
        strategy: 'Webhook',
        webhook: {
          conversionReviewVersions: ['v1'],
          clientConfig: {
            service: { namespace: 'default', name: 'conv', path: '/convert' },
            caBundle,
          },
        },
      },
      versions: ['v1', 'v2'].map((name) => ({
        name,
        served: true,
        storage: name === 'v1',
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties:
                  name === 'v1' ? { size: { type: 'integer' } } : { replicas: { type: 'integer' } },
              },
            },
          },
        },
      })),
    },
  });

  before(async () => {
    const certs = await generateTestCertificates({ serverNames: ['conv.default.svc'] });
    caBundle = Buffer.from(certs.caCert).toString('base64');
    caCert = certs.caCert;
    hooks = createServer({ key: certs.serverKey, cert: certs.serverCert }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const review = JSON.parse(body);
        reviews.push(review);
        const { uid, desiredAPIVersion, objects } = review.request;
        const response =
          mode === 'fail'
            ? { uid, result: { status: 'Failure', message: 'cannot convert today' } }
            : {
                uid: mode === 'wrong-uid' ? 'nope' : uid,
                result: { status: 'Success' },
                convertedObjects: (mode === 'drop' ? [] : objects).map((o: any) => {
                  const out = convert(o, desiredAPIVersion);
                  if (mode !== 'rename') return out;
                  return {
                    ...out,
                    metadata: { ...out.metadata, name: `${o.metadata.name}-renamed` },
                  };
                }),
              };
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'apiextensions.k8s.io/v1',
            kind: 'ConversionReview',
            response,
          }),
        );
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    hooksUrl = `https://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
    server = await startTestApiServer();
    server.registerService(
      { namespace: 'default', name: 'conv' },
      `https://127.0.0.1:${(hooks.address() as AddressInfo).port}`,
    );
    server.create('customresourcedefinitions.apiextensions.k8s.io', crd());
    dir = await mkdtemp(join(tmpdir(), 'kck-conversion-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
  });

  after(async () => {
    await server.close();
    hooks.closeAllConnections();
    await new Promise<void>((r) => hooks.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    reviews.length = 0;
    mode = 'ok';
  });

  it('a create at v2 is converted to the storage version v1; reading at v2 converts back; v1 reads need no call', async () => {
    const res = await raw(
      server.url,
      'POST',
      '/apis/example.com/v2/namespaces/default/gadgets',
      JSON.stringify({
        apiVersion: 'example.com/v2',
        kind: 'Gadget',
        metadata: { name: 'g1' },
        spec: { replicas: 4 },
      }),
    );
    assert.equal(res.code, 201, res.body);
    assert.equal(res.json.apiVersion, 'example.com/v2');
    assert.deepEqual(res.json.spec, { replicas: 4 });
    const stored = server.get<any>('gadgets.example.com', 'g1');
    assert.equal(stored.apiVersion, 'example.com/v1');
    assert.deepEqual(stored.spec, { size: 4 });
    assert.equal(reviews[0].request.desiredAPIVersion, 'example.com/v1');
    assert.equal(reviews[0].request.objects.length, 1);
    reviews.length = 0;
    const v1 = await raw(server.url, 'GET', '/apis/example.com/v1/namespaces/default/gadgets/g1');
    assert.deepEqual(v1.json.spec, { size: 4 });
    assert.equal(reviews.length, 0, 'objects already at the desired version are not sent');
    const list = await raw(server.url, 'GET', '/apis/example.com/v2/namespaces/default/gadgets');
    assert.deepEqual((list.json.items as any[])[0].spec, { replicas: 4 });
    assert.equal(reviews[0].request.desiredAPIVersion, 'example.com/v2');
  });

  it(
    'kubectl get <plural>.<version>.<group> shows the converted object; a merge patch at v2 lands converted',
    { skip: skipKubectl },
    async () => {
      const run = (...args: string[]): Promise<string> =>
        new Promise((resolve, reject) =>
          execFile(
            'kubectl',
            [...args, '--cache-dir', join(dir, 'cache')],
            { env: { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir } },
            (err, stdout, stderr) => (err ? reject(new Error(stderr)) : resolve(stdout)),
          ),
        );
      server.create('gadgets.example.com', {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'k1' },
        spec: { size: 2 },
      });
      assert.equal(
        await run('get', 'gadgets.v2.example.com', 'k1', '-o', 'jsonpath={.spec.replicas}'),
        '2',
      );
      await run(
        'patch',
        'gadgets.v2.example.com',
        'k1',
        '--type=merge',
        '-p',
        '{"spec":{"replicas":6}}',
      );
      assert.deepEqual(server.get<any>('gadgets.example.com', 'k1').spec, { size: 6 });
    },
  );

  it('rule (apiextensions-apiserver webhook_converter + apierrors.ErrorToAPIStatus): a failed conversion is a plain error, answered 500 with no reason and its own words', async () => {
    server.create('gadgets.example.com', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'f1' },
      spec: { size: 1 },
    });
    const get = () => raw(server.url, 'GET', '/apis/example.com/v2/namespaces/default/gadgets/f1');
    /** The Status kube-apiserver answers an error that is not an API status. */
    const unknown = (message: string) => ({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      code: 500,
    });
    try {
      mode = 'fail';
      const res = await get();
      assert.equal(res.code, 500);
      // kubectl: `Error from server: conversion webhook for … failed: …` (no "(InternalError)").
      assert.deepEqual(
        res.json,
        unknown('conversion webhook for example.com/v1, Kind=Gadget failed: cannot convert today'),
      );
      mode = 'wrong-uid';
      const uid = await get();
      assert.equal(uid.json.reason, undefined);
      assert.match(
        String(uid.json.message),
        /^conversion webhook for example\.com\/v1, Kind=Gadget failed: expected response\.uid="[0-9a-f-]+", got "nope"$/,
      );
      mode = 'drop';
      assert.deepEqual(
        (await get()).json,
        unknown(
          'conversion webhook for example.com/v1, Kind=Gadget returned 0 objects, expected 1',
        ),
      );
      // validateConvertedObject, single object: no index.
      mode = 'rename';
      assert.deepEqual(
        (await get()).json,
        unknown(
          'conversion webhook for example.com/v1, Kind=Gadget returned invalid object: must have the same name: f1 != f1-renamed',
        ),
      );
      // A list is converted as the list object (the request's version, the list kind), and
      // its index is counted after the object is taken.
      const list = await raw(server.url, 'GET', '/apis/example.com/v2/namespaces/default/gadgets');
      assert.equal(list.code, 500);
      assert.match(
        String(list.json.message),
        /^conversion webhook for example\.com\/v2, Kind=GadgetList returned invalid converted object at index 1: must have the same name: (\S+) != \1-renamed$/,
      );
    } finally {
      mode = 'ok';
      server.delete('gadgets.example.com', 'f1');
    }
  });

  it('rule (webhook_converter): an unreachable conversion webhook answers 500 "conversion webhook for … failed: Post …: connect: connection refused"', async () => {
    // A port nothing listens on: bound, then closed.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const widgets = crd();
    widgets.metadata = { name: 'widgets.example.com' };
    const spec = widgets.spec as any;
    spec.names = { plural: 'widgets', singular: 'widget', kind: 'Widget' };
    spec.conversion.webhook.clientConfig = { url: `https://127.0.0.1:${port}/convert`, caBundle };
    server.create('customresourcedefinitions.apiextensions.k8s.io', widgets);
    try {
      server.create('widgets.example.com', {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w' },
        spec: { size: 1 },
      });
      const res = await raw(server.url, 'GET', '/apis/example.com/v2/namespaces/default/widgets/w');
      assert.equal(res.code, 500);
      assert.equal(res.json.reason, undefined);
      assert.equal(
        res.json.message,
        `conversion webhook for example.com/v1, Kind=Widget failed: Post "https://127.0.0.1:${port}/convert?timeout=30s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
      );
    } finally {
      server.delete('customresourcedefinitions.apiextensions.k8s.io', 'widgets.example.com');
    }
  });

  it('rule (apiserver watch encoder): a watch at v2 gets every event converted, one ConversionReview per event, in order', async () => {
    server.create('gadgets.example.com', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'w1', labels: { t: 'watch' } },
      spec: { size: 1 },
    });
    const w = new RawWatch(
      server.url,
      '/apis/example.com/v2/namespaces/default/gadgets?watch=true&labelSelector=t%3Dwatch',
    );
    try {
      const initial = await w.next();
      assert.equal(w.code, 200);
      assert.equal(initial.type, 'ADDED');
      assert.equal(initial.object.apiVersion, 'example.com/v2');
      assert.deepEqual(initial.object.spec, { replicas: 1 });
      await server.waitForWatch('gadgets.example.com');
      server.create('gadgets.example.com', {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'w2', labels: { t: 'watch' } },
        spec: { size: 2 },
      });
      server.update('gadgets.example.com', {
        ...server.get<any>('gadgets.example.com', 'w1'),
        spec: { size: 3 },
      });
      server.delete('gadgets.example.com', 'w2');
      const events = [await w.next(), await w.next(), await w.next()];
      assert.deepEqual(
        events.map((e) => [e.type, e.object.metadata.name, e.object.apiVersion, e.object.spec]),
        [
          ['ADDED', 'w2', 'example.com/v2', { replicas: 2 }],
          ['MODIFIED', 'w1', 'example.com/v2', { replicas: 3 }],
          ['DELETED', 'w2', 'example.com/v2', { replicas: 2 }],
        ],
      );
      const toV2 = reviews.filter(
        (r) =>
          r.request.desiredAPIVersion === 'example.com/v2' &&
          r.request.objects[0].metadata.labels?.t === 'watch',
      );
      assert.deepEqual(
        toV2.map((r) => r.request.objects.length),
        [1, 1, 1, 1],
      );
    } finally {
      await w.close();
      server.delete('gadgets.example.com', 'w1');
    }
  });

  it('a watch whose event cannot be converted ends (the real server closes a watch it cannot encode)', async () => {
    const w = new RawWatch(
      server.url,
      '/apis/example.com/v2/namespaces/default/gadgets?watch=true&labelSelector=t%3Dfail',
    );
    await server.waitForWatch('gadgets.example.com');
    mode = 'fail';
    server.create('gadgets.example.com', {
      apiVersion: 'example.com/v1',
      kind: 'Gadget',
      metadata: { name: 'wf', labels: { t: 'fail' } },
      spec: { size: 1 },
    });
    assert.equal(await w.ended, 'end');
    assert.deepEqual(w.events, []);
    server.delete('gadgets.example.com', 'wf');
  });

  it('rule (fieldmanager at the request version): a server-side apply at v2 applies at v2 to the live object converted to v2, stores it converted to v1, answers at v2; its managedFields entry names v2', async () => {
    const apply = (spec: Record<string, unknown>) =>
      raw(
        server.url,
        'PATCH',
        '/apis/example.com/v2/namespaces/default/gadgets/a1?fieldManager=tester',
        JSON.stringify({
          apiVersion: 'example.com/v2',
          kind: 'Gadget',
          metadata: { name: 'a1' },
          spec,
        }),
        { 'Content-Type': 'application/apply-patch+yaml' },
      );
    const created = await apply({ replicas: 5 });
    assert.equal(created.code, 201, created.body);
    assert.equal(created.json.apiVersion, 'example.com/v2');
    assert.deepEqual(created.json.spec, { replicas: 5 });
    assert.deepEqual(server.get<any>('gadgets.example.com', 'a1').spec, { size: 5 });
    const updated = await apply({ replicas: 7 });
    assert.equal(updated.code, 200, updated.body);
    assert.deepEqual(updated.json.spec, { replicas: 7 });
    const stored = server.get<any>('gadgets.example.com', 'a1');
    assert.deepEqual(stored.spec, { size: 7 });
    assert.equal(stored.metadata.managedFields[0].manager, 'tester');
    assert.equal(stored.metadata.managedFields[0].operation, 'Apply');
    assert.equal(stored.metadata.managedFields[0].apiVersion, 'example.com/v2');
    assert.deepEqual(stored.metadata.managedFields[0].fieldsV1, {
      'f:spec': { 'f:replicas': {} },
    });
    server.delete('gadgets.example.com', 'a1');
  });

  it('rule (handlers/create.go, update.go, patch.go; the storage codec converts on encode): a write at v2 is admitted at v2 (kind and requestKind v2, object and oldObject at v2), so an Exact webhook for v2 is called; the result is stored at v1', async () => {
    const seen: any[] = [];
    server.registerService({ namespace: 'default', name: 'exact' }, (review, path) => {
      const request = (review as any).request;
      seen.push({ path, request: structuredClone(request) });
      const response: Record<string, unknown> = { uid: request.uid, allowed: true };
      if (path === '/m' && request.operation === 'CREATE') {
        response.patchType = 'JSONPatch';
        response.patch = Buffer.from(
          JSON.stringify([{ op: 'add', path: '/metadata/labels', value: { at: 'v2' } }]),
        ).toString('base64');
      }
      return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
    });
    const hook = (kind: HookKind, path: string) =>
      gadgetsV2Hook(kind, `exact${path.slice(1)}`, 'Exact', 'exact', path, ['CREATE', 'UPDATE']);
    server.create(MWC, hook('MutatingWebhookConfiguration', '/m'));
    server.create(VWC, hook('ValidatingWebhookConfiguration', '/v'));
    const v2 = { group: 'example.com', version: 'v2', kind: 'Gadget' };
    try {
      const res = await raw(
        server.url,
        'POST',
        '/apis/example.com/v2/namespaces/default/gadgets',
        JSON.stringify({
          apiVersion: 'example.com/v2',
          kind: 'Gadget',
          metadata: { name: 'x1' },
          spec: { replicas: 2 },
        }),
      );
      assert.equal(res.code, 201, res.body);
      assert.deepEqual(
        seen.map((x) => x.path),
        ['/m', '/v'],
      );
      for (const { request } of seen) {
        assert.deepEqual(request.kind, v2);
        assert.deepEqual(request.requestKind, v2);
        assert.equal(request.object.apiVersion, 'example.com/v2');
        assert.deepEqual(request.object.spec, { replicas: 2 });
      }
      assert.deepEqual(seen[1].request.object.metadata.labels, { at: 'v2' });
      const stored = server.get<any>('gadgets.example.com', 'x1');
      assert.equal(stored.apiVersion, 'example.com/v1');
      assert.deepEqual(stored.spec, { size: 2 });
      assert.deepEqual(stored.metadata.labels, { at: 'v2' });
      assert.equal(stored.metadata.managedFields[0].apiVersion, 'example.com/v2');

      seen.length = 0;
      const put = await raw(
        server.url,
        'PUT',
        '/apis/example.com/v2/namespaces/default/gadgets/x1',
        JSON.stringify({ ...res.json, spec: { replicas: 3 } }),
      );
      assert.equal(put.code, 200, put.body);
      assert.deepEqual(put.json.spec, { replicas: 3 });
      assert.deepEqual(
        seen.map((x) => x.path),
        ['/m', '/v'],
      );
      for (const { request } of seen) {
        assert.equal(request.operation, 'UPDATE');
        assert.deepEqual(request.kind, v2);
        assert.deepEqual(request.object.spec, { replicas: 3 });
        assert.equal(request.oldObject.apiVersion, 'example.com/v2');
        assert.deepEqual(request.oldObject.spec, { replicas: 2 });
      }
      assert.deepEqual(server.get<any>('gadgets.example.com', 'x1').spec, { size: 3 });

      seen.length = 0;
      const patched = await raw(
        server.url,
        'PATCH',
        '/apis/example.com/v2/namespaces/default/gadgets/x1',
        JSON.stringify({ spec: { replicas: 4 } }),
        { 'Content-Type': 'application/merge-patch+json' },
      );
      assert.equal(patched.code, 200, patched.body);
      assert.deepEqual(seen[0]?.request.kind, v2);
      assert.deepEqual(seen[0]?.request.oldObject.spec, { replicas: 3 });
      assert.deepEqual(server.get<any>('gadgets.example.com', 'x1').spec, { size: 4 });
    } finally {
      server.delete(MWC, 'exactm');
      server.delete(VWC, 'exactv');
      server.delete('gadgets.example.com', 'x1');
    }
  });

  it('an in-process write at v2 is refused (it cannot wait for the conversion webhook); nothing is stored', () => {
    assert.throws(
      () =>
        server.create('gadgets.example.com', {
          apiVersion: 'example.com/v2',
          kind: 'Gadget',
          metadata: { name: 'inproc', namespace: 'default' },
          spec: { replicas: 1 },
        }),
      /cannot call its conversion webhook/,
    );
    assert.ok(server.list('gadgets.example.com').every((o) => o.metadata?.name !== 'inproc'));
  });

  it('rule (generic webhook VersionedAttributes): matchPolicy Equivalent sends an admission webhook whose rules name v2 the object converted to v2 by the conversion webhook; its patch at v2 is converted back', async () => {
    const seen: any[] = [];
    server.registerService({ namespace: 'default', name: 'adm' }, (review, path) => {
      const request = (review as any).request;
      seen.push({ path, request: structuredClone(request) });
      const response: Record<string, unknown> = { uid: request.uid, allowed: true };
      if (path === '/m') {
        response.patchType = 'JSONPatch';
        response.patch = Buffer.from(
          JSON.stringify([
            { op: 'replace', path: '/spec/replicas', value: request.object.spec.replicas + 10 },
          ]),
        ).toString('base64');
      }
      return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response };
    });
    const hook = (kind: HookKind, path: string) =>
      gadgetsV2Hook(kind, `equiv${path.slice(1)}`, 'Equivalent', 'adm', path, ['CREATE']);
    server.create(MWC, hook('MutatingWebhookConfiguration', '/m'));
    server.create(VWC, hook('ValidatingWebhookConfiguration', '/v'));
    try {
      const res = await raw(
        server.url,
        'POST',
        '/apis/example.com/v1/namespaces/default/gadgets',
        JSON.stringify({
          apiVersion: 'example.com/v1',
          kind: 'Gadget',
          metadata: { name: 'eq1' },
          spec: { size: 3 },
        }),
      );
      assert.equal(res.code, 201, res.body);
      const [m, v] = seen;
      assert.equal(m.path, '/m');
      assert.equal(v.path, '/v');
      for (const { request } of seen) {
        assert.deepEqual(request.kind, { group: 'example.com', version: 'v2', kind: 'Gadget' });
        assert.deepEqual(request.requestKind, {
          group: 'example.com',
          version: 'v1',
          kind: 'Gadget',
        });
        assert.equal(request.object.apiVersion, 'example.com/v2');
      }
      assert.deepEqual(m.request.object.spec, { replicas: 3 }, 'converted, not relabelled');
      assert.deepEqual(v.request.object.spec, { replicas: 13 });
      assert.deepEqual(server.get<any>('gadgets.example.com', 'eq1').spec, { size: 13 });
    } finally {
      server.delete(MWC, 'equivm');
      server.delete(VWC, 'equivv');
      server.delete('gadgets.example.com', 'eq1');
    }
  });

  it('the webhooks option installs a CRD whose conversion points at <baseUrl>/convert (the envtest pattern)', async () => {
    const installed = await startTestApiServer({
      webhooks: { configurations: [crd()], baseUrl: hooksUrl, caBundle: caCert },
    });
    try {
      const stored = installed.get<any>(
        'customresourcedefinitions.apiextensions.k8s.io',
        'gadgets.example.com',
      );
      assert.equal(stored.spec.conversion.webhook.clientConfig.url, `${hooksUrl}/convert`);
      installed.create('gadgets.example.com', {
        apiVersion: 'example.com/v1',
        kind: 'Gadget',
        metadata: { name: 'e1' },
        spec: { size: 9 },
      });
      const res = await raw(
        installed.url,
        'GET',
        '/apis/example.com/v2/namespaces/default/gadgets/e1',
      );
      assert.equal(res.code, 200, res.body);
      assert.deepEqual(res.json.spec, { replicas: 9 });
    } finally {
      await installed.close();
    }
  });
});
