// Shared helpers of the webhook server tests: a CA and serving certificate in a fresh cert
// dir, a server on 127.0.0.1:0 driven by a FakeClock, and an HTTPS client that trusts the CA.
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import type { Agent } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { PrometheusWebhookMetricsProvider } from '../../src/metrics/index.js';
import {
  WebhookServer,
  generateCertificateAuthority,
  writeCertificateFiles,
} from '../../src/webhook/index.js';
import type {
  AdmissionRequest,
  CertificateAuthority,
  CertificateKeyPair,
  WebhookServerOptions,
} from '../../src/webhook/index.js';

export interface Harness {
  server: WebhookServer;
  ca: CertificateAuthority;
  certDir: string;
  clock: FakeClock;
  registry: Registry;
  port: () => number;
  stop: () => Promise<void>;
}

/** Make a cert dir with a CA-signed serving certificate for 127.0.0.1 and localhost. */
export async function makeCertDir(): Promise<{ dir: string; ca: CertificateAuthority }> {
  const dir = await mkdtemp(join(tmpdir(), 'kck-webhook-'));
  const ca = generateCertificateAuthority();
  await writeCertificateFiles(
    dir,
    ca.issue({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
  );
  return { dir, ca };
}

/**
 * A server with `setup` applied before start (register handlers there), listening on
 * 127.0.0.1:0.
 */
export async function startServer(
  setup: (server: WebhookServer) => void,
  options: Partial<WebhookServerOptions> & { certDir?: string; ca?: CertificateAuthority } = {},
): Promise<Harness> {
  const made = options.certDir === undefined ? await makeCertDir() : undefined;
  const certDir = options.certDir ?? (made as { dir: string }).dir;
  const ca = options.ca ?? (made as { ca: CertificateAuthority }).ca;
  const clock = new FakeClock();
  const registry = new Registry();
  const server = new WebhookServer({
    host: '127.0.0.1',
    port: 0,
    certDir,
    clock,
    logger: noopLogger,
    metricsProvider: new PrometheusWebhookMetricsProvider({ registry }),
    ...options,
  });
  setup(server);
  const controller = new AbortController();
  const running = server.start(controller.signal);
  running.catch(() => undefined);
  await server.started();
  const port = (server.address as { port: number }).port;
  return {
    server,
    ca,
    certDir,
    clock,
    registry,
    port: () => port,
    stop: async () => {
      controller.abort();
      await running;
      if (made !== undefined) await rm(made.dir, { recursive: true, force: true });
    },
  };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json: () => Record<string, unknown>;
}

/** POST `body` over HTTPS, trusting `ca` (and presenting `client`, when given). */
export function post(
  port: number,
  path: string,
  body: string | Buffer,
  options: {
    ca: string;
    contentType?: string | null;
    client?: CertificateKeyPair;
    agent?: Agent;
  },
): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { 'content-length': Buffer.byteLength(body) };
    if (options.contentType !== null)
      headers['content-type'] = options.contentType ?? 'application/json';
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        ca: options.ca,
        agent: options.agent ?? false,
        headers,
        ...(options.client ? { cert: options.client.cert, key: options.client.key } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** An AdmissionReview v1 request around `request`. */
export function review(
  request: Partial<AdmissionRequest> & Pick<AdmissionRequest, 'operation'>,
): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'uid-1',
      kind: { group: 'apps.example.com', version: 'v1', kind: 'Application' },
      resource: { group: 'apps.example.com', version: 'v1', resource: 'applications' },
      name: 'demo',
      namespace: 'default',
      userInfo: { username: 'alice' },
      ...request,
    },
  });
}

/** The AdmissionResponse of an answer. */
export function responseOf(answer: HttpAnswer): {
  uid: string;
  allowed: boolean;
  status?: { code?: number; reason?: string; message?: string };
  patch?: string;
  patchType?: string;
  warnings?: string[];
} {
  return answer.json().response as ReturnType<typeof responseOf>;
}

/** The value of one sample of a metric in the registry (undefined when absent). */
export async function sample(
  registry: Registry,
  name: string,
  labels: Record<string, string> = {},
): Promise<number | undefined> {
  const metrics = await registry.getMetricsAsJSON();
  for (const metric of metrics) {
    for (const value of metric.values as {
      metricName?: string;
      value: number;
      labels: Record<string, string | number>;
    }[]) {
      const metricName = value.metricName ?? metric.name;
      if (metricName !== name) continue;
      if (Object.entries(labels).every(([k, v]) => String(value.labels[k]) === v))
        return value.value;
    }
  }
  return undefined;
}
