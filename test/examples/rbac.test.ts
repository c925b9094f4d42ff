// The examples' RBAC manifests, proven on the in-memory API server in RBAC mode: each
// example runs as its ServiceAccount (token issued by the server) with exactly the roles
// and bindings of its manifest, and does its whole job (the manifest is enough); then each
// granted verb is removed in turn, and the example fails with kube-apiserver's forbidden
// text for that verb in its log (the manifest is least).
//
// An informer's streaming list (a watch with sendInitialEvents) needs only `watch`; its
// fallback, a paged list, needs `list` too. `list` is proven where it is needed: with the
// server refusing streaming lists (a 422, which turns them off for the reflector), so a
// Role derived from a streaming run does not lose it.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type {
  RecordedRequest,
  ResourceRef,
  TestApiServer,
} from '../../packages/testing/src/index.js';
import { readManifests } from '../../src/program/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger, LogFields } from '../../src/util/logger.js';
import { runOperator } from '../../examples/application-operator/src/operator.js';
import { runDynamicWatcher } from '../../examples/dynamic-watcher/src/dynamic_watcher.js';
import { runPodWatcher } from '../../examples/pod-watcher/src/pod_watcher.js';
import { ACCEPTED, runGateway } from '../../examples/gateway/src/gateway.js';
import { Audit } from '../../examples/audit/src/audit.js';
import { STAMP_LABEL, runReplica } from '../../examples/leader-elected/src/replica.js';
import {
  RING,
  runWidgetController,
  widgetsResource,
} from '../../examples/sharded-operator/src/widgets.js';
import { LeaseLock, RangeShard, Shard, Sharder, runWhileLeading } from '../../src/index.js';
import {
  STATUS_ANNOTATION as FLEET_STATUS_ANNOTATION,
  SYNC_LABEL as FLEET_SYNC_LABEL,
  runFleetSync,
} from '../../examples/fleet-sync/src/fleet_sync.js';
import { crdRef, examplePath, installApplicationCrd } from './support.js';

interface Rule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}

const RBAC_REFS: Record<string, ResourceRef> = {
  Namespace: 'namespaces',
  ServiceAccount: 'serviceaccounts',
  ClusterRole: { group: 'rbac.authorization.k8s.io', resource: 'clusterroles' },
  ClusterRoleBinding: { group: 'rbac.authorization.k8s.io', resource: 'clusterrolebindings' },
  Role: { group: 'rbac.authorization.k8s.io', resource: 'roles' },
  RoleBinding: { group: 'rbac.authorization.k8s.io', resource: 'rolebindings' },
};

/** A log that keeps every line, errors rendered by their message. */
class RecordingLog implements Logger {
  readonly lines: string[] = [];
  #add(level: string, message: string, fields?: LogFields): void {
    const rendered = JSON.stringify(fields ?? {}, (_k, v: unknown) =>
      v instanceof Error ? v.message : v,
    );
    this.lines.push(`${level} ${message} ${rendered}`);
  }
  debug(message: string, fields?: LogFields): void {
    this.#add('debug', message, fields);
  }
  info(message: string, fields?: LogFields): void {
    this.#add('info', message, fields);
  }
  warn(message: string, fields?: LogFields): void {
    this.#add('warn', message, fields);
  }
  error(message: string, fields?: LogFields): void {
    this.#add('error', message, fields);
  }
  /** The first refusal logged: kube-apiserver's text, or the kit's rendering of it. */
  forbidden(): string | undefined {
    return this.lines.find((l) => /is forbidden: User|forbidden: serviceaccount /.test(l));
  }
}

/** Thrown inside a story once the log shows a refusal: the story stops there. */
class Refused extends Error {}

/** What a story may use. */
interface StoryContext {
  server: TestApiServer;
  kubeConfig: KubeConfig;
  logger: RecordingLog;
  signal: AbortSignal;
  /** Streaming or paged (a story that stages its informers arms its own 422s). */
  mode: Mode;
  /** Kubeconfigs of the example's other ServiceAccounts, by key. */
  as: Record<string, KubeConfig>;
  /** Waits until `cond` holds; throws {@link Refused} once the log shows a 403. */
  until: (what: string, cond: () => boolean) => Promise<void>;
}

/** One example: its manifest, its ServiceAccount, how to set the server up, its story. */
interface Example {
  manifest: string;
  serviceAccount: { namespace: string; name: string };
  /** Other ServiceAccounts of the manifest the story runs parts of the example as. */
  others?: Record<string, { namespace: string; name: string }>;
  namespaces: string[];
  /** Feature gates of the server (e.g. server-side sharding). */
  featureGates?: { ShardedListAndWatch?: boolean };
  /** Resources the example lists itself (not through an informer; allowed while streaming). */
  directLists?: string[];
  setup?(server: TestApiServer): Promise<void>;
  /** How many informers the example starts (each one's first streaming list is refused in paged mode). */
  informers: number;
  story(ctx: StoryContext): Promise<void>;
  /** Verbs the story cannot exercise on this server, with why (`resources verb`, or `role resources verb`). */
  unprovable?: Record<string, string>;
}

type Mode = 'streaming' | 'paged';

interface Outcome {
  completed: boolean;
  log: RecordingLog;
  requests: readonly RecordedRequest[];
}

async function attempt(example: Example, docs: UnstructuredObject[], mode: Mode): Promise<Outcome> {
  const server = await startTestApiServer({
    authorization: 'RBAC',
    namespaces: example.namespaces,
    ...(example.featureGates === undefined ? {} : { featureGates: example.featureGates }),
  });
  try {
    await example.setup?.(server);
    for (const doc of docs) {
      const ref = RBAC_REFS[doc.kind ?? ''];
      if (ref === undefined) continue;
      if (doc.kind === 'Namespace' && server.get('namespaces', doc.metadata?.name ?? '')) continue;
      server.create(ref, doc);
    }
    const kubeConfig = server
      .addUser({ serviceAccount: example.serviceAccount, create: false })
      .kubeConfig();
    if (mode === 'paged') {
      server.faults.failNext(example.informers, {
        verb: 'watch',
        code: 422,
        message: 'sendInitialEvents is not supported by this server',
      });
    }
    const as: Record<string, KubeConfig> = {};
    for (const [key, serviceAccount] of Object.entries(example.others ?? {}))
      as[key] = server.addUser({ serviceAccount, create: false }).kubeConfig();
    const logger = new RecordingLog();
    const stop = new AbortController();
    const ctx: StoryContext = {
      server,
      kubeConfig,
      logger,
      signal: stop.signal,
      mode,
      as,
      until: async (what, cond) => {
        const deadline = Date.now() + 15_000;
        for (;;) {
          // A refusal first: an informer refused its streaming list falls back to a list
          // that may succeed within one poll, so the condition can hold after a refusal.
          if (logger.forbidden() !== undefined) throw new Refused(what);
          if (cond()) return;
          if (Date.now() > deadline) {
            const requests = server.requests.map((r) => `${r.method} ${r.url} ${r.code}`);
            assert.fail(
              `${mode}: timed out waiting for: ${what}\nrequests:\n${requests.join('\n')}\nlog:\n${logger.lines.join('\n')}`,
            );
          }
          await new Promise((r) => setTimeout(r, 5));
        }
      },
    };
    let completed = false;
    try {
      await example.story(ctx);
      // The job is done only when nothing was refused on the way, also after the last wait.
      completed = logger.forbidden() === undefined;
    } catch (err) {
      if (!(err instanceof Refused)) throw err;
    }
    return { completed, log: logger, requests: [...server.requests] };
  } finally {
    await server.close();
  }
}

/** The manifest with one verb taken out of one rule (the rule dropped when it has no verb left). */
function without(
  docs: UnstructuredObject[],
  docIndex: number,
  ruleIndex: number,
  verb: string,
): UnstructuredObject[] {
  const copy = structuredClone(docs);
  const doc = copy[docIndex] as UnstructuredObject & { rules: Rule[] };
  const rule = doc.rules[ruleIndex]!;
  rule.verbs = rule.verbs.filter((v) => v !== verb);
  if (rule.verbs.length === 0) doc.rules.splice(ruleIndex, 1);
  return copy;
}

/** Proves a manifest enough and least; returns how many verbs were removed in turn. */
async function proveManifest(example: Example): Promise<number> {
  const docs = await readManifests(examplePath(example.manifest));
  for (const mode of ['streaming', 'paged'] as const) {
    const full = await attempt(example, docs, mode);
    assert.ok(
      full.completed,
      `${mode}: the example did its job under its manifest; refused: ${full.log.forbidden()}`,
    );
    assert.equal(full.log.forbidden(), undefined, `${mode}: no request was refused`);
    const lists = full.requests.filter(
      (r) =>
        r.verb === 'list' && r.code === 200 && !(example.directLists ?? []).includes(r.resource),
    ).length;
    if (mode === 'paged') assert.ok(lists > 0, 'paged: the informers listed');
    else assert.equal(lists, 0, 'streaming: the informers never listed');
  }
  let proven = 0;
  const accounts = [example.serviceAccount, ...Object.values(example.others ?? {})];
  for (const [docIndex, doc] of docs.entries()) {
    if (doc.kind !== 'Role' && doc.kind !== 'ClusterRole') continue;
    for (const [ruleIndex, rule] of ((doc as { rules?: Rule[] }).rules ?? []).entries()) {
      for (const verb of rule.verbs) {
        const label = `${doc.kind}/${doc.metadata?.name} ${JSON.stringify(rule.apiGroups)} ${JSON.stringify(rule.resources)} ${verb}`;
        const key = `${(rule.resources ?? []).join(',')} ${verb}`;
        const why =
          example.unprovable?.[`${doc.metadata?.name} ${key}`] ?? example.unprovable?.[key];
        if (why !== undefined) continue;
        // `list` is needed by the paged-list fallback; everything else shows while streaming.
        const mode: Mode = verb === 'list' ? 'paged' : 'streaming';
        const out = await attempt(example, without(docs, docIndex, ruleIndex, verb), mode);
        proven++;
        assert.ok(!out.completed, `without ${label} the example still did its job (${mode})`);
        const line = out.log.forbidden() ?? '';
        // kube-apiserver's words name `resource/sub`; the kit's rendering `resource.group/sub`.
        const names = (rule.resources ?? []).flatMap((r) => {
          if (r === '*') return [''];
          const [base = '', ...sub] = r.split('/');
          const groups = (rule.apiGroups ?? []).filter((g) => g !== '' && g !== '*');
          const kit = groups.map((g) => `${base}.${g}${sub.length > 0 ? `/${sub.join('/')}` : ''}`);
          return [r, ...kit];
        });
        assert.ok(
          accounts.some(({ namespace, name }) =>
            names.some(
              (r) =>
                line.includes(
                  `User "system:serviceaccount:${namespace}:${name}" cannot ${verb} resource "${r}`,
                ) ||
                line.includes(`forbidden: serviceaccount ${namespace}/${name} cannot ${verb} ${r}`),
            ),
          ),
          `without ${label} the log names the refusal; got: ${line}`,
        );
      }
    }
  }
  return proven;
}

const appsRef = { group: 'example.com', resource: 'applications' };
const deploymentsRef = { group: 'apps', resource: 'deployments' };

describe('examples: RBAC manifests are enough and least, proven under RBAC', () => {
  test('pod-watcher: list and watch pods', async () => {
    const proven = await proveManifest({
      manifest: 'pod-watcher/rbac.yaml',
      serviceAccount: { namespace: 'pod-watcher', name: 'pod-watcher' },
      namespaces: ['default', 'pod-watcher'],
      informers: 1,
      async story({ server, kubeConfig, logger, signal, until }) {
        server.create('pods', { metadata: { name: 'p', namespace: 'default' } });
        let reports = 0;
        const stop = new AbortController();
        signal.addEventListener('abort', () => stop.abort());
        const running = runPodWatcher(kubeConfig, stop.signal, {
          logger,
          onReport: () => reports++,
        });
        try {
          await until('a report', () => reports > 0);
        } finally {
          stop.abort();
          await running;
        }
      },
    });
    assert.equal(proven, 2, 'every granted verb was removed in turn');
  });

  test('application-operator: deploy/rbac.yaml, with leader election', async () => {
    const proven = await proveManifest({
      manifest: 'application-operator/deploy/rbac.yaml',
      serviceAccount: { namespace: 'application-operator', name: 'application-operator' },
      namespaces: ['default', 'application-operator'],
      setup: installApplicationCrd,
      informers: 3,
      unprovable: {
        // kube-apiserver's OwnerReferencesPermissionEnforcement admission plugin checks it;
        // the in-memory server does not run that plugin.
        'applications/finalizers update': 'checked by an admission plugin the server lacks',
        // The event correlator patches only when the same event repeats within its window.
        'events patch': 'only when an event repeats',
      },
      async story({ server, kubeConfig, logger, until }) {
        const stop = new AbortController();
        const running = runOperator(kubeConfig, stop.signal, {
          logger,
          leaderElection: {
            id: 'application-operator',
            namespace: 'application-operator',
            leaseDurationMs: 1500,
            renewDeadlineMs: 1000,
            retryPeriodMs: 100,
          },
        });
        try {
          server.create(appsRef, {
            apiVersion: 'example.com/v1',
            kind: 'Application',
            metadata: { name: 'shop', namespace: 'default' },
            spec: { image: 'nginx:1.27', replicas: 1, port: 8080 },
          });
          await until('children', () => server.get('services', 'shop', 'default') !== undefined);
          await until(
            'the Deployment',
            () => server.get(deploymentsRef, 'shop', 'default') !== undefined,
          );
          const d = server.get(deploymentsRef, 'shop', 'default')!;
          server.update(deploymentsRef, { ...d, status: { availableReplicas: 1, replicas: 1 } });
          await until('Ready status', () => {
            const app = server.get<{ status?: unknown }>(appsRef, 'shop', 'default');
            return JSON.stringify(app?.status ?? {}).includes('"True"');
          });
          const app = server.get(appsRef, 'shop', 'default')!;
          server.update(appsRef, {
            ...app,
            spec: { image: 'nginx:1.28', replicas: 3, port: 8080 },
          });
          await until('scaled', () => {
            const dep = server.get<{ spec?: { replicas?: number } }>(
              deploymentsRef,
              'shop',
              'default',
            );
            return dep?.spec?.replicas === 3;
          });
          server.delete(appsRef, 'shop', 'default');
          await until('cleanup', () => server.get(appsRef, 'shop', 'default') === undefined);
          await until('a lease renewal', () =>
            server.requests.some(
              (r) => r.resource === 'leases' && r.verb === 'update' && r.code === 200,
            ),
          );
        } finally {
          stop.abort();
          await running;
        }
      },
    });
    // 19: deployments and services `create` too (an apply that creates is authorized as create).
    assert.equal(proven, 19, 'every granted verb was removed in turn');
  });

  test('dynamic-watcher: list/watch CRDs and the followed group', async () => {
    const proven = await proveManifest({
      manifest: 'dynamic-watcher/rbac.yaml',
      serviceAccount: { namespace: 'dynamic-watcher', name: 'dynamic-watcher' },
      namespaces: ['default', 'dynamic-watcher'],
      setup: installApplicationCrd,
      informers: 2,
      async story({ server, kubeConfig, logger, until }) {
        const stop = new AbortController();
        let events = 0;
        const running = runDynamicWatcher(kubeConfig, stop.signal, {
          logger,
          onEvent: () => events++,
        });
        try {
          server.create(appsRef, {
            apiVersion: 'example.com/v1',
            kind: 'Application',
            metadata: { name: 'dyn', namespace: 'default' },
            spec: { image: 'nginx', replicas: 1 },
          });
          await until('an event for the Application', () => events > 0);
          // Its job includes following CRDs: the Application's event can come before the CRD
          // informer is refused, so wait for the CRD watch to be accepted too (open: code 0).
          await until('the CRDs watched', () =>
            server.requests.some(
              (r) =>
                r.resource === 'customresourcedefinitions' &&
                r.verb === 'watch' &&
                (r.code === 0 || r.code === 200),
            ),
          );
        } finally {
          stop.abort();
          await running;
        }
      },
    });
    assert.equal(proven, 4, 'every granted verb was removed in turn');
  });

  test('leader-elected: ConfigMaps and its one Lease, in its namespace', async () => {
    const proven = await proveManifest({
      manifest: 'leader-elected/rbac.yaml',
      serviceAccount: { namespace: 'leader-elected-example', name: 'leader-elected-example' },
      namespaces: ['default'],
      informers: 1,
      async story({ server, kubeConfig, logger, until }) {
        const stop = new AbortController();
        let stamped = false;
        const done = runReplica(kubeConfig, stop.signal, {
          identity: 'replica-a',
          namespace: 'leader-elected-example',
          logger,
          timing: { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 },
          onEvent: (e) => {
            if (e.type === 'stamped') stamped = true;
          },
        });
        try {
          server.create('configmaps', {
            apiVersion: 'v1',
            kind: 'ConfigMap',
            metadata: {
              name: 'c',
              namespace: 'leader-elected-example',
              labels: { [STAMP_LABEL]: 'true' },
            },
          });
          await until('a stamp', () => stamped);
          await until('a lease renewal', () =>
            server.requests.some(
              (r) => r.resource === 'leases' && r.verb === 'update' && r.code === 200,
            ),
          );
        } finally {
          stop.abort();
          await done;
        }
      },
    });
    assert.equal(proven, 6, 'every granted verb was removed in turn');
  });

  test('gateway: its three resources and their status, Secrets and Events', async () => {
    const gw = (resource: string) => ({ group: 'gateway.example.com', resource });
    const meta = { namespace: 'default' };
    const proven = await proveManifest({
      manifest: 'gateway/rbac.yaml',
      serviceAccount: { namespace: 'gateway', name: 'gateway' },
      namespaces: ['default', 'gateway'],
      async setup(server) {
        for (const crd of await readManifests(examplePath('gateway/crds.yaml'))) {
          server.create(crdRef, crd);
        }
      },
      informers: 4,
      unprovable: {
        // The event correlator patches only when the same event repeats within its window.
        'events patch': 'only when an event repeats',
      },
      async story({ server, kubeConfig, logger, until }) {
        const stop = new AbortController();
        let compiledRoutes = 0;
        const running = runGateway(kubeConfig, stop.signal, {
          listen: '127.0.0.1:0',
          logger,
          onCompiled: (e) => (compiledRoutes = e.table.routes.length),
        });
        try {
          server.create('secrets', {
            metadata: { name: 'tokens', ...meta },
            data: { keys: Buffer.from('t-1\n').toString('base64') },
          });
          server.create(gw('authpolicies'), {
            apiVersion: 'gateway.example.com/v1',
            kind: 'AuthPolicy',
            metadata: { name: 'bearer', ...meta },
            spec: { type: 'bearer', secretRef: { name: 'tokens' } },
          });
          server.create(gw('ratelimitpolicies'), {
            apiVersion: 'gateway.example.com/v1',
            kind: 'RateLimitPolicy',
            metadata: { name: 'calm', ...meta },
            spec: { requestsPerSecond: 10, burst: 20, per: 'client' },
          });
          server.create(gw('apiroutes'), {
            apiVersion: 'gateway.example.com/v1',
            kind: 'ApiRoute',
            metadata: { name: 'shop', ...meta },
            spec: {
              pathPrefix: '/shop',
              upstream: 'http://127.0.0.1:1',
              authPolicy: 'bearer',
              rateLimitPolicy: 'calm',
            },
          });
          const accepted = (resource: string, name: string) => {
            const o = server.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
              gw(resource),
              name,
              'default',
            );
            return o?.status?.conditions?.some((c) => c.type === ACCEPTED && c.status === 'True');
          };
          await until(
            'all three Accepted',
            () =>
              accepted('apiroutes', 'shop') === true &&
              accepted('authpolicies', 'bearer') === true &&
              accepted('ratelimitpolicies', 'calm') === true,
          );
          await until('the route served', () => compiledRoutes > 0);
          await until('an Event', () => server.list('events', 'default').length > 0);
        } finally {
          stop.abort();
          await running;
        }
      },
    });
    assert.equal(proven, 6, 'every granted verb was removed in turn');
  });

  test('audit: list/watch on every resource, Events', async () => {
    // One informer per resource the audit follows: counted from its first (streaming)
    // run, so the paged runs refuse exactly that many streaming lists.
    let followed: number | undefined;
    const proven = await proveManifest({
      manifest: 'audit/rbac.yaml',
      serviceAccount: { namespace: 'audit', name: 'audit' },
      namespaces: ['default', 'audit'],
      informers: 0, // the story arms the paged runs' refusals itself
      unprovable: {
        // The event correlator patches only when the same event repeats within its window.
        'events patch': 'only when an event repeats',
      },
      async story({ server, kubeConfig, logger, mode, until }) {
        if (mode === 'paged') {
          assert.ok(followed !== undefined && followed > 10, 'the streaming run came first');
          server.faults.failNext(followed, {
            verb: 'watch',
            code: 422,
            message: 'sendInitialEvents is not supported by this server',
          });
        }
        server.create('configmaps', { metadata: { name: 'bare', namespace: 'default' } });
        const audit = new Audit({ logger });
        const stop = new AbortController();
        const running = audit.run(kubeConfig, stop.signal);
        try {
          await until('synced', () => audit.synced);
          await until(
            'a violation recorded as an Event',
            () => server.list('events', 'default').length > 0,
          );
        } finally {
          stop.abort();
          await running;
        }
        followed ??= new Set(
          server.requests
            .filter((r) => r.verb === 'watch' && r.url.includes('sendInitialEvents=true'))
            .map((r) => `${r.group}/${r.resource}`),
        ).size;
      },
    });
    assert.equal(proven, 3, 'every granted verb was removed in turn');
  });

  test('sharded-operator: the sharder and its replicas (--mode=labels)', async () => {
    const ns = 'default';
    const widgetsRef = { group: 'example.com', resource: 'widgets' };
    const timing = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 };
    const proven = await proveManifest({
      manifest: 'sharded-operator/rbac.yaml',
      serviceAccount: { namespace: ns, name: 'widgets-sharder' },
      others: { shard: { namespace: ns, name: 'widgets-shard' } },
      namespaces: [ns],
      async setup(server) {
        for (const crd of await readManifests(examplePath('sharded-operator/crd.yaml')))
          server.create(crdRef, crd);
      },
      // The story stages its informers and refuses each one's first streaming list itself.
      informers: 0,
      unprovable: {
        // The replica's Shard lists the ring's Leases only in --mode=server (its ranges).
        'widgets-shard leases list': 'only --mode=server lists the ring (proven there)',
      },
      async story({ server, kubeConfig, as, logger, mode, until }) {
        const stop = new AbortController();
        const running: Promise<unknown>[] = [];
        const refusals = (): number =>
          server.requests.filter((r) => r.verb === 'watch' && r.code === 422).length;
        /** Starts one part; in paged mode its informers' first streaming lists are refused first. */
        const staged = async (what: string, resources: string[], start: () => void) => {
          const before = refusals();
          if (mode === 'paged')
            for (const resource of resources)
              server.faults.failNext(1, {
                verb: 'watch',
                resource,
                code: 422,
                message: 'sendInitialEvents is not supported by this server',
              });
          start();
          if (mode === 'paged')
            await until(
              `${what}: streaming refused`,
              () => refusals() >= before + resources.length,
            );
        };
        const widgets = Array.from({ length: 12 }, (_, i) => `widget-${i}`);
        for (const [i, name] of widgets.entries())
          server.create(widgetsRef, {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name, namespace: ns },
            spec: { size: i },
          });
        const shardOf = (name: string): string | undefined =>
          server.get<{ status?: { shard?: string } }>(widgetsRef, name, ns)?.status?.shard;
        const replica = (name: string): void => {
          const shard = new Shard({
            ring: RING,
            name,
            namespace: ns,
            source: as.shard!,
            logger,
            ...timing,
          });
          running.push(
            shard.run(
              (s) =>
                runWidgetController(as.shard!, { mode: 'labels', shard }, ns, s, {
                  logger,
                  onReconcile: () => {},
                }),
              stop.signal,
            ),
          );
        };
        try {
          const sharder = new Sharder({
            ring: RING,
            leaseNamespace: ns,
            namespace: ns,
            resources: [{ resource: widgetsResource }],
            source: kubeConfig,
            logger,
          });
          await staged('the sharder', ['leases', 'widgets'], () =>
            running.push(
              runWhileLeading(
                {
                  lock: LeaseLock.fromKubeConfig(kubeConfig, {
                    namespace: ns,
                    name: `${RING}-sharder`,
                    identity: 'sharder',
                  }),
                  releaseOnCancel: true,
                  logger,
                  ...timing,
                  run: (s) => sharder.run(s),
                },
                stop.signal,
              ),
            ),
          );
          await staged('replica-0', ['widgets'], () => replica('replica-0'));
          await until('replica-0 reconciled every Widget', () =>
            widgets.every((w) => shardOf(w) === 'replica-0'),
          );
          await staged('replica-1', ['widgets'], () => replica('replica-1'));
          // Widgets move only after replica-0 released them (the drain handshake's patch).
          await until('Widgets drained to replica-1', () =>
            widgets.some((w) => shardOf(w) === 'replica-1'),
          );
          const renewed = (lease: (name: string) => boolean) => () =>
            server.requests.some(
              (r) =>
                r.resource === 'leases' && r.verb === 'update' && r.code === 200 && lease(r.name),
            );
          await until(
            'the sharder renewed its Lease',
            renewed((n) => n === `${RING}-sharder`),
          );
          await until(
            'a shard renewed its Lease',
            renewed((n) => n !== `${RING}-sharder`),
          );
        } finally {
          stop.abort();
          await Promise.allSettled(running);
        }
      },
    });
    assert.equal(proven, 15, 'every granted verb but one was removed in turn');
  });

  test('sharded-operator: replicas on hash ranges (--mode=server)', async () => {
    const ns = 'default';
    const widgetsRef = { group: 'example.com', resource: 'widgets' };
    const timing = { leaseDurationMs: 1500, renewDeadlineMs: 1000, retryPeriodMs: 100 };
    const noSharder = 'no sharder runs in --mode=server (proven in --mode=labels)';
    const proven = await proveManifest({
      manifest: 'sharded-operator/rbac.yaml',
      serviceAccount: { namespace: ns, name: 'widgets-shard' },
      namespaces: [ns],
      featureGates: { ShardedListAndWatch: true },
      // A RangeShard reads the ring's Leases with plain lists.
      directLists: ['leases'],
      async setup(server) {
        for (const crd of await readManifests(examplePath('sharded-operator/crd.yaml')))
          server.create(crdRef, crd);
      },
      informers: 0,
      unprovable: {
        'widgets-sharder widgets list': noSharder,
        'widgets-sharder widgets watch': noSharder,
        'widgets-sharder widgets patch': noSharder,
        'widgets-sharder leases get': noSharder,
        'widgets-sharder leases list': noSharder,
        'widgets-sharder leases watch': noSharder,
        'widgets-sharder leases create': noSharder,
        'widgets-sharder leases update': noSharder,
        // The replica patches a Widget only to release it in a drain (label mode).
        'widgets-shard widgets patch': 'only --mode=labels releases Widgets (proven there)',
      },
      async story({ server, kubeConfig, logger, mode, until }) {
        const stop = new AbortController();
        const running: Promise<unknown>[] = [];
        const refusals = (): number =>
          server.requests.filter((r) => r.verb === 'watch' && r.code === 422).length;
        const staged = async (what: string, start: () => void): Promise<void> => {
          const before = refusals();
          if (mode === 'paged')
            server.faults.failNext(1, {
              verb: 'watch',
              resource: 'widgets',
              code: 422,
              message: 'sendInitialEvents is not supported by this server',
            });
          start();
          if (mode === 'paged')
            await until(`${what}: streaming refused`, () => refusals() > before);
        };
        const widgets = Array.from({ length: 12 }, (_, i) => `widget-${i}`);
        for (const [i, name] of widgets.entries())
          server.create(widgetsRef, {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name, namespace: ns },
            spec: { size: i },
          });
        const shardOf = (name: string): string | undefined =>
          server.get<{ status?: { shard?: string } }>(widgetsRef, name, ns)?.status?.shard;
        const replica = (name: string): void => {
          const rangeShard = new RangeShard({
            ring: RING,
            name,
            namespace: ns,
            source: kubeConfig,
            logger,
            ...timing,
          });
          running.push(
            rangeShard.run(
              (shardSelector, s) =>
                runWidgetController(kubeConfig, { mode: 'server', name, shardSelector }, ns, s, {
                  logger,
                  onReconcile: () => {},
                }),
              stop.signal,
            ),
          );
        };
        try {
          await staged('replica-0', () => replica('replica-0'));
          await until('replica-0 reconciled every Widget', () =>
            widgets.every((w) => shardOf(w) === 'replica-0'),
          );
          await staged('replica-1', () => replica('replica-1'));
          await until('ranges moved to replica-1', () =>
            widgets.some((w) => shardOf(w) === 'replica-1'),
          );
          await until('a shard renewed its Lease', () =>
            server.requests.some(
              (r) => r.resource === 'leases' && r.verb === 'update' && r.code === 200,
            ),
          );
        } finally {
          stop.abort();
          await Promise.allSettled(running);
        }
      },
    });
    assert.equal(proven, 7, 'every verb a replica is granted was removed in turn');
  });

  /** ConfigMaps of the fleet-sync stories. */
  type FleetCM = {
    metadata: {
      name: string;
      namespace: string;
      labels?: Record<string, string>;
      annotations?: Record<string, string>;
    };
    data?: Record<string, string>;
  };
  const fleetCM = (name: string, data: Record<string, string>) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'default', labels: { [FLEET_SYNC_LABEL]: 'true' } },
    data,
  });

  test('fleet-sync: rbac-hub.yaml in the hub (members with full rights), with leader election', async () => {
    const proven = await proveManifest({
      manifest: 'fleet-sync/rbac-hub.yaml',
      serviceAccount: { namespace: 'fleet-sync', name: 'fleet-sync' },
      namespaces: ['default', 'fleet-sync'],
      informers: 1,
      async story({ server, kubeConfig, logger, until }) {
        const member = await startTestApiServer();
        const dir = mkdtempSync(join(tmpdir(), 'fleet-rbac-'));
        const stop = new AbortController();
        let running: Promise<void> | undefined;
        try {
          await member.writeKubeconfig(join(dir, 'member-a.kubeconfig'));
          server.create('configmaps', fleetCM('settings', { mode: 'blue' }));
          running = runFleetSync(kubeConfig, dir, stop.signal, {
            logger,
            debounceMs: 50,
            leaderElection: {
              id: 'fleet-sync',
              namespace: 'fleet-sync',
              leaseDurationMs: 1500,
              renewDeadlineMs: 1000,
              retryPeriodMs: 100,
            },
          });
          const status = () =>
            server.get<FleetCM>('configmaps', 'settings', 'default')?.metadata.annotations?.[
              FLEET_STATUS_ANNOTATION
            ];
          await until('the status written (patch)', () => status() === 'member-a');
          const cm = server.get<FleetCM>('configmaps', 'settings', 'default')!;
          server.update('configmaps', { ...cm, metadata: { ...cm.metadata, labels: {} } });
          await until(
            'the status removed with the label (get, patch)',
            () => status() === undefined,
          );
          await until('a lease renewal', () =>
            server.requests.some(
              (r) => r.resource === 'leases' && r.verb === 'update' && r.code === 200,
            ),
          );
        } finally {
          stop.abort();
          await running;
          await member.close();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    });
    assert.equal(proven, 7, 'every granted verb was removed in turn');
  });

  test('fleet-sync: rbac-member.yaml in a member (the hub with full rights)', async () => {
    const proven = await proveManifest({
      manifest: 'fleet-sync/rbac-member.yaml',
      serviceAccount: { namespace: 'fleet-sync', name: 'fleet-sync-member' },
      namespaces: ['default', 'fleet-sync'],
      informers: 2,
      async story({ server, kubeConfig, logger, until }) {
        const hub = await startTestApiServer();
        const dir = mkdtempSync(join(tmpdir(), 'fleet-rbac-'));
        const stop = new AbortController();
        let running: Promise<void> | undefined;
        try {
          // The member's kubeconfig file holds the ServiceAccount's token, inline.
          writeFileSync(join(dir, 'member-a.kubeconfig'), kubeConfig.exportConfig());
          hub.create('configmaps', fleetCM('settings', { mode: 'blue' }));
          running = runFleetSync(hub.kubeConfig(), dir, stop.signal, { logger, debounceMs: 50 });
          const copy = () => server.get<FleetCM>('configmaps', 'settings', 'default');
          await until('the copy created', () => copy()?.data?.mode === 'blue');
          const source = hub.get<FleetCM>('configmaps', 'settings', 'default')!;
          hub.update('configmaps', { ...source, data: { mode: 'green' } });
          await until('the copy updated', () => copy()?.data?.mode === 'green');
          hub.delete('configmaps', 'settings', 'default');
          await until('the copy deleted', () => copy() === undefined);
        } finally {
          stop.abort();
          await running;
          await hub.close();
          rmSync(dir, { recursive: true, force: true });
        }
      },
    });
    assert.equal(proven, 7, 'every granted verb was removed in turn');
  });
});
