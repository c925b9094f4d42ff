/**
 * One replica of the sharded Widget controller, in a process of its own (the program in
 * src/main.ts starts three; in a cluster, each pod of a Deployment runs this).
 *
 * It holds its shard Lease, reconciles the Widgets labelled with its shard and prints one
 * JSON line per reconcile to stdout: {"shard","key","start","end"} (ms since the epoch).
 * SIGTERM stops it cleanly: running reconciles finish, the Lease is released, and the
 * sharder moves its Widgets to the other replicas at once.
 */
import { Shard } from 'kube-controller-kit';
import { clusterFlags, openCluster, runProgram } from 'kube-controller-kit/testing';
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
      const shard = new Shard({
        ring: RING,
        name: flags.name,
        namespace,
        source: cluster.kubeConfig,
        logger,
      });
      const outcome = await shard.run(
        (s) =>
          runWidgetController(cluster.kubeConfig, shard, namespace, s, {
            logger,
            onReconcile: (line) => process.stdout.write(JSON.stringify(line) + '\n'),
          }),
        signal,
      );
      if (outcome === 'lease-lost') throw new Error(`shard ${flags.name} lost its Lease`);
    } finally {
      await cluster.close();
    }
  },
);
