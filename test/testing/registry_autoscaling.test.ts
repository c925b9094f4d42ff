/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
// autoscaling/v2 and autoscaling/v1 HorizontalPodAutoscalers, as kube-apiserver serves them:
// discovery (v2 preferred, both listing the kind, short name hpa, category all, a status
// subresource), SetDefaults_HorizontalPodAutoscaler (minReplicas 1, the 80% CPU target,
// the default behavior rules), the v1 ⇄ v2 conversion (targetCPUUtilizationPercentage),
// ValidateHorizontalPodAutoscaler's messages, the status subresource, and the printer's
// columns (Reference, Targets, MinPods, MaxPods, Replicas, Age).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const V2 = '/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers';
const V1 = '/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers';
const ref = { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' };

describe('autoscaling horizontalpodautoscalers', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery serves autoscaling v2 (preferred) and v1, each with hpa and its status subresource', async () => {
    const group = await h.send('GET', '/apis/autoscaling');
    assert.deepEqual((group.json.preferredVersion as { version: string }).version, 'v2');
    assert.deepEqual(
      (group.json.versions as { version: string }[]).map((v) => v.version),
      ['v2', 'v1'],
    );
    for (const gv of ['autoscaling/v2', 'autoscaling/v1']) {
      const r = await h.resource(gv, 'horizontalpodautoscalers');
      assert.deepEqual(r?.shortNames, ['hpa'], gv);
      assert.deepEqual(r?.categories, ['all'], gv);
      assert.equal(r?.namespaced, true);
      assert.deepEqual((await h.resource(gv, 'horizontalpodautoscalers/status'))?.verbs, [
        'get',
        'patch',
        'update',
      ]);
    }
  });

  it('rule: a v2 create gets minReplicas 1, the 80% CPU utilization target, and a given behavior completed', async () => {
    const created = await h.send('POST', V2, {
      metadata: { name: 'web' },
      spec: {
        scaleTargetRef: ref,
        maxReplicas: 5,
        behavior: { scaleDown: { selectPolicy: 'Min' } },
      },
    });
    assert.equal(created.code, 201, created.body);
    const spec = created.json.spec as Record<string, unknown>;
    assert.equal(spec.minReplicas, 1);
    assert.deepEqual(spec.metrics, [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } },
      },
    ]);
    assert.deepEqual(spec.behavior, {
      scaleDown: {
        selectPolicy: 'Min',
        stabilizationWindowSeconds: 300,
        policies: [{ type: 'Percent', value: 100, periodSeconds: 15 }],
      },
      scaleUp: {
        stabilizationWindowSeconds: 0,
        selectPolicy: 'Max',
        policies: [
          { type: 'Pods', value: 4, periodSeconds: 15 },
          { type: 'Percent', value: 100, periodSeconds: 15 },
        ],
      },
    });
  });

  it('rule: v1 and v2 are one object: targetCPUUtilizationPercentage is the v2 CPU utilization metric', async () => {
    const v1 = await h.send('POST', V1, {
      metadata: { name: 'api' },
      spec: { scaleTargetRef: ref, maxReplicas: 3, targetCPUUtilizationPercentage: 60 },
    });
    assert.equal(v1.code, 201, v1.body);
    assert.equal(v1.json.apiVersion, 'autoscaling/v1');
    assert.deepEqual(v1.json.spec, {
      scaleTargetRef: ref,
      minReplicas: 1,
      maxReplicas: 3,
      targetCPUUtilizationPercentage: 60,
    });
    const asV2 = await h.send('GET', `${V2}/api`);
    assert.equal(asV2.json.apiVersion, 'autoscaling/v2');
    assert.deepEqual((asV2.json.spec as { metrics: unknown }).metrics, [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
      },
    ]);
    // A v2 object read at v1 keeps its other metrics in the annotation kube-apiserver uses.
    const memory = {
      type: 'Resource',
      resource: { name: 'memory', target: { type: 'AverageValue', averageValue: '500Mi' } },
    };
    await h.send(
      'PATCH',
      `${V2}/api`,
      { spec: { metrics: [(asV2.json.spec as any).metrics[0], memory] } },
      'application/merge-patch+json',
    );
    const back = await h.send('GET', `${V1}/api`);
    assert.equal(
      (back.json.spec as { targetCPUUtilizationPercentage: number }).targetCPUUtilizationPercentage,
      60,
    );
    const annotations = (back.json.metadata as { annotations: Record<string, string> }).annotations;
    assert.deepEqual(JSON.parse(annotations['autoscaling.alpha.kubernetes.io/metrics'] ?? ''), [
      memory,
    ]);
    // An update through v1 that keeps the annotation keeps the memory metric.
    const put = await h.send('PUT', `${V1}/api`, {
      ...back.json,
      spec: { ...(back.json.spec as object), maxReplicas: 4 },
    });
    assert.equal(put.code, 200, put.body);
    const again = await h.send('GET', `${V2}/api`);
    assert.deepEqual((again.json.spec as { metrics: unknown[] }).metrics[1], memory);
    assert.equal((again.json.spec as { maxReplicas: number }).maxReplicas, 4);
    assert.equal((again.json.metadata as { annotations?: unknown }).annotations, undefined);
  });

  it('rule: ValidateHorizontalPodAutoscaler: scaleTargetRef kind and name required, maxReplicas ≥ minReplicas ≥ 1', async () => {
    const bad = await h.send('POST', V2, {
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: { apiVersion: 'apps/v1' }, minReplicas: 4, maxReplicas: 2 },
    });
    assert.equal(bad.code, 422, bad.body);
    assert.deepEqual(causes(bad), [
      'spec.scaleTargetRef.kind: Required value',
      'spec.scaleTargetRef.name: Required value',
      'spec.maxReplicas: Invalid value: 2: must be greater than or equal to `minReplicas`',
    ]);
    const zero = await h.send('POST', V1, {
      metadata: { name: 'bad' },
      spec: { scaleTargetRef: ref, minReplicas: 0, maxReplicas: 0 },
    });
    assert.equal(zero.code, 422);
    assert.equal(
      zero.json.message,
      'HorizontalPodAutoscaler.autoscaling "bad" is invalid: [spec.minReplicas: Invalid value: 0: must be greater than or equal to 1, spec.maxReplicas: Invalid value: 0: must be greater than 0]',
    );
  });

  it('rule: status is written through /status only, at either version', async () => {
    const main = await h.send(
      'PATCH',
      `${V2}/web`,
      { status: { currentReplicas: 9 } },
      'application/merge-patch+json',
    );
    assert.equal(main.code, 200);
    assert.equal(
      (main.json.status as { currentReplicas?: number } | undefined)?.currentReplicas,
      undefined,
    );
    const status = await h.send(
      'PATCH',
      `${V1}/web/status`,
      { status: { currentReplicas: 2, desiredReplicas: 2, currentCPUUtilizationPercentage: 45 } },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
    const v2 = await h.send('GET', `${V2}/web`);
    assert.deepEqual(v2.json.status, {
      currentReplicas: 2,
      desiredReplicas: 2,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 45 } } },
      ],
    });
  });

  it('rule: the Table has Reference, Targets ("cpu: current/target"), MinPods, MaxPods, Replicas, Age', async () => {
    await h.clock.advance(2 * 60_000);
    const t = await h.table(V2);
    assert.deepEqual(t.columns, [
      'Name',
      'Reference',
      'Targets',
      'MinPods',
      'MaxPods',
      'Replicas',
      'Age',
    ]);
    assert.deepEqual(t.rows, [
      ['api', 'Deployment/web', 'cpu: <unknown>/60%, memory: <unknown>/500Mi', 1, 4, 0, '2m'],
      ['web', 'Deployment/web', 'cpu: 45%/80%', 1, 5, 2, '2m'],
    ]);
  });

  it('kubectl get hpa prints the columns', { skip: kubectlSkip() }, async () => {
    const out = await h.kubectl('get', 'hpa');
    assert.match(out, /^NAME\s+REFERENCE\s+TARGETS\s+MINPODS\s+MAXPODS\s+REPLICAS\s+AGE\n/);
    assert.match(out, /\nweb\s+Deployment\/web\s+cpu: 45%\/80%\s+1\s+5\s+2\s+2m\n/);
  });
});
