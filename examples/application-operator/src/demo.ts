/**
 * `npm run demo`: the Application operator end to end, no cluster needed.
 *
 * Starts the in-memory API server, applies the Application CRD, creates three
 * Applications, runs the operator, plays the part of the Deployment controller (marks
 * replicas available), scales one Application, deletes another, prints every step, and
 * exits 0 with a summary once everything has stopped.
 *
 * `--kubeconfig [PATH]` runs it against a real cluster instead (apply crd.yaml there
 * first). On a failure, a timeout or Ctrl-C it deletes the Applications it created while
 * the operator still runs, so no object is left with a finalizer that no one will remove.
 */
import type { V1Deployment } from '@kubernetes/client-node';
import {
  clusterFlags,
  deploymentsResource,
  isNotFound,
  openCluster,
  packageFile,
  ResourceClient,
  runProgram,
} from 'kube-controller-kit';
import type { Cluster, Logger, Serialized } from 'kube-controller-kit';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { FINALIZER, runOperator } from './operator.js';
import type { OperatorEvent } from './operator.js';
import { applicationResource } from './generated/application_v1.js';
import type { Application } from './generated/application_v1.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

const names = ['frontend', 'backend', 'worker'];

interface Summary {
  reconciles: number;
  statusUpdates: number;
  cleanups: number;
}

await runProgram(
  {
    name: 'demo',
    summary:
      'Runs the Application operator through create, scale and delete on the in-memory API server, then exits.',
    flags: {
      ...clusterFlags,
      namespace: {
        value: 'NAME',
        default: 'default',
        description: 'namespace of the Applications',
      },
      timeout: { value: 'SECONDS', default: '30', description: 'give up (and clean up) after' },
    },
  },
  async ({ flags, signal, logger }) => {
    const started = Date.now();
    const timeoutMs = Number(flags.timeout) * 1000;
    if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
      throw new Error(`--timeout must be a positive number of seconds, not "${flags.timeout}"`);
    }
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      manifests: [packageFile(import.meta.url, 'crd.yaml')],
      fieldManager: 'application-operator-demo',
      logger,
      signal,
    });
    console.log(`▶ ${cluster.description}`);
    try {
      const summary = await story(cluster, flags.namespace ?? 'default', signal, timeoutMs, logger);
      console.log(
        `done in ${Date.now() - started} ms: ${summary.reconciles} reconciles, ${summary.statusUpdates} status updates, ${summary.cleanups} cleanup(s); everything stopped`,
      );
    } finally {
      await cluster.close();
    }
  },
);

async function story(
  cluster: Cluster<TestApiServer>,
  namespace: string,
  interrupted: AbortSignal,
  timeoutMs: number,
  logger: Logger,
): Promise<Summary> {
  // `steps` ends the story (Ctrl-C or timeout); `operatorStop` stops the operator, only
  // after the cleanup below, because the operator is what removes the finalizers.
  const steps = AbortSignal.any([interrupted, AbortSignal.timeout(timeoutMs)]);
  const operatorStop = new AbortController();
  const summary: Summary = { reconciles: 0, statusUpdates: 0, cleanups: 0 };
  let synced = false;
  const cleaned = new Set<string>();
  const waiters = new Set<() => void>();
  const onEvent = (e: OperatorEvent) => {
    switch (e.type) {
      case 'synced':
        synced = true;
        console.log('✓ caches synced (applications, deployments, services)');
        break;
      case 'reconciled':
        summary.reconciles++;
        console.log(`  reconcile ${e.key}: children ${e.action}`);
        break;
      case 'status':
        summary.statusUpdates++;
        console.log(
          `  status    ${e.key}: availableReplicas=${e.availableReplicas} Ready=${e.ready}`,
        );
        break;
      case 'cleaned-up':
        if (cleaned.has(e.key)) break; // cleanup is idempotent and may run again
        cleaned.add(e.key);
        summary.cleanups++;
        console.log(`  cleanup   ${e.key}: Deployment and Service deleted, finalizer removed`);
        break;
    }
    for (const w of waiters) w();
  };
  let step = 'starting';
  const until = async (what: string, cond: () => Promise<boolean>, signal = steps) => {
    step = what;
    while (!(await cond())) {
      signal.throwIfAborted();
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
  // Says which step an interruption or the timeout cut short.
  const explain = (err: unknown): unknown =>
    steps.aborted
      ? new Error(`${interrupted.aborted ? 'interrupted' : 'timed out'} waiting for: ${step}`, {
          cause: err,
        })
      : err;

  const kc = cluster.kubeConfig;
  const apps = new ResourceClient(kc, applicationResource).namespace(namespace);
  const deployments = new ResourceClient(kc, deploymentsResource).namespace(namespace);
  const created: string[] = [];
  const operator = runOperator(kc, operatorStop.signal, { onEvent, logger, namespace });
  try {
    await until('caches synced', () => Promise.resolve(synced));
    step = 'creating the Applications';
    for (const [i, name] of names.entries()) {
      const app: Application = {
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name, namespace },
        spec: { image: `nginx:1.27`, replicas: i + 1, port: 8080 },
      };
      await apps.create(app, { signal: steps });
      created.push(name);
      console.log(`+ created Application ${namespace}/${name} (replicas ${i + 1})`);
    }
    await until('three Deployments', async () => {
      const list = await deployments.list(undefined, { signal: steps });
      return names.every((n) => list.items.some((d) => d.metadata?.name === n));
    });
    // Play the Deployment controller: the in-memory server runs no pods.
    const markAvailable = (name: string) => {
      const server = cluster.server;
      if (server === undefined) return; // a real cluster does this itself
      const ref = { group: 'apps', resource: 'deployments' };
      const d = server.get<Serialized<V1Deployment> & { apiVersion: string }>(ref, name, namespace);
      if (d === undefined) return;
      const replicas = d.spec?.replicas ?? 1;
      server.update(ref, {
        ...d,
        status: { replicas, readyReplicas: replicas, availableReplicas: replicas },
      });
      console.log(`~ (deployment controller) ${namespace}/${name}: ${replicas} replicas available`);
    };
    for (const n of names) markAvailable(n);
    const isReady = async (name: string, replicas: number) => {
      const a = await apps.get(name, { signal: steps });
      return (
        a.status?.availableReplicas === replicas &&
        a.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true
      );
    };
    await until('every Application Ready', async () =>
      (await Promise.all(names.map((n, i) => isReady(n, i + 1)))).every(Boolean),
    );
    console.log('✓ all Applications Ready');

    const frontend = await apps.get('frontend', { signal: steps });
    await apps.update({ ...frontend, spec: { ...frontend.spec, replicas: 3 } }, { signal: steps });
    console.log(`~ scaled Application ${namespace}/frontend to 3 replicas`);
    await until('frontend Deployment scaled', async () => {
      const d = await deployments.get('frontend', { signal: steps });
      return d.spec?.replicas === 3;
    });
    markAvailable('frontend');
    await until('frontend Ready with 3', () => isReady('frontend', 3));
    console.log('✓ frontend Ready with 3 replicas');

    await apps.delete('worker', { signal: steps });
    console.log(`- deleted Application ${namespace}/worker (the finalizer runs the cleanup first)`);
    await until('worker gone', () => gone(apps, 'worker', steps));
    created.splice(created.indexOf('worker'), 1);
    console.log('✓ worker and its children are gone');
    // The demo's own objects go too, so a real cluster is left as it was.
    await removeAll(apps, created, until);
    created.length = 0;
    return summary;
  } catch (caught) {
    const err = explain(caught);
    if (created.length > 0) {
      logger.warn('cleaning up the Applications the demo created', { names: created.join(',') });
      try {
        await removeAll(apps, created, until);
        created.length = 0;
      } catch (cleanupErr) {
        logger.error('cleanup failed; removing the finalizers directly', { error: cleanupErr });
        await dropFinalizers(apps, created, logger);
      }
    }
    throw err;
  } finally {
    operatorStop.abort();
    await operator;
  }
}

async function gone(
  apps: ResourceClient<Application>,
  name: string,
  signal: AbortSignal,
): Promise<boolean> {
  try {
    await apps.get(name, { signal });
    return false;
  } catch (err) {
    if (isNotFound(err)) return true;
    throw err;
  }
}

/** Deletes the Applications and waits (10 s at most) while the operator removes their finalizers. */
async function removeAll(
  apps: ResourceClient<Application>,
  names: readonly string[],
  until: (what: string, cond: () => Promise<boolean>, signal?: AbortSignal) => Promise<void>,
): Promise<void> {
  const signal = AbortSignal.timeout(10_000);
  for (const name of names) {
    try {
      await apps.delete(name, { signal });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }
  await until(
    `${names.join(', ')} deleted`,
    async () => (await Promise.all(names.map((n) => gone(apps, n, signal)))).every(Boolean),
    signal,
  );
  if (names.length > 0) console.log(`✓ removed ${names.join(', ')}`);
}

/** Last resort when the operator could not finish: take our finalizer off ourselves. */
async function dropFinalizers(
  apps: ResourceClient<Application>,
  names: readonly string[],
  logger: Logger,
): Promise<void> {
  for (const name of names) {
    try {
      const app = await apps.get(name);
      const finalizers = (app.metadata?.finalizers ?? []).filter((f) => f !== FINALIZER);
      await apps.patch(name, {
        metadata: { finalizers, resourceVersion: app.metadata?.resourceVersion },
      });
    } catch (err) {
      if (!isNotFound(err)) logger.error('could not remove the finalizer', { name, error: err });
    }
  }
}
