// One stuck informer must not stop the others (issue #37, part 1), against the in-memory
// API server with RBAC on. In controller-runtime a Manager whose ServiceAccount may list
// ConfigMaps but not Secrets reconciles nothing: every Kind source waits for the whole
// cache, and the first controller to pass its CacheSyncTimeout (2 min) stops the manager.
// Here:
// - a controller starts once its own informers synced; a runnable that is not a
//   controller once every informer synced or is stuck (refused: 401/403/404/400);
// - the stuck informer is said once at error level, with the RBAC rule in manifest words,
//   and its recovery at info; granted the rule, the waiting controller starts, no restart;
// - the cache sync timeout (controller-runtime's CacheSyncTimeout) gives a typed error
//   naming the informer and its last cause: with onCacheSyncTimeout 'stop' start()
//   rejects with it (controller-runtime's behaviour), with 'keepRunning' the rest runs;
// - a controller for a kind whose CRD is not installed starts when the CRD appears;
// - /readyz (kube-apiserver's verbose lines) and kube_controller_kit_controller_state say
//   which controller runs and which waits.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { configMapsResource, secretsResource } from '../../src/client/builtins.js';
import { ApiError } from '../../src/client/errors.js';
import type { ApiResource, UnstructuredObject } from '../../src/client/types.js';
import { CacheSyncTimeoutError } from '../../src/cache/wait.js';
import { Controller } from '../../src/controller/index.js';
import {
  InvalidManagerOptionsError,
  Manager,
  RunnableFailedError,
  controllerCheckName,
} from '../../src/manager/index.js';
import type { ManagerOptions } from '../../src/manager/index.js';
import { PrometheusControllerMetricsProvider } from '../../src/metrics/index.js';
import { FakeClock } from '../../src/util/clock.js';
import type { Logger } from '../../src/util/logger.js';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { crdRef, fastBackoff, makeCr, makeCrd } from '../dynamic/helpers.js';
import { eventually } from '../support/eventually.js';
import { httpGet, recordingLogger } from './support.js';

const rbac = (resource: string) => ({ group: 'rbac.authorization.k8s.io', resource });
const SECRETS_RULE = 'apiGroups: [""], resources: ["secrets"], verbs: ["list","watch"]';

/** Let the ServiceAccount ops/<name> list and watch `resources` cluster-wide. */
function grant(server: TestApiServer, name: string, resources: string[]): void {
  server.create(rbac('clusterroles'), {
    metadata: { name },
    rules: [{ apiGroups: [''], resources, verbs: ['list', 'watch'] }],
  });
  server.create(rbac('clusterrolebindings'), {
    metadata: { name },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
    subjects: [{ kind: 'ServiceAccount', name: 'op', namespace: 'ops' }],
  });
}

function configMap(name: string): UnstructuredObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'default' } };
}

function secret(name: string): UnstructuredObject {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'default' } };
}

/** Two controllers, ConfigMaps and Secrets, each recording what it reconciled. */
function twoControllers(
  manager: Manager,
  options: { logger: Logger; registry?: Registry; clock?: FakeClock },
): { configMaps: Controller; secrets: Controller; reconciled: string[] } {
  const reconciled: string[] = [];
  const metrics =
    options.registry !== undefined
      ? {
          controllerMetricsProvider: new PrometheusControllerMetricsProvider({
            registry: options.registry,
          }),
        }
      : {};
  const common = {
    logger: options.logger,
    ...metrics,
    ...(options.clock !== undefined ? { clock: options.clock } : {}),
  };
  const configMaps = new Controller({
    name: 'configmaps',
    ...common,
    reconcile: (key) => void reconciled.push(`configmap ${key}`),
  }).for(manager.informer(configMapsResource));
  const secrets = new Controller({
    name: 'secrets',
    ...common,
    reconcile: (key) => void reconciled.push(`secret ${key}`),
  }).for(manager.informer(secretsResource));
  manager.add(configMaps).add(secrets);
  return { configMaps, secrets, reconciled };
}

/** Advance the fake clock in steps, letting sockets work between them, until `cond`. */
async function drive(clock: FakeClock, what: string, cond: () => boolean): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (cond()) return;
    await clock.advance(100);
    await new Promise((r) => setTimeout(r, 1));
  }
  assert.fail(`the fake clock reached ${clock.now()} without: ${what}`);
}

describe('one stuck informer does not stop the others (issue #37)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ authorization: 'RBAC', namespaces: ['default', 'ops'] });
    grant(server, 'configmaps-reader', ['configmaps']);
    server.create('configmaps', configMap('a'));
    server.create('secrets', secret('s1'));
  });
  after(() => server.close());

  function options(extra: Partial<ManagerOptions>): ManagerOptions {
    return {
      kubeConfig: server.addUser({ serviceAccount: { namespace: 'ops', name: 'op' } }).kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      cache: { informerOptions: { backoff: fastBackoff } },
      ...extra,
    };
  }

  test('ConfigMaps allowed, Secrets forbidden: the ConfigMaps controller reconciles; the log says the Secrets rule once, in manifest words; /readyz and the state metric say which runs and which waits; granted the rule, Secrets starts without a restart', async () => {
    const { logger, lines } = recordingLogger();
    const registry = new Registry();
    const manager = new Manager(options({ logger, healthProbeBindAddress: '127.0.0.1:0' }));
    const { secrets, reconciled } = twoControllers(manager, { logger, registry });
    // The rule for runnables that are not controllers: they start once every informer
    // synced or is stuck (refused in a way retrying cannot fix), not when all synced.
    let secretsSyncedWhenOtherStarted: boolean | undefined;
    manager.add({
      name: 'status-reporter',
      needLeaderElection: false,
      start: async (signal) => {
        secretsSyncedWhenOtherStarted = manager.informer(secretsResource).hasSynced();
        await new Promise((r) => signal.addEventListener('abort', r, { once: true }));
      },
    });
    assert.equal(await manager.readyz.run(controllerCheckName('secrets')), undefined, 'standby');
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await manager.serving();
      await eventually('the ConfigMaps controller reconciled', () =>
        reconciled.includes('configmap default/a'),
      );
      assert.equal(
        secretsSyncedWhenOtherStarted,
        false,
        'the other runnable did not wait for Secrets',
      );
      await eventually(
        'the Secrets informer retried a few times',
        () =>
          lines.filter((l) => /^debug informer secrets\/v1: list and watch failed again/.test(l))
            .length >= 3,
      );
      const said = lines.filter((l) => l.includes(SECRETS_RULE));
      assert.equal(said.length, 1, `the rule is said once:\n${lines.join('\n')}`);
      assert.match(
        said[0]!,
        /^error informer secrets\/v1 cannot list and watch secrets: forbidden: serviceaccount ops\/op cannot list secrets at the cluster scope\. Grant the operator's ServiceAccount this RBAC rule cluster-wide/,
      );
      assert.ok(!reconciled.some((r) => r.startsWith('secret ')));
      assert.equal(secrets.state, 'waiting');

      const verbose = await httpGet(manager.healthProbeAddress, '/readyz?verbose');
      assert.equal(verbose.status, 500);
      const checkLines = verbose.body.split('\n');
      assert.ok(checkLines.includes('[+]controller-configmaps ok'), verbose.body);
      assert.ok(checkLines.includes('[-]controller-secrets failed: reason withheld'), verbose.body);
      assert.ok(checkLines.includes('[-]informer-sync failed: reason withheld'), verbose.body);
      const one = await httpGet(manager.healthProbeAddress, '/readyz/controller-secrets');
      assert.equal(one.status, 500);
      assert.match(
        one.body,
        /^internal server error: controller secrets waits for its informers to sync: secrets\/v1 \(last error, for \d+ ms: forbidden: serviceaccount ops\/op cannot list secrets at the cluster scope\)/,
      );
      assert.equal(
        (await httpGet(manager.healthProbeAddress, '/readyz/controller-configmaps')).status,
        200,
      );
      const metrics = await registry.metrics();
      assert.match(
        metrics,
        /kube_controller_kit_controller_state\{controller="configmaps",state="running"\} 1/,
      );
      assert.match(
        metrics,
        /kube_controller_kit_controller_state\{controller="secrets",state="waiting"\} 1/,
      );
      assert.match(
        metrics,
        /kube_controller_kit_controller_state\{controller="secrets",state="running"\} 0/,
      );

      grant(server, 'secrets-reader', ['secrets']);
      await eventually('the Secrets controller reconciled once allowed', () =>
        reconciled.includes('secret default/s1'),
      );
      assert.equal(secrets.state, 'running');
      assert.equal(lines.filter((l) => /^info informer secrets\/v1 recovered/.test(l)).length, 1);
      assert.equal(lines.filter((l) => l.includes(SECRETS_RULE)).length, 1, 'still said once');
      const ready = await httpGet(manager.healthProbeAddress, '/readyz?verbose');
      assert.equal(ready.status, 200, ready.body);
      assert.ok(ready.body.split('\n').includes('[+]controller-secrets ok'));
      assert.match(
        await registry.metrics(),
        /kube_controller_kit_controller_state\{controller="secrets",state="running"\} 1/,
      );
    } finally {
      stop.abort();
      await running;
    }
    assert.equal(secrets.state, 'stopped');
  });

  for (const policy of ['stop', 'keepRunning'] as const) {
    test(`CacheSyncTimeout on the fake clock, onCacheSyncTimeout '${policy}': the Secrets controller fails with a CacheSyncTimeoutError naming secrets/v1 and its 403; ${policy === 'stop' ? 'start() rejects with it (controller-runtime: the manager returns the error from Start)' : 'the rest keeps running and Secrets still starts once allowed'}`, async () => {
      const clock = new FakeClock();
      const user = `op-${policy.toLowerCase()}`;
      // A ServiceAccount of its own: this test grants Secrets to it at the end.
      server.create(rbac('clusterrolebindings'), {
        metadata: { name: `${user}-configmaps` },
        roleRef: {
          apiGroup: 'rbac.authorization.k8s.io',
          kind: 'ClusterRole',
          name: 'configmaps-reader',
        },
        subjects: [{ kind: 'ServiceAccount', name: user, namespace: 'ops' }],
      });
      const { logger, lines } = recordingLogger();
      const manager = new Manager({
        ...options({ logger, clock }),
        kubeConfig: server
          .addUser({ serviceAccount: { namespace: 'ops', name: user } })
          .kubeConfig(),
        healthProbeBindAddress: '127.0.0.1:0',
        controller: { cacheSyncTimeoutMs: 10_000, onCacheSyncTimeout: policy },
      });
      const { secrets, reconciled } = twoControllers(manager, { logger, clock });
      const stop = new AbortController();
      let outcome: unknown = 'running';
      const running = manager.start(stop.signal).then(
        () => (outcome = 'resolved'),
        (e: unknown) => (outcome = e),
      );
      try {
        await manager.serving();
        await drive(clock, 'the ConfigMaps controller reconciled', () =>
          reconciled.includes('configmap default/a'),
        );
        const startedAt = clock.now();
        await drive(clock, 'the Secrets controller timed out', () => secrets.state === 'timedOut');
        assert.ok(clock.now() - startedAt <= 10_000, 'within its 10 s, counted from its start');
        const err = secrets.cacheSyncError;
        assert.ok(err instanceof CacheSyncTimeoutError);
        assert.equal(err.controller, 'secrets');
        assert.equal(err.timeoutMs, 10_000);
        assert.deepEqual(
          err.notSynced.map((n) => n.name),
          ['secrets/v1'],
        );
        const cause = err.notSynced[0]!.lastError?.error;
        assert.ok(cause instanceof ApiError && cause.code === 403);
        assert.match(
          err.message,
          /^controller secrets: caches did not sync within 10000 ms: .*secrets\/v1 .*forbidden: serviceaccount ops\/op-/,
        );
        if (policy === 'stop') {
          await drive(clock, 'start() settled', () => outcome !== 'running');
          assert.ok(outcome instanceof RunnableFailedError, String(outcome));
          assert.equal(outcome.runnable, 'controller/secrets');
          assert.equal(outcome.cause, err, 'the cause is the typed error itself');
          assert.equal(
            lines.filter((l) => l.startsWith('error manager: controller/secrets failed')).length,
            1,
          );
          return;
        }
        const said = lines.filter((l) =>
          l.startsWith('error controller secrets: caches did not sync'),
        );
        assert.equal(said.length, 1, lines.join('\n'));
        assert.equal(outcome, 'running', 'the manager keeps running');
        const one = await httpGet(manager.healthProbeAddress, '/readyz/controller-secrets');
        assert.equal(one.status, 500);
        assert.match(one.body, /caches did not sync within 10000 ms.*; it keeps waiting/);
        server.create('configmaps', configMap(`after-timeout-${user}`));
        await drive(clock, 'the ConfigMaps controller still reconciles', () =>
          reconciled.includes(`configmap default/after-timeout-${user}`),
        );
        server.create(rbac('clusterrolebindings'), {
          metadata: { name: `${user}-secrets` },
          roleRef: {
            apiGroup: 'rbac.authorization.k8s.io',
            kind: 'ClusterRole',
            name: 'secrets-reader',
          },
          subjects: [{ kind: 'ServiceAccount', name: user, namespace: 'ops' }],
        });
        await drive(clock, 'the Secrets controller reconciled once allowed', () =>
          reconciled.includes('secret default/s1'),
        );
        assert.equal(secrets.state, 'running');
      } finally {
        stop.abort();
        await running;
      }
      assert.equal(outcome, 'resolved', 'with keepRunning, start() resolves after the shutdown');
    });
  }

  test('controller names are unique (they name logs, metrics and the /readyz check); bad controller options are refused at construction', () => {
    const manager = new Manager(options({}));
    manager.add(new Controller({ name: 'dup', reconcile: () => {} }));
    assert.throws(
      () => manager.add(new Controller({ name: 'dup', reconcile: () => {} })),
      (e: unknown) => e instanceof InvalidManagerOptionsError && /already added/.test(e.message),
    );
    assert.equal(controllerCheckName('apps/v1 widgets'), 'controller-apps-v1-widgets');
    assert.throws(
      () => new Manager(options({ controller: { cacheSyncTimeoutMs: -1 } })),
      (e: unknown) =>
        e instanceof InvalidManagerOptionsError && /cacheSyncTimeoutMs/.test(e.message),
    );
    assert.throws(
      () =>
        new Manager(options({ controller: { onCacheSyncTimeout: 'exit' as unknown as 'stop' } })),
      (e: unknown) =>
        e instanceof InvalidManagerOptionsError && /onCacheSyncTimeout/.test(e.message),
    );
  });
});

describe('a controller for a kind whose CRD is not installed yet (issue #37)', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer({ namespaces: ['default'] });
    server.create('configmaps', configMap('a'));
  });
  after(() => server.close());

  test('waits for the CRD, says once which CRD to install, and starts when it appears, without a restart; the other controller runs meanwhile', async () => {
    const { logger, lines } = recordingLogger();
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger,
      cache: { informerOptions: { backoff: fastBackoff } },
    });
    // A full ApiResource: the informer needs no discovery (REST mapping) at start, so an
    // unknown kind is a 404 it retries, not an error that ends the controller.
    const widgets: ApiResource<UnstructuredObject> = {
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
    };
    const reconciled: string[] = [];
    const widgetController = new Controller({
      name: 'widgets',
      logger,
      reconcile: (key) => void reconciled.push(`widget ${key}`),
    }).for(manager.dynamicCache.forResource(widgets));
    manager.add(widgetController);
    manager.add(
      new Controller({
        name: 'configmaps',
        logger,
        reconcile: (key) => void reconciled.push(`configmap ${key}`),
      }).for(manager.informer(configMapsResource)),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    try {
      await eventually('the ConfigMaps controller reconciled', () =>
        reconciled.includes('configmap default/a'),
      );
      await eventually(
        'the widgets informer retried',
        () =>
          lines.filter((l) =>
            /^debug informer widgets\.example\.com\/v1: list and watch failed again/.test(l),
          ).length >= 2,
      );
      const said = lines.filter((l) => l.includes('Install the CustomResourceDefinition'));
      assert.equal(said.length, 1, lines.join('\n'));
      assert.match(
        said[0]!,
        /^error informer widgets\.example\.com\/v1 cannot list and watch widgets\.example\.com: .*Install the CustomResourceDefinition widgets\.example\.com serving version v1/,
      );
      assert.equal(widgetController.state, 'waiting');

      server.create(crdRef, makeCrd('widgets', 'Widget'));
      await eventually('the widgets controller runs', () => widgetController.state === 'running');
      server.create({ group: 'example.com', resource: 'widgets' }, makeCr('Widget', 'w1'));
      await eventually('the widget reconciled', () => reconciled.includes('widget default/w1'));
      assert.equal(
        lines.filter((l) => /^info informer widgets\.example\.com\/v1 recovered/.test(l)).length,
        1,
      );
    } finally {
      stop.abort();
      await running;
    }
  });
});
