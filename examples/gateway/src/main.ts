/**
 * `npm start`: the gateway. Default: the in-memory API server with crds.yaml applied, two
 * upstream servers on 127.0.0.1, and a short story — routes, an auth policy, a rate limit,
 * a change of upstream, a bad route, a deleted route — with a real request through the
 * gateway after each step; then it exits. `--kubeconfig [PATH]`: a real cluster (apply
 * crds.yaml and rbac.yaml first), serving on `--listen` until Ctrl-C.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { clusterFlags, openCluster, packageFile, runProgram } from 'kube-controller-kit';
import type { TestApiServer } from '@kube-controller-kit/testing';
import type { KubeConfigLike, Logger } from 'kube-controller-kit';
import { ACCEPTED, runGateway } from './gateway.js';
import type { CompiledEvent } from './gateway.js';
import { apiRoutesResource, authPoliciesResource, rateLimitPoliciesResource } from './types.js';
import type { ApiRoute } from './types.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

/** An upstream that answers `<name> <method> <path>`. */
async function startUpstream(name: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end(`${name} ${req.method} ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function send(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const res = await fetch(`${base}${path}`, { headers });
  return { status: res.status, body: (await res.text()).trim() };
}

await runProgram(
  {
    name: 'gateway',
    summary:
      'An HTTP gateway configured by ApiRoute, AuthPolicy and RateLimitPolicy resources (gateway.example.com/v1), reloaded within a second of every change.',
    flags: {
      ...clusterFlags,
      listen: {
        value: 'HOST:PORT',
        description: 'where the gateway listens (in-memory demo: a free port on 127.0.0.1)',
        default: '127.0.0.1:8000',
      },
      namespace: { value: 'NAME', description: 'watch one namespace (default: all)' },
    },
  },
  async ({ flags, signal, logger }) => {
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      manifests: [packageFile(import.meta.url, 'crds.yaml')],
      fieldManager: 'gateway',
      logger,
      signal,
    });
    try {
      const server = cluster.server;
      if (server === undefined) {
        await runGateway(cluster.kubeConfig, signal, {
          logger,
          listen: flags.listen ?? '127.0.0.1:8000',
          ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
        });
        return;
      }
      await demo(server, cluster.kubeConfig, signal, logger);
    } finally {
      await cluster.close();
    }
  },
);

async function demo(
  server: TestApiServer,
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  logger: Logger,
): Promise<void> {
  const a = await startUpstream('upstream-a');
  const b = await startUpstream('upstream-b');
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let compiled: CompiledEvent | undefined;
  let listening: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (listening = resolve));
  const running = runGateway(kubeConfig, stop.signal, {
    logger,
    listen: '127.0.0.1:0',
    onListening: (u) => listening(u),
    onCompiled: (e) => {
      compiled = e;
    },
  });
  const fail = running.then(() => {
    throw new Error('the gateway stopped before the demo ended');
  });
  fail.catch(() => undefined);
  try {
    const base = await Promise.race([url, fail]);
    /** Applies a change, waits until the gateway recompiled after it, prints a request. */
    const step = async (
      what: string,
      change: () => void,
      until: (e: CompiledEvent) => boolean,
      path: string,
      headers: Record<string, string> = {},
    ) => {
      const started = Date.now();
      change();
      while (compiled === undefined || !until(compiled)) {
        if (stop.signal.aborted) throw new Error('stopped');
        await new Promise((r) => setTimeout(r, 5));
      }
      const ms = Date.now() - started;
      const r = await send(base, path, headers);
      console.log(
        `${what.padEnd(36)} GET ${path.padEnd(14)} -> ${r.status} ${r.body}  (reloaded in ${ms} ms)`,
      );
      return r;
    };
    const routes = { group: apiRoutesResource.group, resource: apiRoutesResource.resource };
    const route = (name: string, spec: ApiRoute['spec']) => ({
      apiVersion: 'gateway.example.com/v1',
      kind: 'ApiRoute',
      metadata: { name, namespace: 'default' },
      spec,
    });
    const served = (e: CompiledEvent, key: string) => e.table.routes.find((r) => r.key === key);
    await step(
      'add route /api -> a',
      () => server.create(routes, route('api', { pathPrefix: '/api', upstream: a.url })),
      (e) => served(e, 'default/api') !== undefined,
      '/api/users',
    );
    await step(
      'change upstream /api -> b',
      () => {
        const live = server.get<ApiRoute>(routes, 'api', 'default')!;
        server.update(routes, { ...live, spec: { ...live.spec, upstream: b.url } });
      },
      (e) => served(e, 'default/api')?.upstream.origin === b.url,
      '/api/users',
    );
    await step(
      'add AuthPolicy + /admin route',
      () => {
        server.create(
          { group: authPoliciesResource.group, resource: authPoliciesResource.resource },
          {
            apiVersion: 'gateway.example.com/v1',
            kind: 'AuthPolicy',
            metadata: { name: 'keys', namespace: 'default' },
            spec: { type: 'apiKey', keys: ['s3cret'] },
          },
        );
        server.create(
          routes,
          route('admin', { pathPrefix: '/admin', upstream: a.url, authPolicy: 'keys' }),
        );
      },
      (e) => served(e, 'default/admin')?.auth !== undefined,
      '/admin',
    );
    const ok = await send(base, '/admin', { 'x-api-key': 's3cret' });
    console.log(
      `${'  with x-api-key'.padEnd(36)} GET ${'/admin'.padEnd(14)} -> ${ok.status} ${ok.body}`,
    );
    await step(
      'add RateLimitPolicy burst 2 on /api',
      () => {
        server.create(
          { group: rateLimitPoliciesResource.group, resource: rateLimitPoliciesResource.resource },
          {
            apiVersion: 'gateway.example.com/v1',
            kind: 'RateLimitPolicy',
            metadata: { name: 'slow', namespace: 'default' },
            spec: { requestsPerSecond: 0.01, burst: 2 },
          },
        );
        const live = server.get<ApiRoute>(routes, 'api', 'default')!;
        server.update(routes, { ...live, spec: { ...live.spec, rateLimitPolicy: 'slow' } });
      },
      (e) => served(e, 'default/api')?.rateLimit !== undefined,
      '/api/1',
    );
    for (const p of ['/api/2', '/api/3']) {
      const r = await send(base, p);
      console.log(`${'  again'.padEnd(36)} GET ${p.padEnd(14)} -> ${r.status} ${r.body}`);
    }
    await step(
      'bad upstream on /admin',
      () => {
        const live = server.get<ApiRoute>(routes, 'admin', 'default')!;
        server.update(routes, { ...live, spec: { ...live.spec, upstream: 'ftp://nowhere' } });
      },
      (e) => e.verdicts.some((v) => v.key === 'default/admin' && !v.accepted),
      '/admin',
      { 'x-api-key': 's3cret' },
    );
    const verdict = compiled?.verdicts.find((v) => v.key === 'default/admin');
    console.log(
      `  ApiRoute default/admin ${ACCEPTED}=${verdict?.accepted ? 'True' : 'False'} reason=${verdict?.reason}: ${verdict?.message}`,
    );
    await step(
      'delete route /api',
      () => server.delete(routes, 'api', 'default'),
      (e) => served(e, 'default/api') === undefined,
      '/api/users',
    );
    // Status conditions and events are written after the swap; wait for them to show.
    const waitFor = async (cond: () => boolean) => {
      while (!cond() && !stop.signal.aborted) await new Promise((r) => setTimeout(r, 5));
    };
    await waitFor(() =>
      server
        .list<{ reason?: string; involvedObject?: { name?: string } }>('events', 'default')
        .some((e) => e.reason === 'InvalidUpstream' && e.involvedObject?.name === 'admin'),
    );
    for (const e of server.list<{
      type?: string;
      reason?: string;
      involvedObject?: { kind?: string; name?: string };
    }>('events', 'default')) {
      console.log(
        `event ${e.type} ${e.reason} ${e.involvedObject?.kind}/${e.involvedObject?.name}`,
      );
    }
  } finally {
    stop.abort();
    signal.removeEventListener('abort', onAbort);
    await running.catch((err: unknown) => logger.error(`gateway: ${String(err)}`));
    await Promise.all([a.close(), b.close()]);
  }
}
