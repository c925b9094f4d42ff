// Development certificates (names in subjectAltName, SHA-256, signed by the CA), the
// generated webhook configurations and CRD conversion, and the JSON Patch generator.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import {
  WebhookServer,
  createJsonPatch,
  crdConversion,
  generateCertificateAuthority,
  webhookConfigurations,
} from '../../src/webhook/index.js';
import { noopLogger } from '../../src/util/logger.js';

describe('development certificates', () => {
  const ca = generateCertificateAuthority({ commonName: 'test-ca', now: Date.UTC(2026, 0, 1) });
  const leaf = ca.issue({
    dnsNames: ['webhook-service.system.svc', 'localhost'],
    ipAddresses: ['127.0.0.1', '::1'],
    now: Date.UTC(2026, 0, 1),
    validityDays: 30,
  });

  test('the serving certificate names its hosts in subjectAltName (DNS and IP), not only the CN', () => {
    const cert = new X509Certificate(leaf.cert);
    assert.equal(
      cert.subjectAltName,
      'DNS:webhook-service.system.svc, DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1',
    );
    assert.equal(cert.checkHost('webhook-service.system.svc'), 'webhook-service.system.svc');
    assert.equal(cert.checkIP('127.0.0.1'), '127.0.0.1');
    assert.equal(cert.ca, false);
    assert.deepEqual(cert.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  });

  test('it is signed by the CA with ECDSA SHA-256 valid from an hour before now for the asked days', () => {
    const cert = new X509Certificate(leaf.cert);
    const caCert = new X509Certificate(ca.cert);
    assert.ok(caCert.ca);
    assert.ok(cert.checkIssued(caCert));
    assert.ok(cert.verify(caCert.publicKey));
    assert.equal(new Date(cert.validFrom).toISOString(), '2025-12-31T23:00:00.000Z');
    assert.equal(new Date(cert.validTo).toISOString(), '2026-01-31T00:00:00.000Z');
    let text = '';
    try {
      text = execFileSync('openssl', ['x509', '-noout', '-text'], { input: leaf.cert }).toString();
    } catch {
      return; // no openssl binary: the checks above stand
    }
    assert.match(text, /Signature Algorithm: ecdsa-with-SHA256/);
  });

  test('a certificate without any name is refused', () => {
    assert.throws(() => ca.issue({}), /at least one DNS name or IP address/);
  });

  test('caBundle is base64 of the PEM', () => {
    assert.equal(Buffer.from(ca.caBundle, 'base64').toString(), ca.cert);
  });
});

describe('generated configurations', () => {
  const server = new WebhookServer({ logger: noopLogger });
  const target = {
    group: 'apps.example.com',
    version: 'v1',
    kind: 'Application',
    resource: 'applications',
  };
  server.registerFor(target, {
    defaulter: { default: () => undefined },
    validator: { validateCreate: () => undefined, validateDelete: () => undefined },
    failurePolicy: 'Fail',
  });

  test('by URL: one mutating and one validating configuration, paths by convention, caBundle', () => {
    const { mutating, validating } = webhookConfigurations(server, {
      endpoint: { url: 'https://127.0.0.1:9443/' },
      caBundle: 'Q0E=',
      name: 'app-operator',
    });
    assert.equal(mutating?.kind, 'MutatingWebhookConfiguration');
    assert.equal(mutating?.metadata.name, 'app-operator-mutating');
    assert.deepEqual(mutating?.webhooks[0], {
      name: 'mapplication-v1.kb.io',
      clientConfig: {
        url: 'https://127.0.0.1:9443/mutate-apps-example-com-v1-application',
        caBundle: 'Q0E=',
      },
      rules: [
        {
          operations: ['CREATE', 'UPDATE'],
          apiGroups: ['apps.example.com'],
          apiVersions: ['v1'],
          resources: ['applications'],
          scope: '*',
        },
      ],
      failurePolicy: 'Fail',
      sideEffects: 'None',
      timeoutSeconds: 10,
      admissionReviewVersions: ['v1'],
      matchPolicy: 'Equivalent',
      reinvocationPolicy: 'Never',
    });
    assert.equal(validating?.webhooks[0]?.name, 'vapplication-v1.kb.io');
    assert.deepEqual(validating?.webhooks[0]?.rules[0]?.operations, ['CREATE', 'UPDATE', 'DELETE']);
  });

  test('by Service: service reference with port 443 and the path', () => {
    const { validating } = webhookConfigurations(server, {
      endpoint: { service: { namespace: 'system', name: 'webhook-service' } },
    });
    assert.deepEqual(validating?.webhooks[0]?.clientConfig, {
      service: {
        port: 443,
        namespace: 'system',
        name: 'webhook-service',
        path: '/validate-apps-example-com-v1-application',
      },
    });
  });

  test('a server with no mutating webhook gets no mutating configuration', () => {
    const only = new WebhookServer({ logger: noopLogger });
    only.registerFor(target, { validator: {} });
    assert.equal(
      webhookConfigurations(only, { endpoint: { url: 'https://x' } }).mutating,
      undefined,
    );
  });

  test("a CRD's spec.conversion points at /convert", () => {
    assert.deepEqual(
      crdConversion({ endpoint: { url: 'https://127.0.0.1:9443' }, caBundle: 'Q0E=' }),
      {
        strategy: 'Webhook',
        webhook: {
          clientConfig: { url: 'https://127.0.0.1:9443/convert', caBundle: 'Q0E=' },
          conversionReviewVersions: ['v1'],
        },
      },
    );
  });

  test('timeoutSeconds outside 1..30 is refused', () => {
    assert.throws(
      () =>
        server.registerAdmission({
          type: 'validating',
          name: 'x.kb.io',
          path: '/x',
          rules: [],
          handler: () => ({ allowed: true }),
          timeoutSeconds: 31,
        }),
      /between 1 and 30/,
    );
  });
});

describe('JSON Patch', () => {
  test('fields added, replaced and removed; pointer tokens escaped', () => {
    assert.deepEqual(
      createJsonPatch({ a: 1, b: { c: 2 }, 'x/y': 1, 'm~n': 1 }, { a: 2, b: {}, 'x/y': 2 }),
      [
        { op: 'remove', path: '/m~0n' },
        { op: 'replace', path: '/a', value: 2 },
        { op: 'remove', path: '/b/c' },
        { op: 'replace', path: '/x~1y', value: 2 },
      ],
    );
  });

  test('arrays: changed items by index, growth appended, shrinking removed from the end', () => {
    assert.deepEqual(createJsonPatch({ l: [1, 2, 3] }, { l: [1, 5] }), [
      { op: 'replace', path: '/l/1', value: 5 },
      { op: 'remove', path: '/l/2' },
    ]);
    assert.deepEqual(createJsonPatch({ l: [1] }, { l: [1, 2, 3] }), [
      { op: 'add', path: '/l/1', value: 2 },
      { op: 'add', path: '/l/2', value: 3 },
    ]);
  });

  test('undefined fields count as absent; equal documents give no operation', () => {
    assert.deepEqual(createJsonPatch({ a: 1 }, { a: 1, b: undefined }), []);
  });
});
