/**
 * `npm start`: a sharded controller. This process runs the sharder (under leader
 * election; `--mode=labels`, the default) and starts the replicas as child processes
 * (src/replica.ts); every replica
 * prints one JSON line per reconcile on stdout, {"shard","key","start","end"} with
 * millisecond timestamps, so anyone can check from the output that no Widget is ever
 * reconciled by two shards at overlapping times. Logs go to stderr.
 *
 * Default: the in-memory API server and a short story — 3 replicas share 30 Widgets, a
 * 4th joins (Widgets drain from their old shards before they move), one leaves (its
 * Widgets move at once) — then everything stops. `--kubeconfig [PATH]`: a real cluster
 * (apply crd.yaml first), until Ctrl-C.
 *
 * `--mode=server`: server-side sharding (KEP-5866, Kubernetes 1.36 alpha, gate
 * `ShardedListAndWatch`; the in-memory server is started with it on). No sharder and no
 * labels: each replica holds ranges of the uid hash space from the same shard Leases and
 * ring, and the API server sends it only its Widgets. A replica gives up a range (its
 * reconciles finish) before another takes it over, so the no-overlap check holds the same.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  clusterFlags,
  DEFAULT_RANGE_VIRTUAL_NODES,
  fnv1a64,
  hashRanges,
  HashRing,
  LeaseLock,
  openCluster,
  packageFile,
  ResourceClient,
  runProgram,
  runWhileLeading,
  Sharder,
} from 'kube-controller-kit';
import { RING, widgetsResource } from './widgets.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 * `server` mode turns on the ShardedListAndWatch feature gate.
 */
const startInMemory = (mode: string) => async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer(
    mode === 'server' ? { featureGates: { ShardedListAndWatch: true } } : {},
  );

const here = fileURLToPath(import.meta.url);
const replicaScript = join(here, '..', `replica${extname(here)}`);

await runProgram(
  {
    name: 'sharded-operator',
    summary:
      'Runs a sharder and N replicas of a Widget controller; prints one JSON line per reconcile.',
    flags: {
      ...clusterFlags,
      replicas: { value: 'N', default: '3', description: 'replicas to start' },
      widgets: {
        value: 'N',
        default: '30',
        description: 'Widgets to create (in-memory server only)',
      },
      namespace: {
        value: 'NAME',
        default: 'default',
        description: 'namespace of the Widgets and the Leases',
      },
      'replica-kubeconfig': {
        value: 'PATH',
        description:
          "kubeconfig the replicas run with, as rbac.yaml's widgets-shard ServiceAccount (required with --kubeconfig: the sharder's own credentials may not write Widget status)",
      },
      mode: {
        value: 'labels|server',
        default: 'labels',
        description:
          'labels: a sharder labels Widgets; server: replicas watch hash ranges with shardSelector (KEP-5866)',
      },
    },
  },
  async ({ flags, signal, logger }) => {
    const replicaCount = Number(flags.replicas);
    const widgetCount = Number(flags.widgets);
    if (!Number.isInteger(replicaCount) || replicaCount < 1)
      throw new Error(`--replicas must be a positive integer, got ${flags.replicas}`);
    if (!Number.isInteger(widgetCount) || widgetCount < 0)
      throw new Error(`--widgets must be a non-negative integer, got ${flags.widgets}`);
    const namespace = flags.namespace ?? 'default';
    const mode = flags.mode ?? 'labels';
    if (mode !== 'labels' && mode !== 'server')
      throw new Error(`--mode must be labels or server, got ${mode}`);
    // The replicas run as themselves, never with the sharder's credentials: on a real
    // cluster rbac.yaml gives the sharder no write to Widget status, and a replica that
    // borrowed them would be refused every status update.
    const replicaKubeconfig = flags['replica-kubeconfig'];
    if (flags.kubeconfig !== undefined && replicaKubeconfig === undefined)
      throw new Error(
        "--replica-kubeconfig is required with --kubeconfig: the replicas run as rbac.yaml's widgets-shard ServiceAccount, not with the sharder's credentials",
      );
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory(mode),
      manifests: [packageFile(import.meta.url, 'crd.yaml')],
      logger,
      signal,
    });
    const tmp = await mkdtemp(join(tmpdir(), 'sharded-operator-'));
    const replicas = new Map<string, { child: ChildProcess; exited: Promise<number | null> }>();
    const stopSharder = new AbortController();
    let sharderDone: Promise<unknown> = Promise.resolve();
    let failed: Error | undefined;
    try {
      // The replicas are processes of their own: they get a kubeconfig file of their own.
      let kubeconfig = replicaKubeconfig ?? '';
      if (cluster.server !== undefined) {
        kubeconfig = join(tmp, 'kubeconfig');
        await cluster.server.writeKubeconfig(kubeconfig);
      }
      const sharder = new Sharder({
        ring: RING,
        leaseNamespace: namespace,
        namespace,
        resources: [{ resource: widgetsResource }],
        source: cluster.kubeConfig,
        logger,
      });
      if (mode === 'labels')
        sharderDone = runWhileLeading(
          {
            lock: LeaseLock.fromKubeConfig(cluster.kubeConfig, {
              namespace,
              name: `${RING}-sharder`,
              identity: `sharder-${process.pid}`,
            }),
            releaseOnCancel: true,
            logger,
            run: (s) => sharder.run(s),
          },
          stopSharder.signal,
        );
      const start = (name: string): void => {
        const child = spawn(
          process.execPath,
          [
            ...process.execArgv,
            replicaScript,
            '--kubeconfig',
            kubeconfig,
            '--name',
            name,
            '--namespace',
            namespace,
            '--log-level',
            flags['log-level'] ?? 'info',
            '--mode',
            mode,
          ],
          { stdio: ['ignore', 'inherit', 'inherit'] },
        );
        const exited = new Promise<number | null>((r) =>
          child.once('exit', (code) => {
            // Stopped by us, it is no longer in the map; otherwise it failed on its own.
            if (replicas.get(name)?.child === child)
              failed ??= new Error(
                `replica ${name} exited (code ${String(code)}); see its log above`,
              );
            r(code);
          }),
        );
        replicas.set(name, { child, exited });
        logger.info('started a replica', { name, pid: child.pid });
      };
      const stop = async (name: string): Promise<void> => {
        const r = replicas.get(name);
        if (r === undefined) return;
        replicas.delete(name);
        r.child.kill('SIGTERM');
        const code = await r.exited;
        logger.info('a replica stopped', { name, exitCode: code });
      };
      for (let i = 0; i < replicaCount; i++) start(`replica-${i}`);

      if (cluster.server === undefined) {
        // A real cluster: run until Ctrl-C.
        await new Promise<void>((resolve) =>
          signal.addEventListener('abort', () => resolve(), { once: true }),
        );
        return;
      }
      const widgets = new ResourceClient(cluster.kubeConfig, widgetsResource).namespace(namespace);
      for (let i = 0; i < widgetCount; i++) {
        await widgets.create({
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: `widget-${i}`, namespace },
          spec: { size: i },
        });
      }
      /**
       * Server mode: the replica whose ranges, on the ring of the running replicas, hold the
       * hash of the Widget's uid (what every replica computes from the shard Leases).
       */
      const owner = (uid: string): string | undefined => {
        const ring = new HashRing([...replicas.keys()], DEFAULT_RANGE_VIRTUAL_NODES);
        const h = fnv1a64(uid);
        return ring.shards.find((s) => hashRanges(ring, s).some((r) => h >= r.start && h < r.end));
      };
      /**
       * Labels mode: every Widget labelled with a running replica that wrote itself into its
       * status. Server mode: every Widget's status names the replica that owns its hash.
       */
      const settled = async (what: string): Promise<void> => {
        const deadline = Date.now() + 60_000;
        for (;;) {
          signal.throwIfAborted();
          if (failed !== undefined) throw failed;
          const running = [...replicas.keys()].sort().join(',');
          if (mode === 'server') {
            const list = await widgets.list({}, { signal });
            if (list.items.every((w) => w.status?.shard === owner(w.metadata?.uid ?? ''))) {
              logger.info(`settled: ${what}`, { shards: running });
              return;
            }
          } else if (sharder.ring.shards.join(',') === running) {
            const list = await widgets.list({}, { signal });
            const done = list.items.every((w) => {
              const shard = w.metadata?.labels?.[sharder.labels.shard];
              return (
                shard !== undefined &&
                replicas.has(shard) &&
                w.metadata?.labels?.[sharder.labels.drain] === undefined &&
                w.status?.shard === shard
              );
            });
            if (done) {
              logger.info(`settled: ${what}`, { shards: running });
              return;
            }
          }
          if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      };
      await settled(`${replicaCount} replicas share ${widgetCount} Widgets`);
      start(`replica-${replicaCount}`);
      await settled(
        mode === 'server'
          ? 'a replica joined; the ranges it took over were given up by their old owners first'
          : 'a replica joined; Widgets drained from their old shards moved to it',
      );
      await stop('replica-0');
      await settled('replica-0 left; its Widgets moved at once');
    } finally {
      await Promise.all(
        [...replicas.keys()].map(async (name) => {
          const r = replicas.get(name);
          r?.child.kill('SIGTERM');
          await r?.exited;
        }),
      );
      stopSharder.abort();
      await sharderDone;
      await rm(tmp, { recursive: true, force: true });
      await cluster.close();
    }
  },
);
