// certificates.k8s.io/v1 CertificateSigningRequests, as kube-apiserver serves them:
// discovery (short name csr, a status subresource), status reset on create, the
// validation of pkg/apis/certificates/validation (a PEM CERTIFICATE REQUEST, a signerName,
// usages, expirationSeconds of at least 600), and the printer columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const CSR = '/apis/certificates.k8s.io/v1/certificatesigningrequests';
const PEM = Buffer.from(
  '-----BEGIN CERTIFICATE REQUEST-----\nMIIBAA==\n-----END CERTIFICATE REQUEST-----\n',
).toString('base64');

describe('certificates.k8s.io/v1 certificatesigningrequests', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists certificatesigningrequests (csr), cluster-scoped, with status', async () => {
    const r = await h.resource('certificates.k8s.io/v1', 'certificatesigningrequests');
    assert.deepEqual([r?.namespaced, r?.shortNames], [false, ['csr']]);
    assert.ok(await h.resource('certificates.k8s.io/v1', 'certificatesigningrequests/status'));
  });

  it('rule: a request that is no PEM CERTIFICATE REQUEST, without signerName or usages, is refused', async () => {
    const bad = await h.send('POST', CSR, {
      metadata: { name: 'bad' },
      spec: { request: '', expirationSeconds: 60 },
    });
    assert.equal(bad.code, 422);
    assert.deepEqual(causes(bad), [
      'spec.request: Invalid value: "": PEM block type must be CERTIFICATE REQUEST',
      'spec.signerName: Required value',
      'spec.usages: Required value',
      'spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 600 seconds (10 minutes)',
    ]);
  });

  it('rule: status is dropped on create and written through /status; the Condition column follows it', async () => {
    const created = await h.send('POST', CSR, {
      metadata: { name: 'node-csr' },
      spec: {
        request: PEM,
        signerName: 'kubernetes.io/kube-apiserver-client',
        usages: ['client auth'],
        expirationSeconds: 86400,
        username: 'alice',
      },
      status: { conditions: [{ type: 'Approved', status: 'True' }] },
    });
    assert.equal(created.code, 201, created.body);
    assert.equal(created.json.status, undefined);
    await h.clock.advance(60_000);
    let t = await h.table(CSR);
    assert.deepEqual(t.columns, [
      'Name',
      'Age',
      'SignerName',
      'Requestor',
      'RequestedDuration',
      'Condition',
    ]);
    assert.deepEqual(t.rows, [
      ['node-csr', '60s', 'kubernetes.io/kube-apiserver-client', 'alice', '24h', 'Pending'],
    ]);
    const status = await h.send(
      'PATCH',
      `${CSR}/node-csr/status`,
      {
        status: {
          conditions: [
            {
              type: 'Approved',
              status: 'True',
              reason: 'AutoApproved',
              lastUpdateTime: '2026-01-01T00:00:00Z',
            },
          ],
          certificate: PEM,
        },
      },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
    t = await h.table(CSR);
    assert.equal(t.rows[0]?.[5], 'Approved,Issued');
  });

  it('kubectl get csr prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'csr');
    assert.match(out, /^NAME\s+AGE\s+SIGNERNAME\s+REQUESTOR\s+REQUESTEDDURATION\s+CONDITION\n/);
    assert.match(
      out,
      /\nnode-csr\s+60s\s+kubernetes\.io\/kube-apiserver-client\s+alice\s+24h\s+Approved,Issued\n/,
    );
  });
});
