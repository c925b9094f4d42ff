/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
// resource.k8s.io/v1 (dynamic resource allocation: DeviceClasses, ResourceClaims,
// ResourceClaimTemplates, ResourceSlices), as kube-apiserver serves them: discovery, the
// exact-request defaults (ExactCount, count 1), the validation of
// pkg/apis/resource/validation, the ResourceClaim status subresource and immutable spec,
// and the printer columns.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { causes, startHarness } from './registry_kinds_helpers.js';
import type { KindsHarness } from './registry_kinds_helpers.js';
import { kubectlSkip } from './helpers.js';

const G = '/apis/resource.k8s.io/v1';
const CLAIMS = `${G}/namespaces/default/resourceclaims`;

describe('resource.k8s.io/v1', () => {
  let h: KindsHarness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  it('rule: discovery lists the four kinds with their scope; resourceclaims/status', async () => {
    const scope: Record<string, boolean> = {
      deviceclasses: false,
      resourceclaims: true,
      resourceclaimtemplates: true,
      resourceslices: false,
    };
    for (const [r, namespaced] of Object.entries(scope)) {
      assert.equal((await h.resource('resource.k8s.io/v1', r))?.namespaced, namespaced, r);
    }
    assert.ok(await h.resource('resource.k8s.io/v1', 'resourceclaims/status'));
  });

  it('rule: an exact request allocates ExactCount, count 1; a request needs a name and one of exactly/firstAvailable', async () => {
    const dc = await h.send('POST', `${G}/deviceclasses`, {
      metadata: { name: 'gpu.example.com' },
      spec: { selectors: [{ cel: { expression: 'device.driver == "gpu.example.com"' } }] },
    });
    assert.equal(dc.code, 201, dc.body);
    const claim = await h.send('POST', CLAIMS, {
      metadata: { name: 'gpu' },
      spec: {
        devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] },
      },
    });
    assert.equal(claim.code, 201, claim.body);
    assert.deepEqual((claim.json.spec as any).devices.requests[0].exactly, {
      deviceClassName: 'gpu.example.com',
      allocationMode: 'ExactCount',
      count: 1,
    });
    const bad = await h.send('POST', CLAIMS, {
      metadata: { name: 'bad' },
      spec: { devices: { requests: [{ exactly: {} }, { name: 'b' }] } },
    });
    assert.deepEqual(causes(bad), [
      'spec.devices.requests[0].name: Required value',
      'spec.devices.requests[0].exactly.deviceClassName: Required value',
      'spec.devices.requests[1]: Required value: exactly one of `exactly` or `firstAvailable` is required',
    ]);
    const tpl = await h.send('POST', `${G}/namespaces/default/resourceclaimtemplates`, {
      metadata: { name: 'tpl' },
      spec: {
        spec: {
          devices: { requests: [{ name: 'gpu', exactly: { deviceClassName: 'gpu.example.com' } }] },
        },
      },
    });
    assert.equal(tpl.code, 201, tpl.body);
    assert.equal((tpl.json.spec as any).spec.devices.requests[0].exactly.count, 1);
  });

  it('rule: a ResourceClaim spec is immutable; status (allocation, reservedFor) through /status', async () => {
    const changed = await h.send(
      'PATCH',
      `${CLAIMS}/gpu`,
      { spec: { devices: { requests: [{ name: 'other', exactly: { deviceClassName: 'x' } }] } } },
      'application/merge-patch+json',
    );
    assert.equal(changed.code, 422);
    assert.match(String(changed.json.message), /spec: Invalid value: .*: field is immutable/);
    const status = await h.send(
      'PATCH',
      `${CLAIMS}/gpu/status`,
      {
        status: {
          allocation: {
            devices: {
              results: [
                { request: 'gpu', driver: 'gpu.example.com', pool: 'node-1', device: 'gpu-0' },
              ],
            },
          },
          reservedFor: [{ resource: 'pods', name: 'p', uid: 'u-1' }],
        },
      },
      'application/merge-patch+json',
    );
    assert.equal(status.code, 200, status.body);
  });

  it('rule: a ResourceSlice needs a driver, a pool and exactly one node selection', async () => {
    const bad = await h.send('POST', `${G}/resourceslices`, {
      metadata: { name: 's' },
      spec: { pool: { name: 'p' } },
    });
    assert.deepEqual(causes(bad), [
      'spec.driver: Required value',
      'spec.pool.resourceSliceCount: Invalid value: 0: must be greater than zero',
      'spec: Required value: exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required',
    ]);
    const ok = await h.send('POST', `${G}/resourceslices`, {
      metadata: { name: 'node-1-gpu' },
      spec: {
        driver: 'gpu.example.com',
        pool: { name: 'node-1', generation: 1, resourceSliceCount: 1 },
        nodeName: 'node-1',
        devices: [{ name: 'gpu-0' }],
      },
    });
    assert.equal(ok.code, 201, ok.body);
  });

  it('rule: the Tables: DeviceClass and ResourceClaimTemplate (Name, Age), ResourceClaim State, ResourceSlice Node/Driver/Pool', async () => {
    await h.clock.advance(60_000);
    assert.deepEqual((await h.table(`${G}/deviceclasses`)).columns, ['Name', 'Age']);
    assert.deepEqual((await h.table(`${G}/namespaces/default/resourceclaimtemplates`)).rows, [
      ['tpl', '60s'],
    ]);
    const claims = await h.table(CLAIMS);
    assert.deepEqual(claims.columns, ['Name', 'State', 'Age']);
    assert.deepEqual(claims.rows, [['gpu', 'allocated,reserved', '60s']]);
    const slices = await h.table(`${G}/resourceslices`);
    assert.deepEqual(slices.columns, ['Name', 'Node', 'Driver', 'Pool', 'Age']);
    assert.deepEqual(slices.rows, [['node-1-gpu', 'node-1', 'gpu.example.com', 'node-1', '60s']]);
  });

  it('kubectl get resourceclaims prints the State', { skip: kubectlSkip() }, async () => {
    assert.match(
      await h.kubectl('get', 'resourceclaims'),
      /^NAME\s+STATE\s+AGE\ngpu\s+allocated,reserved\s+60s\n$/,
    );
  });
});
