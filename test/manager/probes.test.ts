// The manager's probe and metrics servers, scraped over HTTP against the in-memory API
// server: Kubernetes' /healthz and /readyz formats, named checks, and /metrics.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Counter, Registry, register as globalRegistry } from 'prom-client';
import { Controller } from '../../src/controller/index.js';
import {
  BindError,
  InvalidManagerOptionsError,
  Manager,
  ManagerAlreadyStartedError,
  parseBindAddress,
} from '../../src/manager/index.js';
import {
  PrometheusControllerMetricsProvider,
  PrometheusMetricsProvider,
} from '../../src/metrics/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { eventually } from '../support/eventually.js';
import { httpGet, recordingLogger } from './support.js';

describe('Manager probes and metrics endpoints', () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('/healthz and /readyz answer like Kubernetes: ok, ?verbose lists [+]/[-] per check, reasons withheld, /readyz/<name> runs one check', async () => {
    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'probe', namespace: 'default' },
    });
    const { logger, lines } = recordingLogger();
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      logger,
    });
    manager.cache.configMaps();
    let dbUp = false;
    manager.addReadyzCheck('db', () =>
      dbUp ? undefined : new Error('db secret password=hunter2 unreachable'),
    );
    manager.addHealthzCheck('throws', () => {
      throw new Error('never');
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    const addr = manager.healthProbeAddress;
    assert.equal(addr?.address, '127.0.0.1', 'bound to exactly the host asked for');
    assert.notEqual(addr?.port, 0);
    await manager.elected();

    const failingHealth = await httpGet(addr, '/healthz');
    assert.equal(failingHealth.status, 500);
    assert.equal(
      failingHealth.body,
      '[+]ping ok\n[-]throws failed: reason withheld\nhealthz check failed\n',
    );
    const excluded = await httpGet(addr, '/healthz?exclude=throws');
    assert.equal(excluded.status, 200);
    assert.equal(excluded.body, 'ok');
    const verboseHealth = await httpGet(addr, '/healthz?verbose&exclude=throws');
    assert.equal(verboseHealth.body, '[+]ping ok\n[+]throws excluded: ok\nhealthz check passed\n');

    const notReady = await httpGet(addr, '/readyz?verbose');
    assert.equal(notReady.status, 500);
    assert.equal(
      notReady.body,
      '[+]informer-sync ok\n[-]db failed: reason withheld\nreadyz check failed\n',
    );
    assert.ok(!notReady.body.includes('hunter2'), 'the reason is never sent');
    assert.ok(
      lines.some((l) => l.includes('readyz check failed') && l.includes('db: db secret')),
      'the reason is logged',
    );
    const one = await httpGet(addr, '/readyz/db');
    assert.equal(one.status, 500);
    assert.match(one.body, /^internal server error: db secret/);
    assert.equal((await httpGet(addr, '/readyz/informer-sync')).body, 'ok');
    assert.equal((await httpGet(addr, '/readyz/nope')).status, 404);
    assert.equal((await httpGet(addr, '/elsewhere')).status, 404);

    dbUp = true;
    const ready = await httpGet(addr, '/readyz');
    assert.equal(ready.status, 200);
    assert.equal(ready.body, 'ok');
    assert.equal(
      (await httpGet(addr, '/readyz?verbose')).body,
      '[+]informer-sync ok\n[+]db ok\nreadyz check passed\n',
    );
    stop.abort();
    await running;
    await assert.rejects(httpGet(addr, '/healthz'), 'the server is closed after start() settled');
  });

  test('readyz fails its informer-sync check, naming the informer, while an informer has not synced', async () => {
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    // A resource the server does not serve: its informer never syncs.
    manager.dynamicCache.forResource({
      group: 'example.com',
      version: 'v1',
      resource: 'widgets',
      kind: 'Widget',
      namespaced: true,
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    const res = await httpGet(manager.healthProbeAddress, '/readyz/informer-sync');
    assert.equal(res.status, 500);
    assert.match(res.body, /informers not synced: widgets\.example\.com\/v1/);
    assert.equal(
      (await httpGet(manager.healthProbeAddress, '/healthz')).status,
      200,
      'liveness is unaffected',
    );
    stop.abort();
    await running;
  });

  test('/metrics serves the registry on its own address, with controller_runtime and workqueue series after a real run', async () => {
    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'metrics', namespace: 'default' },
    });
    const registry = new Registry();
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '127.0.0.1:0',
      metricsRegistry: registry,
      logger: noopLogger,
    });
    const reconciled = new Set<string>();
    manager.add(
      new Controller({
        name: 'cms',
        logger: noopLogger,
        metricsProvider: new PrometheusMetricsProvider({ registry }),
        controllerMetricsProvider: new PrometheusControllerMetricsProvider({ registry }),
        reconcile: (key) => void reconciled.add(key),
      }).for(manager.cache.configMaps()),
    );
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    assert.notEqual(manager.metricsAddress?.port, manager.healthProbeAddress?.port);
    await eventually('reconciled', () => reconciled.has('default/metrics'));
    const res = await httpGet(manager.metricsAddress, '/metrics');
    assert.equal(res.status, 200);
    assert.match(res.contentType, /^text\/plain; version=0\.0\.4/);
    assert.match(
      res.body,
      /controller_runtime_reconcile_total\{controller="cms",result="success"\} [1-9]/,
    );
    assert.match(res.body, /workqueue_adds_total\{name="cms"\} [1-9]/);
    assert.equal(
      (await httpGet(manager.metricsAddress, '/healthz')).status,
      404,
      'probes are not on the metrics port',
    );
    assert.equal(
      (await httpGet(manager.healthProbeAddress, '/metrics')).status,
      404,
      'metrics are not on the probe port',
    );
    stop.abort();
    await running;
  });

  test("without metricsRegistry, /metrics serves prom-client's global registry, loaded on demand", async () => {
    const counter = new Counter({ name: 'kck_manager_test_total', help: 'test counter' });
    counter.inc(7);
    try {
      const manager = new Manager({
        kubeConfig: server.kubeConfig(),
        healthProbeBindAddress: '0',
        metricsBindAddress: '127.0.0.1:0',
        logger: noopLogger,
      });
      const stop = new AbortController();
      const running = manager.start(stop.signal);
      await manager.serving();
      const res = await httpGet(manager.metricsAddress, '/metrics');
      assert.equal(res.status, 200);
      assert.match(res.body, /^kck_manager_test_total 7$/m);
      stop.abort();
      await running;
    } finally {
      globalRegistry.removeSingleMetric('kck_manager_test_total');
    }
  });

  test("addresses: controller-runtime's defaults (:8081, :8080), '0' disables, malformed ones are rejected at construction", async () => {
    assert.deepEqual(parseBindAddress('x', ':8081'), {
      text: ':8081',
      host: undefined,
      port: 8081,
    });
    assert.deepEqual(parseBindAddress('x', '[::1]:0'), { text: '[::1]:0', host: '::1', port: 0 });
    assert.equal(parseBindAddress('x', '0'), undefined);
    for (const bad of ['8080', 'localhost', ':99999', 'a:b:c']) {
      assert.throws(
        () => new Manager({ kubeConfig: server.kubeConfig(), metricsBindAddress: bad }),
        (e: unknown) =>
          e instanceof InvalidManagerOptionsError && e.message.includes('metricsBindAddress'),
        bad,
      );
    }
    const manager = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    const stop = new AbortController();
    const running = manager.start(stop.signal);
    await manager.serving();
    assert.equal(manager.healthProbeAddress, undefined);
    assert.equal(manager.metricsAddress, undefined);
    await assert.rejects(manager.start(stop.signal), ManagerAlreadyStartedError);
    stop.abort();
    await running;
  });

  test('a taken port makes start() reject with BindError naming the address, leaving nothing open', async () => {
    const first = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: '0',
      logger: noopLogger,
    });
    const stop = new AbortController();
    const running = first.start(stop.signal);
    await first.serving();
    const taken = `127.0.0.1:${first.healthProbeAddress!.port}`;
    const second = new Manager({
      kubeConfig: server.kubeConfig(),
      healthProbeBindAddress: '127.0.0.1:0',
      metricsBindAddress: taken,
      logger: noopLogger,
    });
    await assert.rejects(
      second.start(new AbortController().signal),
      (e: unknown) =>
        e instanceof BindError && e.address === taken && /metrics server/.test(e.message),
    );
    await assert.rejects(second.serving(), BindError);
    stop.abort();
    await running;
  });
});
