/**
 * `npm start`: a controller under Lease leader election. On the in-memory server (default)
 * it starts three replicas in this process, stops the leader once it has done some work,
 * shows a standby taking over, and exits. With `--kubeconfig [PATH]` it runs ONE replica
 * against a real cluster until Ctrl-C (run it three times, or deploy it with replicas: 3).
 */
import { hostname } from 'node:os';
import { clusterFlags, openCluster, runProgram } from 'kube-controller-kit';
import { STAMPED_BY, STAMP_LABEL, runReplica } from './replica.js';
import type { ReplicaEvent } from './replica.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

const fast = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

await runProgram(
  {
    name: 'leader-elected',
    summary:
      'Runs a controller as replicas under Lease leader election: only the leader works; a standby takes over when it stops.',
    flags: {
      ...clusterFlags,
      identity: {
        value: 'NAME',
        description: 'this replica’s identity on a real cluster (default: the host name)',
      },
      namespace: {
        value: 'NAME',
        description:
          'namespace of the Lease and the ConfigMaps (default: $POD_NAMESPACE, else default)',
      },
    },
  },
  async ({ flags, signal, logger }) => {
    const namespace = flags.namespace ?? process.env.POD_NAMESPACE ?? 'default';
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      logger,
      signal,
    });
    const leaders: string[] = [];
    const stamps: string[] = [];
    const print = (e: ReplicaEvent) => {
      if (e.type === 'leading') {
        leaders.push(e.identity);
        console.log(`★ ${e.identity} is the leader`);
      } else if (e.type === 'stopped-leading' && leaders.includes(e.identity)) {
        console.log(`  ${e.identity} stopped leading`);
      }
      if (e.type === 'stamped') {
        stamps.push(e.identity);
        console.log(`  [${e.identity}] stamped ${e.key}`);
      }
    };
    try {
      const server = cluster.server;
      if (server === undefined) {
        await runReplica(cluster.kubeConfig, signal, {
          identity: flags.identity ?? hostname(),
          namespace,
          logger,
          onEvent: print,
        });
        return;
      }
      const configMap = (name: string) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace, labels: { [STAMP_LABEL]: 'true' } },
        data: {},
      });
      const wait = async (cond: () => boolean) => {
        while (!cond()) {
          signal.throwIfAborted();
          await new Promise((r) => setTimeout(r, 50));
        }
      };
      const replicas = ['replica-a', 'replica-b', 'replica-c'].map((identity) => {
        const stop = new AbortController();
        const done = runReplica(cluster.kubeConfig, AbortSignal.any([stop.signal, signal]), {
          identity,
          namespace,
          timing: fast,
          logger,
          onEvent: print,
        });
        return { identity, stop, done };
      });
      try {
        server.create('configmaps', configMap('first'));
        await wait(() => stamps.length > 0);
        const first = replicas.find((r) => r.identity === leaders[0])!;
        console.log(`✋ stopping ${first.identity}`);
        first.stop.abort();
        await first.done;
        await wait(() => leaders.length > 1);
        server.create('configmaps', configMap('second'));
        await wait(() => stamps.length > 1);
        const stampedBy = (name: string) =>
          server.get<{ metadata?: { annotations?: Record<string, string> } }>(
            'configmaps',
            name,
            namespace,
          )?.metadata?.annotations?.[STAMPED_BY];
        console.log(
          `✓ ${leaders[1]} took over from ${leaders[0]}: first stamped by ${stampedBy('first')}, second by ${stampedBy('second')}`,
        );
      } finally {
        for (const r of replicas) r.stop.abort();
        await Promise.all(replicas.map((r) => r.done));
      }
    } finally {
      await cluster.close();
    }
  },
);
