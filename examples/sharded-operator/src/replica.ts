/**
 * One replica of the sharded Widget controller, in a process of its own (the program in
 * src/main.ts starts three; in a cluster, each pod of a Deployment runs this).
 *
 * It holds its shard Lease, reconciles its Widgets and prints one JSON line per reconcile to
 * stdout: {"shard","key","start","end"} (ms since the epoch). `--mode=labels` (default): its
 * Widgets are those the sharder labelled with its shard. `--mode=server`: its Widgets are
 * those whose uid hashes into the ranges it holds, which the API server selects for it
 * (`shardSelector`, gate ShardedListAndWatch); no labels, no sharder. SIGTERM stops it
 * cleanly: running reconciles finish, the Lease is released, and its Widgets go to the
 * other replicas at once.
 */
import { clusterFlags, openCluster, RangeShard, runProgram, Shard } from 'kube-controller-kit';
import { RING, runWidgetController } from './widgets.js';

await runProgram(
  {
    name: 'sharded-operator replica',
    summary: 'One replica of the sharded Widget controller (started by src/main.ts).',
    flags: {
      ...clusterFlags,
      name: {
        value: 'NAME',
        description: 'this shard’s name, unique in the ring (e.g. the pod name)',
      },
      namespace: {
        value: 'NAME',
        default: 'default',
        description: 'namespace of the Widgets and the shard Leases',
      },
      mode: {
        value: 'labels|server',
        default: 'labels',
        description: 'label sharding with a sharder, or server-side sharding (KEP-5866)',
      },
    },
  },
  async ({ flags, signal, logger }) => {
    if (flags.name === undefined)
      throw new Error('--name is required: every replica needs a unique shard name');
    if (flags.kubeconfig === undefined) {
      throw new Error(
        '--kubeconfig is required: a replica joins the cluster its sharder runs against',
      );
    }
    const cluster = await openCluster({ kubeconfig: flags.kubeconfig, logger, signal });
    try {
      const namespace = flags.namespace ?? 'default';
      const print = (line: unknown): boolean => process.stdout.write(JSON.stringify(line) + '\n');
      if (flags.mode === 'server') {
        const rangeShard = new RangeShard({
          ring: RING,
          name: flags.name,
          namespace,
          source: cluster.kubeConfig,
          logger,
        });
        const outcome = await rangeShard.run(
          (shardSelector, s) =>
            runWidgetController(
              cluster.kubeConfig,
              { mode: 'server', name: flags.name ?? '', shardSelector },
              namespace,
              s,
              { logger, onReconcile: print },
            ),
          signal,
        );
        if (outcome === 'lease-lost') throw new Error(`shard ${flags.name} lost its Lease`);
        return;
      }
      if (flags.mode !== 'labels')
        throw new Error(`--mode must be labels or server, got ${flags.mode ?? ''}`);
      const shard = new Shard({
        ring: RING,
        name: flags.name,
        namespace,
        source: cluster.kubeConfig,
        logger,
      });
      const outcome = await shard.run(
        (s) =>
          runWidgetController(cluster.kubeConfig, { mode: 'labels', shard }, namespace, s, {
            logger,
            onReconcile: print,
          }),
        signal,
      );
      if (outcome === 'lease-lost') throw new Error(`shard ${flags.name} lost its Lease`);
    } finally {
      await cluster.close();
    }
  },
);
