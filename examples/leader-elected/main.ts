/**
 * `npm run example:leader-elected`: three replicas of the application operator under
 * leader election. On the in-memory server (default) it starts all three in this process,
 * stops the leader once an Application is reconciled, shows a standby taking over, and
 * exits. With `--kubeconfig [path] --identity NAME` it runs ONE replica against a real
 * cluster until Ctrl-C (run it three times, or deploy it with replicas: 3).
 */
import { fileURLToPath } from 'node:url';
import { ResourceClient } from '../../src/index.js';
import { openCluster, parseClusterArgs, signalController, runAsMain } from '../shared/cluster.js';
import { applicationResource } from '../application-operator/src/generated/application_v1.js';
import { runReplica } from './src/replica.js';
import type { ReplicaEvent } from './src/replica.js';

const crdPath = fileURLToPath(new URL('../application-operator/crd.yaml', import.meta.url));
const fast = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 200 };

/** Runs the example; resolves with the identities that led, in order. */
export async function main(argv: readonly string[] = []): Promise<string[]> {
  const args = parseClusterArgs(argv);
  const cluster = await openCluster(args, [crdPath]);
  console.log(`▶ ${cluster.description}`);
  const leaders: string[] = [];
  let reconciles = 0;
  const print = (e: ReplicaEvent) => {
    if (e.type === 'leading') {
      leaders.push(e.identity);
      console.log(`★ ${e.identity} is the leader`);
    } else if (e.type === 'stopped-leading') console.log(`  ${e.identity} stopped leading`);
    else if (e.type === 'operator' && e.event.type === 'reconciled') {
      reconciles++;
      console.log(`  [${e.identity}] reconcile ${e.event.key}: ${e.event.action}`);
    }
  };
  if (cluster.server === undefined) {
    const identityAt = args.rest.indexOf('--identity');
    const identity =
      (identityAt >= 0 ? args.rest[identityAt + 1] : undefined) ?? `replica-${process.pid}`;
    const { controller, dispose } = signalController();
    try {
      await runReplica(cluster.kubeConfig, controller.signal, {
        identity,
        leaseNamespace: process.env.POD_NAMESPACE ?? 'default',
        onEvent: print,
      });
    } finally {
      dispose();
    }
    return leaders;
  }
  const stops = ['replica-a', 'replica-b', 'replica-c'].map((identity) => {
    const stop = new AbortController();
    const done = runReplica(cluster.kubeConfig, stop.signal, {
      identity,
      timing: fast,
      onEvent: print,
    });
    return { identity, stop, done };
  });
  try {
    await new ResourceClient(cluster.kubeConfig, applicationResource).namespace('default').create({
      apiVersion: 'example.com/v1',
      kind: 'Application',
      metadata: { name: 'web', namespace: 'default' },
      spec: { image: 'nginx:1.27', replicas: 1 },
    });
    while (reconciles === 0) await new Promise((r) => setTimeout(r, 50));
    const first = stops.find((s) => s.identity === leaders[0])!;
    console.log(`✋ stopping ${first.identity}`);
    first.stop.abort();
    await first.done;
    while (leaders.length < 2) await new Promise((r) => setTimeout(r, 50));
    console.log(`✓ ${leaders[1]} took over from ${leaders[0]}`);
  } finally {
    for (const s of stops) s.stop.abort();
    await Promise.all(stops.map((s) => s.done));
    await cluster.close();
  }
  return leaders;
}

runAsMain(import.meta.url, main);
