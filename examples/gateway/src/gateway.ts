/**
 * The gateway, wired on the Manager: informers for ApiRoutes, AuthPolicies,
 * RateLimitPolicies and Secrets from `manager.cache`; one Controller whose reconcile
 * recompiles the whole routing table from the listers and swaps it into the running HTTP
 * server at once; each resource's verdict written as its `Accepted` condition
 * (observedGeneration included) and, when it changes, as an Event.
 *
 * Copy this file as the starting point of a controller that configures a data plane.
 */
import {
  Controller,
  EventBroadcaster,
  Manager,
  ResourceClient,
  defaultLogger,
  errorMessage,
  findStatusCondition,
  generationChanged,
  getReference,
  secretsResource,
  setStatusCondition,
} from 'kube-controller-kit';
import type {
  ApiResource,
  Condition,
  DeepReadonly,
  KubeConfigLike,
  Logger,
} from 'kube-controller-kit';
import { GatewayConfig } from './config.js';
import type { RoutingTable, Verdict } from './config.js';
import { GatewayServer } from './proxy.js';
import { apiRoutesResource, authPoliciesResource, rateLimitPoliciesResource } from './types.js';
import type { ApiRoute, AuthPolicy, RateLimitPolicy } from './types.js';

/** The field manager and event source of the gateway. */
export const COMPONENT = 'gateway';
/** The condition type the gateway writes on every resource. */
export const ACCEPTED = 'Accepted';
/** The only key of the work queue: every change recompiles the whole table. */
const TABLE_KEY = 'routing-table';

/** What the gateway did after a change (for progress output and tests). */
export interface CompiledEvent {
  /** The table now served. */
  table: RoutingTable;
  /** What became of each resource. */
  verdicts: readonly Verdict[];
}

/** Options of {@link runGateway}. */
export interface GatewayOptions {
  /** Where the gateway listens, `host:port` (default `127.0.0.1:8000`; port 0 picks one). */
  listen?: string;
  /** Watch one namespace (default all). */
  namespace?: string;
  /** Where it logs (default the library's default logger). */
  logger?: Logger;
  /** Called with the gateway's URL once it listens. */
  onListening?: (url: string) => void;
  /** Called after every recompile, once the new table serves. */
  onCompiled?: (event: CompiledEvent) => void;
  /** Probe server address of the Manager (default `'0'`: off). */
  healthProbeBindAddress?: string;
  /** Metrics server address of the Manager (default `'0'`: off). */
  metricsBindAddress?: string;
}

/** `listen` was not `host:port`. */
export class InvalidListenAddressError extends Error {}

function parseListen(listen: string): { host: string; port: number } {
  const m = /^(\[[^\]]+\]|[^:]*):(\d{1,5})$/.exec(listen);
  const port = m === null ? NaN : Number(m[2]);
  if (m === null || port > 65535) {
    throw new InvalidListenAddressError(
      `--listen "${listen}" is not host:port (e.g. 127.0.0.1:8000)`,
    );
  }
  const host = m[1]!.replace(/^\[|\]$/g, '');
  return { host: host === '' ? '0.0.0.0' : host, port };
}

/**
 * Runs the gateway until `signal` aborts; resolves once the HTTP server, the controller,
 * the informers and the event writer have stopped.
 *
 * @param kubeConfig - a client-node KubeConfig: the in-memory server's or a real cluster's.
 * @throws InvalidListenAddressError before starting anything when `listen` is malformed.
 */
export async function runGateway(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  options: GatewayOptions = {},
): Promise<void> {
  const logger = options.logger ?? defaultLogger;
  const { host, port } = parseListen(options.listen ?? '127.0.0.1:8000');
  const manager = new Manager({
    kubeConfig,
    logger,
    healthProbeBindAddress: options.healthProbeBindAddress ?? '0',
    metricsBindAddress: options.metricsBindAddress ?? '0',
    ...(options.namespace !== undefined ? { cache: { namespace: options.namespace } } : {}),
  });
  // Its own transport: events still in its queue are flushed after the manager stopped.
  const broadcaster = new EventBroadcaster(kubeConfig, { logger });
  const recorder = broadcaster.newRecorder({ component: COMPONENT });
  const routes = manager.cache.forResource(apiRoutesResource);
  const authPolicies = manager.cache.forResource(authPoliciesResource);
  const rateLimits = manager.cache.forResource(rateLimitPoliciesResource);
  const secrets = manager.cache.forResource(secretsResource);
  const server = new GatewayServer({ logger });
  const config = new GatewayConfig();

  const clients = {
    ApiRoute: new ResourceClient(manager.transport, apiRoutesResource),
    AuthPolicy: new ResourceClient(manager.transport, authPoliciesResource),
    RateLimitPolicy: new ResourceClient(manager.transport, rateLimitPoliciesResource),
  } as const;
  const listers = {
    ApiRoute: routes.lister(),
    AuthPolicy: authPolicies.lister(),
    RateLimitPolicy: rateLimits.lister(),
  } as const;
  const secretLister = secrets.lister();

  /**
   * What was last written per resource (`uid|generation|status|reason|message`): the
   * informer may not have seen our own last status write when the next compile runs, so
   * the cache alone would make us write (and record) the same thing twice.
   */
  const written = new Map<string, string>();

  /** Writes the verdict as the Accepted condition, and an Event when it changed. */
  const report = async <T extends ApiRoute | AuthPolicy | RateLimitPolicy>(
    verdict: Verdict,
    obj: DeepReadonly<T>,
    client: ResourceClient<T>,
    resource: ApiResource<T>,
    rsignal: AbortSignal,
  ): Promise<void> => {
    const generation = obj.metadata?.generation ?? 0;
    const status = verdict.accepted ? 'True' : 'False';
    const id = `${verdict.kind} ${verdict.key}`;
    const transition = `${obj.metadata?.uid ?? ''}|${generation}|${status}|${verdict.reason}`;
    const signature = `${transition}|${verdict.message}`;
    const cached = findStatusCondition(obj.status?.conditions, ACCEPTED);
    const last =
      written.get(id) ??
      (cached === undefined
        ? undefined
        : `${obj.metadata?.uid ?? ''}|${cached.observedGeneration ?? 0}|${cached.status}|${cached.reason}|${cached.message}`);
    if (last === signature) return;
    const conditions: Condition[] = structuredClone(obj.status?.conditions ?? []) as Condition[];
    setStatusCondition(conditions, {
      type: ACCEPTED,
      status,
      reason: verdict.reason,
      message: verdict.message,
      observedGeneration: generation,
    });
    if (last === undefined || !last.startsWith(`${transition}|`)) {
      // One event per transition (a new generation counts), not per recompile.
      const ref = getReference(obj, resource);
      if (verdict.accepted) recorder.event(ref, 'Normal', 'Accepted', verdict.message);
      else recorder.event(ref, 'Warning', verdict.reason, verdict.message);
    }
    // A merge patch of the status subresource: no resourceVersion, so no conflict with
    // the spec edits users make meanwhile; the gateway owns this condition list.
    await client
      .namespace(obj.metadata?.namespace ?? '')
      .patch(
        obj.metadata?.name ?? '',
        { status: { conditions } },
        { subresource: 'status', fieldManager: COMPONENT, signal: rsignal },
      );
    written.set(id, signature);
  };

  const reconcile = async (_key: string, rsignal: AbortSignal): Promise<void> => {
    const { table, verdicts } = config.compile({
      routes: listers.ApiRoute.list(),
      authPolicies: listers.AuthPolicy.list(),
      rateLimitPolicies: listers.RateLimitPolicy.list(),
      secretValue: (ns, name, key) => {
        const data = secretLister.byNamespace(ns).tryGet(name)?.data?.[key];
        return data === undefined ? undefined : Buffer.from(data, 'base64').toString('utf8');
      },
    });
    server.setTable(table);
    logger.info(
      `gateway: serving ${table.routes.length} route(s): ${table.routes.map((r) => `${r.host || '*'}${r.prefix}`).join(', ') || '(none)'}`,
    );
    options.onCompiled?.({ table, verdicts });
    // Status and events after the swap: the API server being slow never delays routing.
    const failures: string[] = [];
    for (const verdict of verdicts) {
      const [ns = '', name = ''] = verdict.key.split('/');
      try {
        if (verdict.kind === 'ApiRoute') {
          const obj = listers.ApiRoute.byNamespace(ns).tryGet(name);
          if (obj !== undefined) {
            await report(verdict, obj, clients.ApiRoute, apiRoutesResource, rsignal);
          }
        } else if (verdict.kind === 'AuthPolicy') {
          const obj = listers.AuthPolicy.byNamespace(ns).tryGet(name);
          if (obj !== undefined) {
            await report(verdict, obj, clients.AuthPolicy, authPoliciesResource, rsignal);
          }
        } else {
          const obj = listers.RateLimitPolicy.byNamespace(ns).tryGet(name);
          if (obj !== undefined) {
            await report(verdict, obj, clients.RateLimitPolicy, rateLimitPoliciesResource, rsignal);
          }
        }
      } catch (err) {
        failures.push(`${verdict.kind} ${verdict.key}: ${errorMessage(err)}`);
      }
    }
    const current = new Set(verdicts.map((v) => `${v.kind} ${v.key}`));
    for (const id of [...written.keys()]) if (!current.has(id)) written.delete(id);
    // Rejecting requeues the key with backoff: the table is recompiled and the statuses
    // that failed (a conflict with a newer version, say) are written again.
    if (failures.length > 0) throw new Error(`status not written for ${failures.join('; ')}`);
  };

  const toTable = (): string[] => [TABLE_KEY];
  const referencedSecret = (secret: { metadata?: { namespace?: string; name?: string } }) =>
    listers.AuthPolicy.list().some(
      (p) =>
        p.metadata?.namespace === secret.metadata?.namespace &&
        p.spec.secretRef?.name === secret.metadata?.name,
    );
  const controller = new Controller({ name: COMPONENT, reconcile, logger })
    // Status writes change no generation: they do not recompile the table.
    .watches(routes, toTable, { predicate: generationChanged })
    .watches(authPolicies, toTable, { predicate: generationChanged })
    .watches(rateLimits, toTable, { predicate: generationChanged })
    .watches(secrets, toTable, { filter: referencedSecret });
  // Every replica serves traffic, so every replica compiles: no leader election needed.
  manager.add(controller, { needLeaderElection: false });
  manager.add({
    name: 'gateway-http',
    needLeaderElection: false,
    start: async (rsignal) => {
      const url = await server.listen(host, port, rsignal);
      logger.info(`gateway: listening on ${url}`);
      options.onListening?.(url);
      await new Promise<void>((resolve) => {
        if (rsignal.aborted) resolve();
        else rsignal.addEventListener('abort', () => resolve(), { once: true });
      });
      await server.close();
    },
  });
  try {
    await manager.start(signal);
  } finally {
    await server.close().catch(() => undefined);
    await broadcaster.close(AbortSignal.timeout(5_000));
  }
}
