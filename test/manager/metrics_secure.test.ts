// The Manager's secured metrics endpoint (`metricsSecure`, kubebuilder's --metrics-secure)
// against the in-memory API server in RBAC mode: HTTPS with the certificate from its
// directory (reloaded when it changes); a scraper's token is authenticated by TokenReview
// and authorized by SubjectAccessReview (`get` on /metrics): a Prometheus ServiceAccount
// bound to a metrics-reader ClusterRole gets 200, another token 403, no token 401, with
// controller-runtime's texts; decisions are cached for a while.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { connect as tlsConnect } from 'node:tls';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { eventually } from '../support/eventually.js';
import { Manager } from '../../src/manager/index.js';
import { generateTestCertificates, startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer, TestCertificates } from '../../packages/testing/src/index.js';

const rbac = (resource: string): { group: string; resource: string } => ({
  group: 'rbac.authorization.k8s.io',
  resource,
});

function scrape(
  port: number,
  ca: string | undefined,
  token?: string,
): Promise<{ status: number; body: string; peerCert: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/metrics',
        ...(ca === undefined ? { rejectUnauthorized: false } : { ca }),
        agent: false,
        headers: token === undefined ? {} : { Authorization: `Bearer ${token}` },
      },
      (res) => {
        let body = '';
        const peerCert = (res.socket as TLSSocket).getPeerCertificate().fingerprint256;
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body, peerCert }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('secured metrics (metricsSecure)', () => {
  let server: TestApiServer;
  let certs: TestCertificates;
  let dir: string;
  let manager: Manager;
  const stop = new AbortController();
  let running: Promise<void>;
  let prometheus: string;
  let other: string;

  before(async () => {
    server = await startTestApiServer({
      authorization: 'RBAC',
      namespaces: ['default', 'system', 'monitoring'],
    });
    // The operator may ask the API server about callers (kubebuilder's metrics-auth-role).
    const operator = server.addUser({ serviceAccount: { namespace: 'system', name: 'operator' } });
    server.create(rbac('clusterrolebindings'), {
      metadata: { name: 'operator-auth-delegator' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'system:auth-delegator',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: 'system' }],
    });
    // Prometheus may read /metrics (kubebuilder's metrics-reader).
    server.create(rbac('clusterroles'), {
      metadata: { name: 'metrics-reader' },
      rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
    });
    server.create(rbac('clusterrolebindings'), {
      metadata: { name: 'prometheus-metrics-reader' },
      roleRef: {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'metrics-reader',
      },
      subjects: [{ kind: 'ServiceAccount', name: 'prometheus', namespace: 'monitoring' }],
    });
    prometheus = server.addUser({
      serviceAccount: { namespace: 'monitoring', name: 'prometheus' },
    }).token;
    other = server.addUser({ serviceAccount: { namespace: 'default', name: 'someone' } }).token;

    certs = await generateTestCertificates();
    dir = await mkdtemp(join(tmpdir(), 'kck-metrics-certs-'));
    await writeFile(join(dir, 'tls.crt'), certs.serverCert);
    await writeFile(join(dir, 'tls.key'), certs.serverKey);
    manager = new Manager({
      kubeConfig: operator.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '127.0.0.1:0',
      metricsRegistry: { metrics: () => 'up 1\n', contentType: 'text/plain; version=0.0.4' },
      metricsSecure: { certPath: dir },
    });
    running = manager.start(stop.signal);
    await manager.serving();
  });
  after(async () => {
    stop.abort();
    await running;
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("the metrics-reader's token is served (200) over HTTPS", async () => {
    const res = await scrape(manager.metricsAddress!.port, certs.caCert, prometheus);
    assert.deepEqual([res.status, res.body], [200, 'up 1\n']);
  });

  it('another token is 403 and no token 401, worded as controller-runtime answers', async () => {
    const port = manager.metricsAddress!.port;
    const denied = await scrape(port, certs.caCert, other);
    assert.deepEqual(
      [denied.status, denied.body],
      [403, 'Authorization denied for user system:serviceaccount:default:someone\n'],
    );
    const none = await scrape(port, certs.caCert);
    assert.deepEqual([none.status, none.body], [401, 'Unauthorized\n']);
    const bad = await scrape(port, certs.caCert, 'not-a-token');
    assert.deepEqual([bad.status, bad.body], [401, 'Unauthorized\n']);
  });

  it('decisions are cached: a repeated scrape asks the API server nothing', async () => {
    const port = manager.metricsAddress!.port;
    await scrape(port, certs.caCert, prometheus);
    server.clearRequests();
    await scrape(port, certs.caCert, prometheus);
    assert.deepEqual(
      server.requests.filter(
        (r) => r.resource === 'tokenreviews' || r.resource === 'subjectaccessreviews',
      ),
      [],
    );
  });

  it('a new certificate in the directory is served from the next connection on', async () => {
    const port = manager.metricsAddress!.port;
    const before = (await scrape(port, undefined, prometheus)).peerCert;
    const renewed = await generateTestCertificates();
    await writeFile(join(dir, 'tls.key'), renewed.serverKey);
    await writeFile(join(dir, 'tls.crt'), renewed.serverCert);
    await eventually('the renewed certificate', async () => {
      const now = await scrape(port, undefined, prometheus);
      return now.peerCert !== before && now.status === 200;
    });
    const res = await scrape(port, renewed.caCert, prometheus);
    assert.equal(res.status, 200);
  });
});

describe('secured metrics without a certificate directory', () => {
  it('serves HTTPS with a self-signed certificate for localhost and 127.0.0.1 (controller-runtime without CertDir), still asking who calls', async () => {
    const server = await startTestApiServer({ authorization: 'RBAC' });
    const stop = new AbortController();
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '127.0.0.1:0',
      metricsRegistry: { metrics: () => 'up 1\n', contentType: 'text/plain; version=0.0.4' },
      metricsSecure: {},
    });
    const running = manager.start(stop.signal);
    try {
      await manager.serving();
      const port = manager.metricsAddress!.port;
      const res = await scrape(port, undefined);
      assert.equal(res.status, 401, 'no token: 401 over the self-signed HTTPS server');
      const cert = await new Promise<PeerCertificate>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
          resolve(socket.getPeerCertificate());
          socket.end();
        });
        socket.on('error', reject);
      });
      assert.match(cert.subjectaltname ?? '', /DNS:localhost/);
      assert.match(cert.subjectaltname ?? '', /IP Address:127\.0\.0\.1/);
    } finally {
      stop.abort();
      await running;
      await server.close();
    }
  });
});
