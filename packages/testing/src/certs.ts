/**
 * Throwaway TLS material for the test API server, minted at run time with the machine's
 * `openssl` in a temporary directory that is removed before this returns. Nothing is
 * committed and nothing outlives the process.
 *
 * @module
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeControllerKitError } from 'kube-controller-kit';

/** PEM-encoded certificates and keys for a server and one client, signed by one CA. */
export interface TestCertificates {
  /** The CA certificate (trust anchor for both sides). */
  caCert: string;
  /** The server certificate (SANs: 127.0.0.1, localhost and any `serverNames` asked). */
  serverCert: string;
  /** The server's private key. */
  serverKey: string;
  /** A client certificate (CN `test-user`, O `system:masters`). */
  clientCert: string;
  /** The client's private key. */
  clientKey: string;
}

/** What to mint. */
export interface TestCertificateOptions {
  /**
   * DNS names the server certificate is also valid for, beyond `127.0.0.1` and
   * `localhost` (e.g. `webhook.default.svc` for a webhook server reached as a Service).
   */
  serverNames?: string[];
}

/** `openssl` failed or is missing. */
export class CertificateGenerationError extends KubeControllerKitError {}

function run(cwd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('openssl', args, { cwd }, (err, _stdout, stderr) => {
      if (err) {
        reject(
          new CertificateGenerationError(
            `openssl ${args[0] ?? ''} failed while minting test certificates: ${stderr || err.message}; install openssl or run the test server without TLS`,
            { cause: err },
          ),
        );
      } else resolve();
    });
  });
}

/** Mints a CA, a server certificate and a client certificate with openssl. */
export async function generateTestCertificates(
  options: TestCertificateOptions = {},
): Promise<TestCertificates> {
  const names = ['localhost', ...(options.serverNames ?? [])];
  for (const n of names) {
    if (!/^[A-Za-z0-9*]([A-Za-z0-9.*-]*[A-Za-z0-9])?$/.test(n)) {
      throw new CertificateGenerationError(
        `not a DNS name for a test certificate: ${JSON.stringify(n)}`,
      );
    }
  }
  const dir = await mkdtemp(join(tmpdir(), 'kck-certs-'));
  try {
    const days = ['-days', '2'];
    await run(dir, [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
      '-subj',
      '/CN=kube-controller-kit-test-ca',
      ...days,
    ]);
    await writeFile(
      join(dir, 'server.ext'),
      `subjectAltName=IP:127.0.0.1,${names.map((n) => `DNS:${n}`).join(',')}\nextendedKeyUsage=serverAuth\n`,
    );
    await writeFile(join(dir, 'client.ext'), 'extendedKeyUsage=clientAuth\n');
    for (const [who, subj] of [
      ['server', '/CN=127.0.0.1'],
      ['client', '/CN=test-user/O=system:masters'],
    ] as const) {
      await run(dir, [
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        `${who}.key`,
        '-out',
        `${who}.csr`,
        '-subj',
        subj,
      ]);
      await run(dir, [
        'x509',
        '-req',
        '-in',
        `${who}.csr`,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${who}.crt`,
        '-extfile',
        `${who}.ext`,
        ...days,
      ]);
    }
    const read = (f: string): Promise<string> => readFile(join(dir, f), 'utf8');
    return {
      caCert: await read('ca.crt'),
      serverCert: await read('server.crt'),
      serverKey: await read('server.key'),
      clientCert: await read('client.crt'),
      clientKey: await read('client.key'),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
