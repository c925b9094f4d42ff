// The webhook server's TLS: certificate rotation picked up without a restart (the cert
// watcher's poll on the fake clock, or its file event), mTLS with a client CA, TLS 1.2 or
// later, HTTP/2 only when asked, the StartedChecker, and start failing without a certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'node:https';
import { connect } from 'node:tls';
import type { PeerCertificate } from 'node:tls';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import {
  CertWatcher,
  WebhookError,
  WebhookServer,
  allowed,
  generateCertificateAuthority,
  writeCertificateFiles,
} from '../../src/webhook/index.js';
import type { CertificateKeyPair } from '../../src/webhook/index.js';
import type { Harness } from './support.js';
import { makeCertDir, post, review, sample, startServer } from './support.js';

function handshake(
  port: number,
  options: {
    ca?: string;
    client?: CertificateKeyPair;
    alpn?: string[];
    maxVersion?: 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  } = {},
): Promise<{ peer: PeerCertificate; alpn: string | false; protocol: string | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect({
      host: '127.0.0.1',
      port,
      servername: 'localhost',
      rejectUnauthorized: options.ca !== undefined,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.client ? { cert: options.client.cert, key: options.client.key } : {}),
      ...(options.alpn ? { ALPNProtocols: options.alpn } : {}),
      ...(options.maxVersion
        ? { maxVersion: options.maxVersion, minVersion: 'TLSv1' as const }
        : {}),
    });
    socket.once('secureConnect', () => {
      const result = {
        peer: socket.getPeerCertificate(),
        alpn: socket.alpnProtocol ?? false,
        protocol: socket.getProtocol(),
      };
      socket.destroy();
      resolve(result);
    });
    socket.once('error', (err: Error) => {
      socket.destroy();
      reject(err);
    });
  });
}

function fingerprint(pem: string): string {
  return new X509Certificate(pem).fingerprint256;
}

const raw = (server: WebhookServer): void => {
  server.registerAdmission({
    type: 'validating',
    name: 'raw.example.com',
    path: '/raw',
    rules: [],
    handler: () => allowed(),
  });
};

describe('certificate rotation', () => {
  let h: Harness;
  before(async () => {
    h = await startServer(raw);
  });
  after(async () => {
    await h.stop();
  });

  test('a rotated certificate is served without a restart (poll on the clock or file event)', async () => {
    const first = (await handshake(h.port())).peer.fingerprint256;
    assert.equal(first, fingerprint(h.server.certWatcher?.current?.cert ?? ''));

    const newCa = generateCertificateAuthority({ commonName: 'rotated-ca' });
    const next = newCa.issue({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] });
    const reloaded = new Promise<void>((resolve) => {
      const off = h.server.certWatcher?.onChange((pair) => {
        if (pair.cert === next.cert) {
          off?.();
          resolve();
        }
      });
    });
    await writeCertificateFiles(h.certDir, next);
    await h.clock.advance(10_000); // the 10 s poll, in case the file event is lost
    await reloaded;

    const after = await handshake(h.port(), { ca: newCa.cert });
    assert.equal(after.peer.fingerprint256, fingerprint(next.cert));
    const answer = await post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), {
      ca: newCa.cert,
    });
    assert.equal(answer.status, 200, 'requests are served with the new certificate');
    assert.ok(((await sample(h.registry, 'certwatcher_read_certificate_total')) ?? 0) >= 2);
  });

  test('a broken certificate file counts an error and the last good certificate stays', async () => {
    const current = h.server.certWatcher?.current?.cert ?? '';
    const errorsBefore =
      (await sample(h.registry, 'certwatcher_read_certificate_errors_total')) ?? 0;
    await writeFile(join(h.certDir, 'tls.crt'), 'not a certificate');
    await assert.rejects(
      h.server.certWatcher?.readCertificate() ?? Promise.resolve(),
      WebhookError,
    );
    assert.ok(
      ((await sample(h.registry, 'certwatcher_read_certificate_errors_total')) ?? 0) > errorsBefore,
    );
    assert.equal(h.server.certWatcher?.current?.cert, current);
    assert.equal((await handshake(h.port())).peer.fingerprint256, fingerprint(current));
  });
});

describe('mTLS with a client CA', () => {
  let h: Harness;
  const clientCa = generateCertificateAuthority({ commonName: 'clients' });
  before(async () => {
    const { dir, ca } = await makeCertDir();
    await writeFile(join(dir, 'client-ca.crt'), clientCa.cert);
    h = await startServer(raw, { certDir: dir, ca, clientCAName: 'client-ca.crt' });
    after(() => rm(dir, { recursive: true, force: true }));
  });
  after(async () => {
    await h.stop();
  });

  test('a client with a certificate from the client CA is served', async () => {
    const client = clientCa.issue({ dnsNames: ['kube-apiserver'], usages: ['client'] });
    const answer = await post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), {
      ca: h.ca.cert,
      client,
    });
    assert.equal(answer.status, 200);
  });

  test('a client without a certificate, or with one from another CA, is refused', async () => {
    await assert.rejects(
      post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), { ca: h.ca.cert }),
    );
    const stranger = generateCertificateAuthority().issue({ dnsNames: ['x'], usages: ['client'] });
    await assert.rejects(
      post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), {
        ca: h.ca.cert,
        client: stranger,
      }),
    );
  });
});

describe('protocol', () => {
  let h: Harness;
  before(async () => {
    h = await startServer(raw);
  });
  after(async () => {
    await h.stop();
  });

  test('TLS below 1.2 is refused', async () => {
    await assert.rejects(handshake(h.port(), { maxVersion: 'TLSv1.1' }));
    assert.match((await handshake(h.port(), { maxVersion: 'TLSv1.2' })).protocol ?? '', /TLSv1\.2/);
  });

  test('HTTP/2 is off unless asked: ALPN never picks h2', async () => {
    const result = await handshake(h.port(), { alpn: ['h2', 'http/1.1'] });
    assert.equal(result.alpn, 'http/1.1');
  });

  test('keep-alive outlasts the API server idle timeout (90 s): the server offers 120 s', async () => {
    const agent = new Agent({ keepAlive: true });
    try {
      const answer = await post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), {
        ca: h.ca.cert,
        agent,
      });
      assert.equal(answer.headers['keep-alive'], 'timeout=120');
    } finally {
      agent.destroy();
    }
  });

  test('StartedChecker completes a TLS handshake once started', async () => {
    await h.server.startedChecker()();
  });
});

test('HTTP/2 when enableHTTP2: ALPN picks h2', async () => {
  const h = await startServer(raw, { enableHTTP2: true });
  try {
    assert.equal((await handshake(h.port(), { alpn: ['h2', 'http/1.1'] })).alpn, 'h2');
    const answer = await post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), {
      ca: h.ca.cert,
    });
    assert.equal(answer.status, 200, 'HTTP/1.1 clients are still served');
  } finally {
    await h.stop();
  }
});

test('StartedChecker fails before start; start fails without a certificate', async () => {
  const { dir } = await makeCertDir();
  await rm(join(dir, 'tls.crt'));
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    certDir: dir,
    logger: noopLogger,
  });
  await assert.rejects(server.startedChecker()(), /webhook server has not been started yet/);
  const controller = new AbortController();
  await assert.rejects(server.start(controller.signal), WebhookError);
  await assert.rejects(server.started(), WebhookError);
  await rm(dir, { recursive: true, force: true });
});

test('a negative port disables the server; its checker passes', async () => {
  const server = new WebhookServer({ port: -1, logger: noopLogger });
  const controller = new AbortController();
  const running = server.start(controller.signal);
  await server.started();
  await server.startedChecker()();
  controller.abort();
  await running;
});

test('registering a path twice is refused', () => {
  const server = new WebhookServer({ logger: noopLogger });
  raw(server);
  assert.throws(() => raw(server), /can't register duplicate path: \/raw/);
});

test('a Secret volume update (the ..data symlink swapped) is picked up', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'kck-secret-volume-'));
  const ca = generateCertificateAuthority();
  // kubelet's layout: tls.crt -> ..data/tls.crt, ..data -> ..<timestamp>/
  const publish = async (generation: string, pair: CertificateKeyPair): Promise<void> => {
    await mkdir(join(dir, generation));
    await writeFile(join(dir, generation, 'tls.crt'), pair.cert);
    await writeFile(join(dir, generation, 'tls.key'), pair.key);
    await symlink(generation, join(dir, '..data_tmp'));
    await rename(join(dir, '..data_tmp'), join(dir, '..data'));
  };
  const first = ca.issue({ dnsNames: ['localhost'] });
  await publish('..2026_01_01_00_00_00.1', first);
  await symlink('..data/tls.crt', join(dir, 'tls.crt'));
  await symlink('..data/tls.key', join(dir, 'tls.key'));
  const clock = new FakeClock();
  const watcher = new CertWatcher({
    certPath: join(dir, 'tls.crt'),
    keyPath: join(dir, 'tls.key'),
    clock,
    logger: noopLogger,
  });
  assert.equal(await watcher.readCertificate(), true);
  assert.equal(watcher.current?.cert, first.cert);
  const stop = new AbortController();
  const watching = watcher.start(stop.signal);
  try {
    const second = ca.issue({ dnsNames: ['localhost'] });
    const changed = new Promise<void>((resolve) => {
      watcher.onChange((pair) => {
        if (pair.cert === second.cert) resolve();
      });
    });
    await publish('..2026_01_01_00_00_00.2', second);
    await clock.advance(10_000); // the poll, should the directory event be lost
    await changed;
    assert.equal(watcher.current?.key, second.key);
    assert.equal(await watcher.readCertificate(), false, 'the same files again: no change');
  } finally {
    stop.abort();
    await watching;
    await rm(dir, { recursive: true, force: true });
  }
});

test('listening on every address, the checker dials the loopback; a stopped server starts again', async () => {
  const { dir } = await makeCertDir();
  const server = new WebhookServer({ port: 0, certDir: dir, logger: noopLogger });
  raw(server);
  try {
    for (let run = 0; run < 2; run++) {
      const controller = new AbortController();
      const running = server.start(controller.signal);
      await server.started();
      assert.equal(server.address?.host, '127.0.0.1');
      await server.startedChecker()();
      controller.abort();
      await running;
      await assert.rejects(server.startedChecker()(), /has not been started yet/);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('stopping: an idle keep-alive connection is closed at once, a request in flight is answered first', async () => {
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let entered: () => void = () => undefined;
  const inHandler = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const h = await startServer((server) => {
    server.registerAdmission({
      type: 'validating',
      name: 'slow.example.com',
      path: '/slow',
      rules: [],
      handler: async () => {
        entered();
        await gate;
        return allowed();
      },
    });
    raw(server);
  });
  const agent = new Agent({ keepAlive: true });
  try {
    // An idle kept-alive connection.
    await post(h.port(), '/raw', review({ operation: 'CREATE', object: {} }), {
      ca: h.ca.cert,
      agent,
    });
    // A request in flight.
    const slow = post(h.port(), '/slow', review({ operation: 'CREATE', object: {} }), {
      ca: h.ca.cert,
    });
    await inHandler;
    assert.equal(
      await sample(h.registry, 'controller_runtime_webhook_requests_in_flight', {
        webhook: '/slow',
      }),
      1,
    );
    const stopped = h.stop();
    release();
    const answer = await slow;
    assert.equal(answer.status, 200);
    await stopped; // settles without the 60 s deadline: every connection closed
    assert.equal(h.server.address, undefined);
  } finally {
    agent.destroy();
  }
});
