// One replica of a sharded controller in a process of its own, for the child-process test and
// the sharding benchmark. It joins ring "widgets" (Leases in "default"), reconciles the
// ConfigMaps of namespace "default" labelled with its shard, and prints one JSON line per
// reconcile: {"shard","key","start","end"} (ms since the epoch, sub-millisecond precision).
// On SIGUSR2 it prints {"heap":true,...} with its heap in use; on SIGTERM it stops cleanly (the Lease is released) and prints
// {"done":true,"shard","reconciles","heapUsedBytes"} (heap after a GC when --expose-gc).
//
// Usage: node --import tsx test/sharding/replica-process.ts
//   env KUBECONFIG_JSON (a KubeConfig's exportConfig()), SHARD (name),
//   LEASE_MS / RENEW_MS / RETRY_MS (lease timing), BURN_MS (CPU per reconcile, default 0),
//   WORKERS (default 2), RING (default widgets)
import { performance } from 'node:perf_hooks';
import { KubeConfig } from '@kubernetes/client-node';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import { configMapsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import { Controller } from '../../src/controller/controller.js';
import { Shard } from '../../src/sharding/index.js';
import { noopLogger } from '../../src/util/logger.js';

const env = (name: string, fallback?: string): string => {
  const v = process.env[name] ?? fallback;
  if (v === undefined) throw new Error(`replica-process: ${name} is not set`);
  return v;
};
const kc = new KubeConfig();
kc.loadFromString(env('KUBECONFIG_JSON'));
const name = env('SHARD');
const burnMs = Number(env('BURN_MS', '0'));
const now = (): number => performance.timeOrigin + performance.now();

const transport = new Transport(kc, { logger: noopLogger });
const shard = new Shard({
  ring: env('RING', 'widgets'),
  name,
  namespace: 'default',
  source: transport,
  logger: noopLogger,
  leaseDurationMs: Number(env('LEASE_MS', '2000')),
  renewDeadlineMs: Number(env('RENEW_MS', '1400')),
  retryPeriodMs: Number(env('RETRY_MS', '300')),
});
let reconciles = 0;
const out: string[] = [];
let flushScheduled = false;
const emit = (line: string): void => {
  out.push(line);
  if (!flushScheduled) {
    flushScheduled = true;
    setImmediate(() => {
      flushScheduled = false;
      process.stdout.write(out.join('\n') + '\n');
      out.length = 0;
    });
  }
};

const stop = new AbortController();
process.once('SIGTERM', () => stop.abort());
// SIGUSR2: report the heap now (after a GC when --expose-gc), while the cache is full.
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  emit(
    JSON.stringify({
      heap: true,
      shard: name,
      reconciles,
      heapUsedBytes: process.memoryUsage().heapUsed,
    }),
  );
});

const outcome = await shard.run(async (signal) => {
  const factory = new SharedInformerFactory(transport, {
    labelSelector: shard.labelSelector,
    logger: noopLogger,
  });
  const informer = factory.forResource(configMapsResource, { namespace: 'default' });
  const controller = new Controller({
    name: `shard-${name}`,
    workers: Number(env('WORKERS', '2')),
    logger: noopLogger,
    reconcile: shard.reconciler({
      store: informer.getIndexer(),
      client: new ResourceClient(transport, configMapsResource),
      reconcile: async (key) => {
        const start = now();
        if (burnMs > 0) {
          const until = performance.now() + burnMs;
          while (performance.now() < until) {
            // fixed CPU per reconcile
          }
          // Then yield to the event loop as a reconcile that writes would: a reconcile that
          // never does starves the Lease renewals and the watch.
          await new Promise((r) => setImmediate(r));
        } else {
          await new Promise((r) => setTimeout(r, 1 + Math.floor(Math.random() * 3)));
        }
        reconciles++;
        emit(JSON.stringify({ shard: name, key, start, end: now() }));
      },
    }),
  }).for(informer);
  factory.start(signal);
  try {
    await controller.run(signal, { shutdown: 'abort' });
  } finally {
    await factory.shutdown();
  }
}, stop.signal);

const gc = (globalThis as { gc?: () => void }).gc;
gc?.();
process.stdout.write(
  (out.length > 0 ? out.join('\n') + '\n' : '') +
    JSON.stringify({
      done: true,
      shard: name,
      outcome,
      reconciles,
      heapUsedBytes: process.memoryUsage().heapUsed,
    }) +
    '\n',
);
transport.close();
