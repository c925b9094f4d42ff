// The application operator's secured metrics (--metrics-secure) with its deploy/ manifests,
// on the in-memory API server in RBAC mode: the operator runs as its ServiceAccount with
// deploy/rbac.yaml and deploy/metrics.yaml (system:auth-delegator, so it may ask who is
// scraping); Prometheus' ServiceAccount from deploy/metrics.yaml scrapes /metrics over
// HTTPS (200), another ServiceAccount's token is refused (403), no token is 401.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateTestCertificates, startTestApiServer } from '../../packages/testing/src/index.js';
import { readManifests } from '../../src/program/index.js';
import type {
  ResourceRef,
  TestApiServer,
  TestCertificates,
} from '../../packages/testing/src/index.js';
import { runOperator } from '../../examples/application-operator/src/operator.js';
import { eventually } from '../support/eventually.js';
import { examplePath, installApplicationCrd } from './support.js';

const REFS: Record<string, ResourceRef> = {
  ServiceAccount: 'serviceaccounts',
  ClusterRole: { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
  Role: { group: 'rbac.authorization.k8s.io', resource: 'roles' },
  RoleBinding: { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
};

function scrape(
  port: number,
  ca: string,
  token?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        ca,
        agent: false,
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('application-operator: --metrics-secure with deploy/metrics.yaml', () => {
  let server: TestApiServer;
  let certs: TestCertificates;
  let dir: string;
  let port = 0;
  const stop = new AbortController();
  let running: Promise<void>;

  before(async () => {
    server = await startTestApiServer({
      authorization: 'RBAC',
      namespaces: ['default', 'application-operator'],
    });
    await installApplicationCrd(server);
    for (const file of ['deploy/rbac.yaml', 'deploy/metrics.yaml']) {
      for (const doc of await readManifests(examplePath(`application-operator/${file}`))) {
        const ref = REFS[doc.kind ?? ''];
        if (ref !== undefined) server.create(ref, doc);
      }
    }
    const operator = server.addUser({
      serviceAccount: { namespace: 'application-operator', name: 'application-operator' },
      create: false,
    });
    certs = await generateTestCertificates();
    dir = await mkdtemp(join(tmpdir(), 'kck-operator-metrics-'));
    await writeFile(join(dir, 'tls.crt'), certs.serverCert);
    await writeFile(join(dir, 'tls.key'), certs.serverKey);
    running = runOperator(operator.kubeConfig(), stop.signal, {
      metricsBindAddress: '127.0.0.1:0',
      metricsSecure: { certPath: dir },
      onServing: (a) => {
        port = Number(a.metrics?.split(':').pop());
      },
    });
    await eventually('the metrics server', () => port > 0);
  });
  after(async () => {
    stop.abort();
    await running;
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("Prometheus' ServiceAccount (metrics-reader) scrapes 200; another token 403; none 401", async () => {
    const prometheus = server.addUser({
      serviceAccount: { namespace: 'application-operator', name: 'prometheus' },
      create: false,
    }).token;
    const ok = await scrape(port, certs.caCert, prometheus);
    assert.equal(ok.status, 200, ok.body);
    const other = server.addUser({
      serviceAccount: { namespace: 'default', name: 'intruder' },
    }).token;
    const denied = await scrape(port, certs.caCert, other);
    assert.deepEqual(
      [denied.status, denied.body],
      [403, 'Authorization denied for user system:serviceaccount:default:intruder\n'],
    );
    const none = await scrape(port, certs.caCert);
    assert.deepEqual([none.status, none.body], [401, 'Unauthorized\n']);
  });
});
