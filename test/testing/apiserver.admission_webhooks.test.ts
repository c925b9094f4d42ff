// Admission webhooks called by the test API server as kube-apiserver calls them: over
// HTTPS to a Service the test registers (caBundle checked), AdmissionReview v1 with every
// field, JSON Patch applied, denials, failurePolicy, selectors, matchConditions, timeout,
// dry-run, reinvocation, warnings and audit annotations; driven by kubectl where kubectl
// is installed, by raw HTTP otherwise.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:https';
import type { Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { generateTestCertificates, startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer, TestCertificates } from '../../packages/testing/src/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { hasKubectl, raw } from './helpers.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- reviews are arbitrary JSON */

type Review = Record<string, any>;
type Handler = (request: Record<string, any>) => Record<string, unknown> | 'hang';

const skipKubectl = hasKubectl() ? false : 'kubectl is not installed on this machine';

const CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.example.com' },
  spec: {
    group: 'example.com',
    scope: 'Namespaced',
    names: { plural: 'widgets', singular: 'widget', kind: 'Widget' },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: { size: { type: 'integer' }, color: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

function patch(ops: unknown[]): { patchType: string; patch: string } {
  return { patchType: 'JSONPatch', patch: Buffer.from(JSON.stringify(ops)).toString('base64') };
}

function webhookConfig(
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration',
  name: string,
  hooks: Record<string, unknown>[],
): UnstructuredObject {
  return {
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind,
    metadata: { name },
    webhooks: hooks.map((h) => ({
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
      clientConfig: {
        service: { namespace: 'default', name: 'hooks', path: `/${String(h.name)}` },
      },
      rules: [
        {
          operations: ['CREATE', 'UPDATE'],
          apiGroups: [''],
          apiVersions: ['v1'],
          resources: ['configmaps'],
        },
      ],
      ...h,
    })),
  };
}

describe('admission webhooks (test API server)', () => {
  let server: TestApiServer;
  let certs: TestCertificates;
  let hooks: Server;
  let hooksUrl: string;
  let caBundle: string;
  const handlers = new Map<string, Handler>();
  const seen: Record<string, any>[] = [];
  let dir: string;
  let env: NodeJS.ProcessEnv;

  const kubectl = (
    args: string[],
    stdin?: string,
  ): Promise<{ code: number; stdout: string; stderr: string }> =>
    new Promise((resolve) => {
      const child = execFile(
        'kubectl',
        [...args, '--cache-dir', join(dir, 'cache')],
        { env },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin?.end(stdin ?? '');
    });

  const deleteAll = (resource: string): void => {
    for (const o of server.list(resource)) server.delete(resource, o.metadata?.name ?? '');
  };

  before(async () => {
    certs = await generateTestCertificates({ serverNames: ['hooks.default.svc'] });
    caBundle = Buffer.from(certs.caCert).toString('base64');
    hooks = createServer({ key: certs.serverKey, cert: certs.serverCert }, (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'https://x');
        const review = JSON.parse(body) as Review;
        seen.push({ path: url.pathname, query: url.search, review });
        const h = handlers.get(url.pathname);
        const answer = h ? h(review.request) : { allowed: true };
        if (answer === 'hang') return;
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: { uid: review.request.uid, ...answer },
          }),
        );
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    hooksUrl = `https://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
    server = await startTestApiServer();
    server.registerService({ namespace: 'default', name: 'hooks' }, hooksUrl);
    server.create('customresourcedefinitions.apiextensions.k8s.io', CRD);
    dir = await mkdtemp(join(tmpdir(), 'kck-webhooks-'));
    await server.writeKubeconfig(join(dir, 'kubeconfig'));
    env = { ...process.env, KUBECONFIG: join(dir, 'kubeconfig'), HOME: dir };
  });

  after(async () => {
    await server.close();
    hooks.closeAllConnections();
    await new Promise<void>((r) => hooks.close(() => r()));
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(() => {
    handlers.clear();
    seen.length = 0;
    deleteAll('mutatingwebhookconfigurations.admissionregistration.k8s.io');
    deleteAll('validatingwebhookconfigurations.admissionregistration.k8s.io');
    deleteAll('validatingadmissionpolicies.admissionregistration.k8s.io');
    deleteAll('validatingadmissionpolicybindings.admissionregistration.k8s.io');
    for (const cm of server.list('configmaps', 'default')) {
      if (cm.metadata?.name !== 'kube-root-ca.crt')
        server.delete('configmaps', cm.metadata?.name ?? '');
    }
  });

  const withCa = (config: UnstructuredObject): UnstructuredObject => {
    for (const h of config.webhooks as any[]) h.clientConfig.caBundle ??= caBundle;
    return config;
  };

  const createCm = (name: string, data: Record<string, string>, labels?: Record<string, string>) =>
    raw(
      server.url,
      'POST',
      '/api/v1/namespaces/default/configmaps',
      JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data }),
      { 'User-Agent': 'webhook-test/v1' },
    );

  it(
    'a validating webhook denial reaches kubectl in kube-apiserver words (admission webhook "<name>" denied the request: <message>)',
    { skip: skipKubectl },
    async () => {
      server.create(
        'validatingwebhookconfigurations.admissionregistration.k8s.io',
        withCa(
          webhookConfig('ValidatingWebhookConfiguration', 'deny', [{ name: 'deny.example.com' }]),
        ),
      );
      handlers.set('/deny.example.com', (r) =>
        r.object.data?.bad === undefined
          ? { allowed: true }
          : {
              allowed: false,
              status: { code: 403, reason: 'Forbidden', message: 'data.bad is not allowed' },
            },
      );
      const refused = await kubectl(['create', 'configmap', 'c1', '--from-literal=bad=1']);
      assert.notEqual(refused.code, 0);
      assert.equal(
        refused.stderr,
        'error: failed to create configmap: admission webhook "deny.example.com" denied the request: data.bad is not allowed\n',
      );
      const fromFile = await kubectl(
        ['create', '-f', '-'],
        'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c1}\ndata: {bad: "1"}\n',
      );
      assert.notEqual(fromFile.code, 0);
      assert.match(
        fromFile.stderr,
        /Error from server \(Forbidden\): error when creating "STDIN": admission webhook "deny\.example\.com" denied the request: data\.bad is not allowed/,
      );
      const ok = await kubectl(['create', 'configmap', 'c2', '--from-literal=good=1']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.ok(server.get('configmaps', 'c2'));
    },
  );

  it('the AdmissionReview request carries every field kube-apiserver sends, and ?timeout=10s', async () => {
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('ValidatingWebhookConfiguration', 'look', [{ name: 'look.example.com' }]),
      ),
    );
    const res = await createCm('c3', { a: 'b' });
    assert.equal(res.code, 201, res.body);
    assert.equal(seen.length, 1);
    assert.equal(seen[0]?.query, '?timeout=10s');
    const review = seen[0]?.review as Review;
    assert.equal(review.apiVersion, 'admission.k8s.io/v1');
    assert.equal(review.kind, 'AdmissionReview');
    const r = review.request;
    assert.match(r.uid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(r.kind, { group: '', version: 'v1', kind: 'ConfigMap' });
    assert.deepEqual(r.resource, { group: '', version: 'v1', resource: 'configmaps' });
    assert.deepEqual(r.requestKind, r.kind);
    assert.deepEqual(r.requestResource, r.resource);
    assert.equal(r.name, 'c3');
    assert.equal(r.namespace, 'default');
    assert.equal(r.operation, 'CREATE');
    assert.equal(r.userInfo.username, 'system:anonymous');
    assert.equal(r.object.data.a, 'b');
    assert.equal(r.oldObject, null);
    assert.equal(r.dryRun, false);
    assert.deepEqual(r.options, { kind: 'CreateOptions', apiVersion: 'meta.k8s.io/v1' });
  });

  it('a mutating webhook JSON Patch is applied; its warnings become Warning headers and its audit annotations are kept', async () => {
    server.create(
      'mutatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('MutatingWebhookConfiguration', 'label', [{ name: 'label.example.com' }]),
      ),
    );
    handlers.set('/label.example.com', () => ({
      allowed: true,
      warnings: ['labelled by the webhook'],
      auditAnnotations: { reason: 'defaulted' },
      ...patch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]),
    }));
    const res = await createCm('c4', { a: 'b' });
    assert.equal(res.code, 201, res.body);
    assert.equal(res.json.metadata && (res.json.metadata as any).labels.mutated, 'yes');
    assert.equal(server.get('configmaps', 'c4')?.metadata?.labels?.mutated, 'yes');
    assert.match(String(res.headers.warning), /299 - "labelled by the webhook"/);
    assert.ok(
      server.auditAnnotations.some(
        (a) => a.key === 'label.example.com/reason' && a.value === 'defaulted' && a.name === 'c4',
      ),
    );
  });

  it(
    'a mutating webhook patch shows in kubectl output and managedFields go to the writer',
    { skip: skipKubectl },
    async () => {
      server.create(
        'mutatingwebhookconfigurations.admissionregistration.k8s.io',
        withCa(
          webhookConfig('MutatingWebhookConfiguration', 'label', [{ name: 'label.example.com' }]),
        ),
      );
      handlers.set('/label.example.com', () => ({
        allowed: true,
        warnings: ['labelled by the webhook'],
        ...patch([{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }]),
      }));
      const out = await kubectl(['create', 'configmap', 'c5', '--from-literal=a=b']);
      assert.equal(out.code, 0, out.stderr);
      assert.match(out.stderr, /Warning: labelled by the webhook/);
      const got = await kubectl([
        'get',
        'configmap',
        'c5',
        '-o',
        'jsonpath={.metadata.labels.mutated}',
      ]);
      assert.equal(got.stdout, 'yes');
    },
  );

  it('failurePolicy Fail answers 500 "failed calling webhook" when the webhook is down; Ignore lets the write through', async () => {
    const down = createServer({ key: certs.serverKey, cert: certs.serverCert });
    await new Promise<void>((r) => down.listen(0, '127.0.0.1', r));
    const port = (down.address() as AddressInfo).port;
    await new Promise<void>((r) => down.close(() => r()));
    server.registerService({ namespace: 'default', name: 'down' }, `https://127.0.0.1:${port}`);
    const config = withCa(
      webhookConfig('ValidatingWebhookConfiguration', 'down', [
        {
          name: 'down.example.com',
          clientConfig: { service: { namespace: 'default', name: 'down', path: '/validate' } },
        },
      ]),
    );
    server.create('validatingwebhookconfigurations.admissionregistration.k8s.io', config);
    const res = await createCm('c6', {});
    assert.equal(res.code, 500);
    assert.equal(res.json.reason, 'InternalError');
    assert.equal(
      res.json.message,
      `Internal error occurred: failed calling webhook "down.example.com": failed to call webhook: Post "https://down.default.svc:443/validate?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`,
    );
    assert.equal(server.get('configmaps', 'c6'), undefined);
    (config.webhooks as any[])[0].failurePolicy = 'Ignore';
    server.update('validatingwebhookconfigurations.admissionregistration.k8s.io', config);
    assert.equal((await createCm('c6', {})).code, 201);
  });

  it('a caBundle that did not sign the webhook certificate fails the call (x509: certificate signed by unknown authority)', async () => {
    const other = await generateTestCertificates();
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      webhookConfig('ValidatingWebhookConfiguration', 'ca', [
        {
          name: 'ca.example.com',
          clientConfig: {
            service: { namespace: 'default', name: 'hooks', path: '/ca' },
            caBundle: Buffer.from(other.caCert).toString('base64'),
          },
        },
      ]),
    );
    const res = await createCm('c7', {});
    assert.equal(res.code, 500);
    assert.match(String(res.json.message), /x509: certificate signed by unknown authority$/);
    assert.equal(seen.length, 0);
  });

  it('timeoutSeconds bounds the call: a webhook that never answers fails with context deadline exceeded', async () => {
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('ValidatingWebhookConfiguration', 'slow', [
          { name: 'slow.example.com', timeoutSeconds: 1 },
        ]),
      ),
    );
    handlers.set('/slow.example.com', () => 'hang');
    const res = await createCm('c8', {});
    assert.equal(res.code, 500);
    assert.match(
      String(res.json.message),
      /failed calling webhook "slow\.example\.com": failed to call webhook: Post "https:\/\/hooks\.default\.svc:443\/slow\.example\.com\?timeout=1s": context deadline exceeded$/,
    );
    assert.equal(seen[0]?.query, '?timeout=1s');
  });

  it('namespaceSelector and objectSelector choose which requests a webhook sees', async () => {
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('ValidatingWebhookConfiguration', 'sel', [
          {
            name: 'sel.example.com',
            namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'default' } },
            objectSelector: { matchExpressions: [{ key: 'guarded', operator: 'Exists' }] },
          },
        ]),
      ),
    );
    handlers.set('/sel.example.com', () => ({ allowed: false, status: { message: 'guarded' } }));
    assert.equal((await createCm('free', {})).code, 201);
    const res = await createCm('guarded', {}, { guarded: 'true' });
    assert.equal(res.code, 400, 'a denial without a code is a 400, as on v1.32');
    assert.equal(
      res.json.message,
      'admission webhook "sel.example.com" denied the request: guarded',
    );
    server.create('namespaces', { metadata: { name: 'other' } });
    const elsewhere = await raw(
      server.url,
      'POST',
      '/api/v1/namespaces/other/configmaps',
      JSON.stringify({ metadata: { name: 'g', labels: { guarded: 'x' } } }),
    );
    assert.equal(elsewhere.code, 201, 'the namespace selector excludes namespace other');
  });

  it('matchConditions (CEL) skip the webhook when one is false', async () => {
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('ValidatingWebhookConfiguration', 'cond', [
          {
            name: 'cond.example.com',
            matchConditions: [
              {
                name: 'only-prod',
                expression: "has(object.data) && 'env' in object.data && object.data.env == 'prod'",
              },
            ],
          },
        ]),
      ),
    );
    handlers.set('/cond.example.com', () => ({
      allowed: false,
      status: { code: 403, message: 'no prod' },
    }));
    assert.equal((await createCm('dev', { env: 'dev' })).code, 201);
    const res = await createCm('prod', { env: 'prod' });
    assert.equal(res.code, 403);
    assert.equal(seen.length, 1);
  });

  it(
    'dry-run: a webhook with sideEffects None is called with dryRun true; a v1 configuration with side effects is refused (422)',
    { skip: skipKubectl },
    async () => {
      server.create(
        'validatingwebhookconfigurations.admissionregistration.k8s.io',
        withCa(
          webhookConfig('ValidatingWebhookConfiguration', 'dry', [{ name: 'dry.example.com' }]),
        ),
      );
      const ok = await kubectl(['create', 'configmap', 'd1', '--dry-run=server', '-o', 'name']);
      assert.equal(ok.code, 0, ok.stderr);
      assert.equal(seen[0]?.review.request.dryRun, true);
      assert.deepEqual(seen[0]?.review.request.options.dryRun, ['All']);
      assert.equal(server.get('configmaps', 'd1'), undefined);
      // v1 allows only None and NoneOnDryRun: a webhook with side effects cannot be configured.
      const res = await raw(
        server.url,
        'POST',
        '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations',
        JSON.stringify(
          withCa(
            webhookConfig('ValidatingWebhookConfiguration', 'effects', [
              { name: 'effects.example.com', sideEffects: 'Some' },
            ]),
          ),
        ),
      );
      assert.equal(res.code, 422);
      assert.equal(
        res.json.message,
        'ValidatingWebhookConfiguration.admissionregistration.k8s.io "effects" is invalid: webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      );
    },
  );

  it('mutating webhooks run in configuration-name order; an IfNeeded webhook is called again when a later one changed the object', async () => {
    server.create(
      'mutatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('MutatingWebhookConfiguration', 'b-second', [{ name: 'second.example.com' }]),
      ),
    );
    server.create(
      'mutatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('MutatingWebhookConfiguration', 'a-first', [
          { name: 'first.example.com', reinvocationPolicy: 'IfNeeded' },
        ]),
      ),
    );
    handlers.set('/first.example.com', (r) => ({
      allowed: true,
      ...patch([
        { op: 'add', path: '/data/first', value: String(Object.keys(r.object.data ?? {}).length) },
      ]),
    }));
    handlers.set('/second.example.com', () => ({
      allowed: true,
      ...patch([{ op: 'add', path: '/data/second', value: 'x' }]),
    }));
    const res = await createCm('order', { a: 'b' });
    assert.equal(res.code, 201, res.body);
    assert.deepEqual(
      seen.map((s) => s.path),
      ['/first.example.com', '/second.example.com', '/first.example.com'],
    );
    assert.deepEqual((res.json as any).data, { a: 'b', first: '3', second: 'x' });
  });

  it('DELETE is sent with object null and oldObject set; a validating webhook can refuse it', async () => {
    assert.equal((await createCm('keep', { a: 'b' })).code, 201);
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('ValidatingWebhookConfiguration', 'del', [
          {
            name: 'del.example.com',
            rules: [
              {
                operations: ['DELETE'],
                apiGroups: [''],
                apiVersions: ['v1'],
                resources: ['configmaps'],
              },
            ],
          },
        ]),
      ),
    );
    handlers.set('/del.example.com', () => ({
      allowed: false,
      status: { code: 403, reason: 'Forbidden', message: 'kept' },
    }));
    const res = await raw(server.url, 'DELETE', '/api/v1/namespaces/default/configmaps/keep');
    assert.equal(res.code, 403);
    assert.equal(seen[0]?.review.request.operation, 'DELETE');
    assert.equal(seen[0]?.review.request.object, null);
    assert.equal(seen[0]?.review.request.oldObject.metadata.name, 'keep');
    assert.equal(seen[0]?.review.request.options.kind, 'DeleteOptions');
    assert.ok(server.get('configmaps', 'keep'));
  });

  it('webhook configurations themselves are never sent to webhooks', async () => {
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(
        webhookConfig('ValidatingWebhookConfiguration', 'all', [
          {
            name: 'all.example.com',
            rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }],
          },
        ]),
      ),
    );
    handlers.set('/all.example.com', () => ({ allowed: false }));
    const res = await raw(
      server.url,
      'DELETE',
      '/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/all',
    );
    assert.equal(res.code, 200, res.body);
    assert.equal(seen.length, 0);
  });

  it(
    'webhooks on a custom resource: rules on widgets, patch and denial through kubectl apply',
    { skip: skipKubectl },
    async () => {
      const rules = [
        {
          operations: ['CREATE', 'UPDATE'],
          apiGroups: ['example.com'],
          apiVersions: ['v1'],
          resources: ['widgets'],
        },
      ];
      server.create(
        'mutatingwebhookconfigurations.admissionregistration.k8s.io',
        withCa(
          webhookConfig('MutatingWebhookConfiguration', 'widgets', [
            { name: 'default-widget.example.com', rules },
          ]),
        ),
      );
      server.create(
        'validatingwebhookconfigurations.admissionregistration.k8s.io',
        withCa(
          webhookConfig('ValidatingWebhookConfiguration', 'widgets', [
            { name: 'validate-widget.example.com', rules },
          ]),
        ),
      );
      handlers.set('/default-widget.example.com', (r) =>
        r.object.spec?.color === undefined
          ? { allowed: true, ...patch([{ op: 'add', path: '/spec/color', value: 'blue' }]) }
          : { allowed: true },
      );
      handlers.set('/validate-widget.example.com', (r) =>
        r.object.spec.size > 10
          ? {
              allowed: false,
              status: { code: 403, reason: 'Forbidden', message: 'spec.size must be at most 10' },
            }
          : { allowed: true },
      );
      const widget = (size: number): string =>
        `apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w1, namespace: default}\nspec: {size: ${size}}\n`;
      await writeFile(join(dir, 'w.yaml'), widget(3));
      const ok = await kubectl(['apply', '-f', join(dir, 'w.yaml')]);
      assert.equal(ok.code, 0, ok.stderr);
      const color = await kubectl([
        'get',
        'widgets.example.com',
        'w1',
        '-o',
        'jsonpath={.spec.color}',
      ]);
      assert.equal(color.stdout, 'blue');
      await writeFile(join(dir, 'w.yaml'), widget(11));
      const refused = await kubectl(['apply', '-f', join(dir, 'w.yaml')]);
      assert.notEqual(refused.code, 0);
      assert.match(
        refused.stderr,
        /admission webhook "validate-widget\.example\.com" denied the request: spec\.size must be at most 10/,
      );
      assert.ok(
        seen.some(
          (s) => s.review.request.kind.kind === 'Widget' && s.review.request.operation === 'UPDATE',
        ),
      );
    },
  );

  it('an in-process handler stands in for a Service (no TLS, same semantics)', async () => {
    server.registerService({ namespace: 'default', name: 'local' }, (review) => {
      const request = review.request as Record<string, any>;
      return {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: {
          uid: request.uid,
          allowed: false,
          status: { code: 422, reason: 'Invalid', message: `no ${request.name}` },
        },
      };
    });
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      webhookConfig('ValidatingWebhookConfiguration', 'local', [
        {
          name: 'local.example.com',
          clientConfig: { service: { namespace: 'default', name: 'local', path: '/v' } },
        },
      ]),
    );
    const res = await createCm('inproc', {});
    assert.equal(res.code, 422);
    assert.equal(
      res.json.message,
      'admission webhook "local.example.com" denied the request: no inproc',
    );
  });

  it('a response with the wrong uid is an invalid response (500 under Fail)', async () => {
    server.create(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      withCa(webhookConfig('ValidatingWebhookConfiguration', 'uid', [{ name: 'uid.example.com' }])),
    );
    handlers.set('/uid.example.com', () => ({ uid: 'wrong', allowed: true }));
    const res = await createCm('u', {});
    assert.equal(res.code, 500);
    assert.match(
      String(res.json.message),
      /failed calling webhook "uid\.example\.com": received invalid webhook response: expected response\.uid="[0-9a-f-]+", got "wrong"$/,
    );
  });

  it('installWebhooks points service-based configurations at a base URL with the CA (the envtest pattern)', async () => {
    server.installWebhooks({
      baseUrl: hooksUrl,
      caBundle: certs.caCert,
      configurations: [
        webhookConfig('ValidatingWebhookConfiguration', 'installed', [
          {
            name: 'installed.example.com',
            clientConfig: {
              service: {
                namespace: 'system',
                name: 'webhook-service',
                path: '/validate-v1-configmap',
              },
            },
          },
        ]),
      ],
    });
    const stored = server.get<any>(
      'validatingwebhookconfigurations.admissionregistration.k8s.io',
      'installed',
    );
    assert.equal(stored.webhooks[0].clientConfig.url, `${hooksUrl}/validate-v1-configmap`);
    handlers.set('/validate-v1-configmap', () => ({
      allowed: false,
      status: { code: 403, message: 'installed' },
    }));
    const res = await createCm('inst', {});
    assert.equal(res.code, 403);
    assert.equal(seen[0]?.path, '/validate-v1-configmap');
  });
});
