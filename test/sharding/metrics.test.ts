// The sharding metrics after a real run on the in-memory server: a ring of one replica, a
// second joining (drains), the second leaving cleanly (moves from a released shard), then a
// scrape of the prom-client registry. Rules checked: every series is there under its
// controller_sharding_* name with the ring and shard labels, and the counts follow from the
// labels the run left — each object moved to b was drain-requested from a, drained by a and
// assigned to b once; each object b held moved to a when b left; the ring gauge is the live
// shard count.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { PrometheusShardingMetrics, shardingMetricNames } from '../../src/metrics/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { eventually } from '../support/eventually.js';
import { RING, Ring } from './harness.js';

/** The value of the sample of metric `name` whose labels are exactly `labels`. */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const got: Record<string, string> = {};
    for (const pair of (m[2] ?? '').split(',').filter((p) => p !== '')) {
      const eq = pair.indexOf('=');
      got[pair.slice(0, eq)] = JSON.parse(pair.slice(eq + 1)) as string;
    }
    const keys = Object.keys(labels);
    if (keys.length === Object.keys(got).length && keys.every((k) => got[k] === labels[k])) {
      return Number(m[3]);
    }
  }
  return undefined;
}

describe('sharding metrics on prom-client', { timeout: 120_000 }, () => {
  let server: TestApiServer;
  before(async () => {
    server = await startTestApiServer();
  });
  after(async () => {
    await server.close();
  });

  test('a scrape after join, drain and leave holds every controller_sharding_* series with the counts the run implies', async () => {
    const registry = new Registry();
    const ring = new Ring(server, { metrics: new PrometheusShardingMetrics({ registry }) });
    try {
      ring.startSharder();
      ring.add('a');
      await ring.createObjects('m', 30);
      await ring.settled();
      const b = ring.add('b');
      await eventually('b holds its Lease and works', () => b.working);
      const two = await ring.settled();
      const onB = [...two.values()].filter((s) => s === 'b').length;
      assert.ok(onB > 0 && onB < 30, `b took ${onB} of 30`);
      assert.equal(await ring.remove('b'), 'cancelled');
      await ring.settled();

      const text = await registry.metrics();
      const n = shardingMetricNames;
      assert.equal(sample(text, n.ringSize, { ring: RING }), 1, 'one live shard at the end');
      assert.equal(sample(text, n.assignments, { ring: RING, shard: 'a' }), 30 + onB);
      assert.equal(sample(text, n.assignments, { ring: RING, shard: 'b' }), onB);
      assert.equal(sample(text, n.drainRequests, { ring: RING, shard: 'a' }), onB);
      assert.equal(sample(text, n.drains, { ring: RING, shard: 'a' }), onB);
      assert.equal(sample(text, n.movements, { ring: RING, from: 'b', to: 'a' }), onB);
      assert.equal(sample(text, n.drainRequests, { ring: RING, shard: 'b' }), undefined);
      for (const name of Object.values(n)) {
        assert.match(text, new RegExp(`^# TYPE ${name} (counter|gauge)$`, 'm'), name);
      }
      ring.assertNoOverlap();
    } finally {
      await ring.close();
    }
  });
});
