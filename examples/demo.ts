/**
 * `npm run demo`: the application operator end to end, no cluster needed.
 *
 * Starts the in-memory API server, applies the Application CRD and three Applications,
 * runs the operator, plays the part of the Deployment controller (marks replicas
 * available), scales one Application, deletes another, prints every step, and exits 0
 * with a summary once everything has stopped. `--kubeconfig [path]` runs it against a
 * real cluster instead (apply examples/application-operator/crd.yaml there first).
 */
import { fileURLToPath } from 'node:url';
import type { V1Deployment } from '@kubernetes/client-node';
import { ResourceClient, deploymentsResource, isNotFound } from '../src/index.js';
import type { Serialized } from '../src/index.js';
import { openCluster, parseClusterArgs } from './shared/cluster.js';
import { runOperator } from './application-operator/src/operator.js';
import type { OperatorEvent } from './application-operator/src/operator.js';
import { applicationResource } from './application-operator/src/generated/application_v1.js';
import type { Application } from './application-operator/src/generated/application_v1.js';

/** Options of {@link main}. */
export interface DemoOptions {
  /** Command-line arguments (default none: in-memory server). */
  argv?: readonly string[];
  /** Where progress goes (default stdout). */
  print?: (line: string) => void;
  /** Give up after this long (default 30 s). */
  timeoutMs?: number;
}

/** What the demo saw. */
export interface DemoSummary {
  /** Reconciles run. */
  reconciles: number;
  /** Status writes. */
  statusUpdates: number;
  /** Finalizer cleanups. */
  cleanups: number;
  /** Wall time (ms). */
  elapsedMs: number;
}

const crdPath = fileURLToPath(new URL('./application-operator/crd.yaml', import.meta.url));
const namespace = 'default';

/** Runs the demo; resolves with a summary after everything has stopped. */
export async function main(options: DemoOptions = {}): Promise<DemoSummary> {
  const print = options.print ?? ((line: string) => console.log(line));
  const started = Date.now();
  const args = parseClusterArgs(options.argv ?? []);
  const cluster = await openCluster(args, [crdPath]);
  print(`▶ ${cluster.description}`);
  const stop = new AbortController();
  const timeout = setTimeout(() => stop.abort(), options.timeoutMs ?? 30_000);
  const summary = { reconciles: 0, statusUpdates: 0, cleanups: 0 };
  let synced = false;
  const cleaned = new Set<string>();
  const waiters = new Set<() => void>();
  const onEvent = (e: OperatorEvent) => {
    switch (e.type) {
      case 'synced':
        synced = true;
        print('✓ caches synced (applications, deployments, services)');
        break;
      case 'reconciled':
        summary.reconciles++;
        print(`  reconcile ${e.key}: children ${e.action}`);
        break;
      case 'status':
        summary.statusUpdates++;
        print(`  status    ${e.key}: availableReplicas=${e.availableReplicas} Ready=${e.ready}`);
        break;
      case 'cleaned-up':
        if (cleaned.has(e.key)) break; // cleanup is idempotent and may run again
        cleaned.add(e.key);
        summary.cleanups++;
        print(`  cleanup   ${e.key}: Deployment and Service deleted, finalizer removed`);
        break;
    }
    for (const w of waiters) w();
  };
  const until = async (what: string, cond: () => Promise<boolean>) => {
    while (!(await cond())) {
      if (stop.signal.aborted) throw new Error(`demo timed out waiting for: ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, 50);
        function done() {
          clearTimeout(t);
          waiters.delete(done);
          resolve();
        }
        waiters.add(done);
      });
    }
  };

  const kc = cluster.kubeConfig;
  const apps = new ResourceClient(kc, applicationResource).namespace(namespace);
  const deployments = new ResourceClient(kc, deploymentsResource).namespace(namespace);
  const operator = runOperator(kc, stop.signal, { onEvent });
  try {
    await until('caches synced', () => Promise.resolve(synced));
    const names = ['frontend', 'backend', 'worker'];
    for (const [i, name] of names.entries()) {
      const app: Application = {
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name, namespace },
        spec: { image: `nginx:1.27`, replicas: i + 1, port: 8080 },
      };
      await apps.create(app);
      print(`+ applied Application ${namespace}/${name} (replicas ${i + 1})`);
    }
    await until('three Deployments', async () => {
      const list = await deployments.list();
      return names.every((n) => list.items.some((d) => d.metadata?.name === n));
    });
    // Play the Deployment controller: the in-memory server runs no pods.
    const markAvailable = async (name: string) => {
      if (cluster.server === undefined) return; // a real cluster does this itself
      const d = cluster.server.get<Serialized<V1Deployment> & { apiVersion: string }>(
        { group: 'apps', resource: 'deployments' },
        name,
        namespace,
      );
      if (d === undefined) return;
      const replicas = d.spec?.replicas ?? 1;
      cluster.server.update(
        { group: 'apps', resource: 'deployments' },
        { ...d, status: { replicas, readyReplicas: replicas, availableReplicas: replicas } },
      );
      print(`~ (deployment controller) ${namespace}/${name}: ${replicas} replicas available`);
    };
    for (const n of names) await markAvailable(n);
    const isReady = async (name: string, replicas: number) => {
      const a = await apps.get(name);
      return (
        a.status?.availableReplicas === replicas &&
        a.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
      );
    };
    await until('every Application Ready', async () =>
      (await Promise.all(names.map((n, i) => isReady(n, i + 1)))).every(Boolean),
    );
    print('✓ all Applications Ready');

    // Scale one.
    const frontend = await apps.get('frontend');
    await apps.update({ ...frontend, spec: { ...frontend.spec, replicas: 3 } });
    print('~ scaled Application default/frontend to 3 replicas');
    await until('frontend Deployment scaled', async () => {
      const d = await deployments.get('frontend');
      return d.spec?.replicas === 3;
    });
    await markAvailable('frontend');
    await until('frontend Ready with 3', () => isReady('frontend', 3));
    print('✓ frontend Ready with 3 replicas');

    // Delete one: the finalizer runs the cleanup first.
    await apps.delete('worker');
    print('- deleted Application default/worker');
    await until('worker gone', async () => {
      try {
        await apps.get('worker');
        return false;
      } catch (err) {
        if (isNotFound(err)) return true;
        throw err;
      }
    });
    print('✓ worker and its children are gone');
  } finally {
    clearTimeout(timeout);
    stop.abort();
    await operator;
    await cluster.close();
  }
  const elapsedMs = Date.now() - started;
  print(
    `done in ${elapsedMs} ms: ${summary.reconciles} reconciles, ${summary.statusUpdates} status updates, ${summary.cleanups} cleanup(s); everything stopped`,
  );
  return { ...summary, elapsedMs };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main({ argv: process.argv.slice(2) }).then(
    () => {
      process.exitCode = 0;
    },
    (err: unknown) => {
      console.error(`demo failed: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 1;
    },
  );
}
