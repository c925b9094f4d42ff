// A real run against the in-memory API server — a shared informer over a transport that
// reports REST client metrics, a named work queue drained by a worker, a leader elector —
// then a scrape of the prom-client registry: every metric a Go controller's dashboard
// reads is there under client-go's name, with plausible values.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Registry } from 'prom-client';
import { SharedInformerFactory } from '../../src/cache/factory.js';
import { metaNamespaceKeyFunc } from '../../src/cache/keys.js';
import { configMaps, leases } from '../../src/client/builtins.js';
import { Transport } from '../../src/client/transport.js';
import { LeaderElector, LeaseLock } from '../../src/leaderelection/index.js';
import {
  PrometheusMetricsProvider,
  REQUEST_ERROR_CODE,
  getDefaultRestClientMetricsProvider,
  setDefaultRestClientMetricsProvider,
} from '../../src/metrics/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import { noopLogger } from '../../src/util/logger.js';
import { RateLimitingQueue } from '../../src/workqueue/index.js';
import { eventually } from '../support/eventually.js';

/** The value of the sample whose name and labels are exactly `series`, or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(series + ' ')) return Number(line.slice(series.length + 1));
  }
  return undefined;
}

/** Every sample of a metric family: labels text → value. */
function samples(text: string, name: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(\{[^}]*\})? (\S+)$/.exec(line);
    if (m !== null && m[1] === name) out.set(m[2] ?? '', Number(m[3]));
  }
  return out;
}

test('after a real run the registry holds rest_client_*, leader_election_master_status and workqueue_* with plausible values', async (t) => {
  const server = await startTestApiServer();
  const registry = new Registry();
  const metrics = new PrometheusMetricsProvider({ registry });
  const transport = new Transport(server.kubeConfig(), {
    metricsProvider: metrics,
    logger: noopLogger,
  });
  const host = new URL(server.url).host;
  const factory = new SharedInformerFactory(transport, { logger: noopLogger });
  const queue = new RateLimitingQueue<string>({ name: 'configmaps', metricsProvider: metrics });
  const run = new AbortController();
  t.after(async () => {
    run.abort();
    queue.shutDown();
    await factory.shutdown();
    transport.close();
    await server.close();
  });

  // Writes through the same transport: three creates, one update, one 404.
  const client = configMaps(transport).namespace('default');
  for (const name of ['a', 'b', 'c']) await client.create({ metadata: { name } });
  const b = await client.get('b');
  await client.update({ ...b, data: { v: '1' } });
  await client.get('missing').catch(() => undefined);

  // An informer feeding a named queue, drained by one worker.
  const informer = factory.configMaps();
  informer.addEventHandler({
    onAdd: (obj) => queue.add(metaNamespaceKeyFunc(obj)),
    onUpdate: (_old, obj) => queue.add(metaNamespaceKeyFunc(obj)),
  });
  let processed = 0;
  const worker = (async () => {
    for (;;) {
      const got = await queue.get();
      if (got.shutdown) return;
      processed++;
      // The first key fails once and is retried, as a reconcile error would be.
      if (processed === 1) queue.addRateLimited(got.item);
      else queue.forget(got.item);
      queue.done(got.item);
    }
  })();
  factory.start(run.signal);
  await factory.waitForCacheSync(run.signal);
  await eventually('the worker processed the three keys and one retry', () => processed === 4);

  // A leader elector over a Lease on the same server.
  const elector = new LeaderElector({
    lock: new LeaseLock(leases(transport, { namespace: 'default' }), {
      namespace: 'default',
      name: 'scrape',
      identity: 'me',
    }),
    name: 'scrape',
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    logger: noopLogger,
    metrics,
    callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
  });
  const electing = new AbortController();
  const elected = elector.run(electing.signal);
  t.after(async () => {
    electing.abort();
    await elected;
  });
  await eventually('leading', () => elector.isLeader());

  // The two work-in-progress gauges are refreshed every 500 ms, as in client-go.
  await eventually(
    'the workqueue gauges refreshed',
    async () =>
      sample(await registry.metrics(), 'workqueue_unfinished_work_seconds{name="configmaps"}') ===
      0,
  );
  let text = await registry.metrics();
  // rest_client_requests_total{code,method,host}: every attempt, by answer code.
  const requests = samples(text, 'rest_client_requests_total');
  assert.equal(requests.get(`{code="201",method="POST",host="${host}"}`)! >= 3, true, text);
  assert.equal(requests.get(`{code="200",method="PUT",host="${host}"}`)! >= 1, true);
  // the get of a missing ConfigMap, and the elector's first read of its Lease
  assert.equal(requests.get(`{code="404",method="GET",host="${host}"}`), 2);
  // the get of b and the informer's watch start (a streaming list; or a list and a watch)
  const gets = requests.get(`{code="200",method="GET",host="${host}"}`) ?? 0;
  assert.ok(gets >= 2, `GET 200 counted ${gets} times`);
  assert.equal(requests.has(`{code="${REQUEST_ERROR_CODE}",method="GET",host="${host}"}`), false);
  // rest_client_request_duration_seconds{verb,host}: one observation per call (watches excluded).
  const postCount = sample(
    text,
    `rest_client_request_duration_seconds_count{verb="POST",host="${host}"}`,
  );
  assert.ok(postCount !== undefined && postCount >= 3, String(postCount));
  const getSum = sample(
    text,
    `rest_client_request_duration_seconds_sum{verb="GET",host="${host}"}`,
  )!;
  const getCount = sample(
    text,
    `rest_client_request_duration_seconds_count{verb="GET",host="${host}"}`,
  )!;
  assert.ok(
    getCount >= 2 && getSum > 0 && getSum / getCount < 5,
    `${getSum} s over ${getCount} GETs`,
  );
  assert.equal(
    sample(text, `rest_client_request_duration_seconds_bucket{le="60",verb="GET",host="${host}"}`),
    getCount,
  );
  // leader_election_master_status{name}: 1 while leading.
  assert.equal(sample(text, 'leader_election_master_status{name="scrape"}'), 1);
  // The work queue set.
  assert.equal(sample(text, 'workqueue_adds_total{name="configmaps"}'), 4);
  assert.equal(sample(text, 'workqueue_depth{name="configmaps"}'), 0);
  assert.equal(sample(text, 'workqueue_queue_duration_seconds_count{name="configmaps"}'), 4);
  assert.equal(sample(text, 'workqueue_work_duration_seconds_count{name="configmaps"}'), 4);
  assert.equal(sample(text, 'workqueue_retries_total{name="configmaps"}'), 1);
  assert.equal(
    sample(text, 'workqueue_longest_running_processor_seconds{name="configmaps"}'),
    0,
    'nothing in progress',
  );

  // Stepping down sets the gauge back to 0.
  electing.abort();
  await elected;
  text = await registry.metrics();
  assert.equal(sample(text, 'leader_election_master_status{name="scrape"}'), 0);
  queue.shutDown();
  await worker;
});

test('a transport made after setDefaultRestClientMetricsProvider reports to it; one made before does not', async (t) => {
  const server = await startTestApiServer();
  const registry = new Registry();
  const metrics = new PrometheusMetricsProvider({ registry });
  const before = new Transport(server.kubeConfig());
  setDefaultRestClientMetricsProvider(metrics);
  const after = new Transport(server.kubeConfig());
  setDefaultRestClientMetricsProvider(undefined);
  t.after(async () => {
    before.close();
    after.close();
    await server.close();
  });
  assert.equal(getDefaultRestClientMetricsProvider(), undefined);
  await configMaps(before).namespace('default').list();
  await configMaps(after).namespace('default').list();
  await configMaps(after).namespace('default').list();
  const host = new URL(server.url).host;
  const text = await registry.metrics();
  assert.equal(
    sample(text, `rest_client_requests_total{code="200",method="GET",host="${host}"}`),
    2,
  );
});

test('an attempt that gets no answer is counted with code <error>, and Retry-After retries count each attempt', async (t) => {
  const server = await startTestApiServer();
  const registry = new Registry();
  const metrics = new PrometheusMetricsProvider({ registry });
  const transport = new Transport(server.kubeConfig(), { metricsProvider: metrics });
  const host = new URL(server.url).host;
  t.after(async () => {
    transport.close();
    await server.close();
  });
  server.faults.failNext(1, { verb: 'create', code: 429, retryAfterSeconds: 0 });
  await configMaps(transport)
    .namespace('default')
    .create({ metadata: { name: 'x' } });
  let text = await registry.metrics();
  assert.equal(
    sample(text, `rest_client_requests_total{code="429",method="POST",host="${host}"}`),
    1,
  );
  assert.equal(
    sample(text, `rest_client_requests_total{code="201",method="POST",host="${host}"}`),
    1,
  );
  assert.equal(
    sample(text, `rest_client_request_duration_seconds_count{verb="POST",host="${host}"}`),
    1,
    'one call, one latency observation',
  );
  await server.close();
  await configMaps(transport)
    .namespace('default')
    .list()
    .catch(() => undefined);
  text = await registry.metrics();
  assert.equal(
    sample(text, `rest_client_requests_total{code="<error>",method="GET",host="${host}"}`),
    1,
  );
});
