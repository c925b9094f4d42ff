/**
 * The Application operator: for every `Application` (example.com/v1) it keeps a Deployment
 * and a Service owned by it (written with server-side apply), writes `status` (available
 * replicas, a `Ready` condition with observedGeneration) through the status subresource,
 * records Events for what it does, and removes its children through a finalizer when the
 * Application is deleted. It runs on a `Manager`: one cache, leader election, `/healthz`
 * `/readyz` and `/metrics`, graceful shutdown.
 *
 * Copy this file as the starting point of your own operator.
 */
import type { V1Deployment, V1Service } from '@kubernetes/client-node';
import {
  Controller,
  EventBroadcaster,
  Manager,
  ResourceClient,
  applyFinalizer,
  deploymentsResource,
  generationChanged,
  isNotFound,
  labelsChanged,
  defaultLogger,
  or,
  retryOnConflict,
  servicesResource,
  splitMetaNamespaceKey,
} from 'kube-controller-kit';
import type {
  ApiResource,
  CertDirOptions,
  DeepReadonly,
  EventRecorder,
  KubeConfigLike,
  Logger,
  ManagerLeaderElectionOptions,
  Serialized,
  WebhookServer,
} from 'kube-controller-kit';
import {
  applicationResource,
  type Application,
  type ApplicationStatus,
  type ApplicationStatusConditions,
} from './generated/application_v1.js';

/** The finalizer the operator puts on every Application it manages. */
export const FINALIZER = 'example.com/application-cleanup';
/** The field manager name of every write. */
export const FIELD_MANAGER = 'application-operator';

type Deployment = Serialized<V1Deployment>;
type Service = Serialized<V1Service>;

/** What the operator reports as it works (the demo prints these). */
export type OperatorEvent =
  | { type: 'synced' }
  | { type: 'reconciled'; key: string; action: 'created' | 'updated' | 'unchanged' }
  | { type: 'status'; key: string; availableReplicas: number; ready: boolean }
  | { type: 'cleaned-up'; key: string };

/** Options of {@link runOperator}. */
export interface OperatorOptions {
  /** Watch only this namespace; default all namespaces. */
  namespace?: string;
  /** Parallel reconciles (default 2). */
  workers?: number;
  /** Where the operator logs (default: the library's default, warnings and errors). */
  logger?: Logger;
  /** Called for every step; for progress output and tests. */
  onEvent?: (event: OperatorEvent) => void;
  /**
   * Leader election (`--leader-elect`): only the holder of the Lease `id` in `namespace`
   * reconciles. Default: off.
   */
  leaderElection?: ManagerLeaderElectionOptions;
  /** `/healthz` and `/readyz` address (`--health-probe-bind-address`); default `'0'`: off. */
  healthProbeBindAddress?: string;
  /** `/metrics` address (`--metrics-bind-address`); default `'0'`: off. */
  metricsBindAddress?: string;
  /**
   * Serve `/metrics` securely (`--metrics-secure`, `--metrics-cert-path`): HTTPS with the
   * certificate in this directory, only to callers allowed `get` on `/metrics`.
   */
  metricsSecure?: CertDirOptions;
  /** Called once the manager's servers are bound, with their addresses (tests, logs). */
  onServing?: (addresses: { healthProbe: string | undefined; metrics: string | undefined }) => void;
  /**
   * Where the child Deployments live (default `apps/v1` deployments). Another resource of
   * the same shape may stand in for it, e.g. a CRD on a server without the apps group.
   */
  deploymentResource?: ApiResource<Deployment>;
  /** Where the child Services live (default `v1` services); see `deploymentResource`. */
  serviceResource?: ApiResource<Service>;
  /**
   * The webhook server (see webhooks.ts): the Manager runs it on every replica and adds
   * its readiness check `webhook` to `/readyz`. Default: none.
   */
  webhookServer?: WebhookServer;
}

function apiVersionOf(resource: ApiResource<unknown>): string {
  return resource.group === '' ? resource.version : `${resource.group}/${resource.version}`;
}

/** The Deployment the operator wants for `app`. */
export function desiredDeployment(app: DeepReadonly<Application>): Deployment {
  const name = app.metadata?.name ?? '';
  const labels = { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': FIELD_MANAGER };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: app.metadata?.namespace ?? 'default',
      labels,
      ownerReferences: [ownerReference(app)],
    },
    spec: {
      replicas: app.spec.replicas,
      selector: { matchLabels: { 'app.kubernetes.io/name': name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name: 'app',
              image: app.spec.image,
              ports: [{ containerPort: app.spec.port ?? 80 }],
              env: (app.spec.env ?? []).map((e) => ({ name: e.name, value: e.value ?? '' })),
            },
          ],
        },
      },
    },
  };
}

/** The Service the operator wants for `app`. */
export function desiredService(app: DeepReadonly<Application>): Service {
  const name = app.metadata?.name ?? '';
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name,
      namespace: app.metadata?.namespace ?? 'default',
      labels: { 'app.kubernetes.io/name': name, 'app.kubernetes.io/managed-by': FIELD_MANAGER },
      ownerReferences: [ownerReference(app)],
    },
    spec: {
      selector: { 'app.kubernetes.io/name': name },
      ports: [{ port: 80, targetPort: app.spec.port ?? 80 }],
    },
  };
}

function ownerReference(app: DeepReadonly<Application>) {
  return {
    apiVersion: 'example.com/v1',
    kind: 'Application',
    name: app.metadata?.name ?? '',
    uid: app.metadata?.uid ?? '',
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** The status the operator writes, from the Deployment's status. */
export function computeStatus(
  app: DeepReadonly<Application>,
  deployment: DeepReadonly<Deployment> | undefined,
  now: Date,
): ApplicationStatus {
  const available = deployment?.status?.availableReplicas ?? 0;
  const ready = available >= app.spec.replicas;
  const previous = app.status?.conditions?.find((c) => c.type === 'Ready');
  const status = ready ? 'True' : 'False';
  const condition: ApplicationStatusConditions = {
    type: 'Ready',
    status,
    reason: ready ? 'DeploymentAvailable' : 'WaitingForReplicas',
    message: `${available} of ${app.spec.replicas} replicas available`,
    lastTransitionTime:
      previous?.status === status ? previous.lastTransitionTime : now.toISOString(),
  };
  if (app.metadata?.generation !== undefined)
    condition.observedGeneration = app.metadata.generation;
  return { availableReplicas: available, conditions: [condition] };
}

function sameStatus(a: DeepReadonly<ApplicationStatus> | undefined, b: ApplicationStatus): boolean {
  return JSON.stringify(a ?? {}) === JSON.stringify(b);
}

function containerDiffers(live: DeepReadonly<Deployment>, want: Deployment): boolean {
  return (
    live.spec?.replicas !== want.spec?.replicas ||
    JSON.stringify(live.spec?.template.spec?.containers) !==
      JSON.stringify(want.spec?.template.spec?.containers)
  );
}

/**
 * Runs the operator until `signal` aborts; resolves after every informer, worker, server
 * and request it started has stopped and its Events are flushed. Rejects with
 * `LeaderElectionLostError` when it loses the Lease (let the process exit non-zero).
 *
 * @param kubeConfig - a client-node KubeConfig: the in-memory server's or a real cluster's.
 */
export async function runOperator(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  options: OperatorOptions = {},
): Promise<void> {
  const logger = options.logger ?? defaultLogger;
  const emit = options.onEvent ?? (() => undefined);
  const manager = new Manager({
    kubeConfig,
    logger,
    healthProbeBindAddress: options.healthProbeBindAddress ?? '0',
    metricsBindAddress: options.metricsBindAddress ?? '0',
    ...(options.metricsSecure !== undefined ? { metricsSecure: options.metricsSecure } : {}),
    ...(options.namespace !== undefined ? { cache: { namespace: options.namespace } } : {}),
    ...(options.leaderElection !== undefined ? { leaderElection: options.leaderElection } : {}),
    ...(options.webhookServer !== undefined ? { webhookServer: options.webhookServer } : {}),
  });
  const events = new EventBroadcaster(manager.transport, { logger });
  const recorder = events.newRecorder({ component: FIELD_MANAGER });
  const apps = new ResourceClient(manager.transport, applicationResource);
  const deploymentResource = options.deploymentResource ?? deploymentsResource;
  const serviceResource = options.serviceResource ?? servicesResource;
  const deployments = new ResourceClient(manager.transport, deploymentResource);
  const services = new ResourceClient(manager.transport, serviceResource);
  const appInformer = manager.cache.forResource(applicationResource);
  const deploymentInformer = manager.cache.forResource(deploymentResource);
  const serviceInformer = manager.cache.forResource(serviceResource);
  const appLister = appInformer.lister();
  const deploymentLister = deploymentInformer.lister();
  const serviceLister = serviceInformer.lister();

  const reconcile = async (key: string, rsignal: AbortSignal) => {
    const [ns, name] = splitMetaNamespaceKey(key);
    const app = appLister.byNamespace(ns).tryGet(name);
    if (app === undefined) return; // gone: its children are garbage-collected or cleaned up
    const nsApps = apps.namespace(ns);
    await applyFinalizer(
      nsApps,
      FINALIZER,
      app,
      {
        apply: async (live) => {
          const action = await ensureChildren(live, ns, rsignal, recorder);
          emit({ type: 'reconciled', key, action });
          const deployment = deploymentLister.byNamespace(ns).tryGet(name);
          const wanted = computeStatus(live, deployment, new Date());
          if (sameStatus(live.status, wanted)) return;
          // Re-read on every attempt: a conflict means someone else wrote in between.
          await retryOnConflict(async () => {
            const fresh = await nsApps.get(name, { signal: rsignal });
            const status = computeStatus(fresh, deployment, new Date());
            await nsApps.updateStatus(
              { ...fresh, status },
              { signal: rsignal, fieldManager: FIELD_MANAGER },
            );
          });
          const ready = wanted.conditions?.[0]?.status === 'True';
          const before = live.status?.conditions?.find((c) => c.type === 'Ready')?.status;
          if (ready && before !== 'True') {
            recorder.eventf(
              live,
              'Normal',
              'Ready',
              '%d replicas available',
              wanted.availableReplicas ?? 0,
            );
          }
          emit({ type: 'status', key, availableReplicas: wanted.availableReplicas ?? 0, ready });
        },
        cleanup: async () => {
          // Idempotent: it may run again after a failed finalizer removal.
          for (const client of [deployments.namespace(ns), services.namespace(ns)]) {
            try {
              await client.delete(name, { signal: rsignal });
            } catch (err) {
              if (!isNotFound(err)) throw err;
            }
          }
          recorder.event(app, 'Normal', 'CleanedUp', 'deleted the Deployment and the Service');
          emit({ type: 'cleaned-up', key });
        },
      },
      { signal: rsignal },
    );
  };

  /** Server-side apply of the children, only when they are missing or differ. */
  const ensureChildren = async (
    app: DeepReadonly<Application>,
    ns: string,
    rsignal: AbortSignal,
    events: EventRecorder,
  ): Promise<'created' | 'updated' | 'unchanged'> => {
    const name = app.metadata?.name ?? '';
    const write = { signal: rsignal, fieldManager: FIELD_MANAGER, force: true };
    let action: 'created' | 'updated' | 'unchanged' = 'unchanged';
    const deployment = desiredDeployment(app);
    const wantDeployment = {
      ...deployment,
      apiVersion: apiVersionOf(deploymentResource),
      kind: 'Deployment',
      metadata: { ...deployment.metadata, name },
    };
    const liveDeployment = deploymentLister.byNamespace(ns).tryGet(name);
    if (liveDeployment === undefined || containerDiffers(liveDeployment, wantDeployment)) {
      await deployments.namespace(ns).apply(wantDeployment, write);
      action = liveDeployment === undefined ? 'created' : 'updated';
      events.eventf(
        app,
        'Normal',
        liveDeployment === undefined ? 'CreatedDeployment' : 'UpdatedDeployment',
        'Deployment %s: %d replicas of %s',
        name,
        app.spec.replicas,
        app.spec.image,
      );
    }
    if (serviceLister.byNamespace(ns).tryGet(name) === undefined) {
      const service = desiredService(app);
      await services.namespace(ns).apply(
        {
          ...service,
          apiVersion: apiVersionOf(serviceResource),
          kind: 'Service',
          metadata: { ...service.metadata, name },
        },
        write,
      );
      events.eventf(app, 'Normal', 'CreatedService', 'Service %s', name);
      if (action === 'unchanged') action = 'created';
    }
    return action;
  };

  const controller = new Controller({
    name: 'application-operator',
    workers: options.workers ?? 2,
    logger,
    reconcile,
  })
    .for(appInformer, { predicate: or(generationChanged, labelsChanged) })
    .owns(deploymentInformer, { kind: 'Application', apiVersion: 'example.com/v1' })
    .owns(serviceInformer, { kind: 'Application', apiVersion: 'example.com/v1' });
  manager.add(controller);
  manager.add({
    name: 'synced-report',
    needLeaderElection: false,
    start: async (rsignal) => {
      const synced = await manager.cache.waitForCacheSync(rsignal).catch(() => undefined);
      if (synced !== undefined && [...synced.values()].every(Boolean)) {
        logger.info('caches synced', { informers: synced.size });
        emit({ type: 'synced' });
      }
    },
  });
  const address = (a: { address: string; port: number } | undefined) =>
    a === undefined ? undefined : `${a.address}:${a.port}`;
  void manager.serving().then(
    () =>
      options.onServing?.({
        healthProbe: address(manager.healthProbeAddress),
        metrics: address(manager.metricsAddress),
      }),
    () => undefined,
  );
  try {
    await manager.start(signal);
  } finally {
    await events.close(AbortSignal.timeout(5000));
  }
}
