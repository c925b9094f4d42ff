// The examples' RBAC manifests grant the least they need: each manifest's rules are pinned
// exactly (widening one fails here), and each example, run against the in-memory API
// server, makes only requests its manifest grants (narrowing one too far fails too).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { startTestApiServer } from '../../src/testing/index.js';
import type { RecordedRequest, TestApiServer } from '../../src/testing/index.js';
import type { UnstructuredObject } from '../../src/client/types.js';
import { readManifests } from '../../src/testing/index.js';
import { runOperator } from '../../examples/application-operator/src/operator.js';
import { runDynamicWatcher } from '../../examples/dynamic-watcher/src/dynamic_watcher.js';
import { runPodWatcher } from '../../examples/pod-watcher/src/pod_watcher.js';
import { STAMP_LABEL, runReplica } from '../../examples/leader-elected/src/replica.js';
import { eventually as waitUntil } from '../support/eventually.js';
import { installApplicationCrd } from './support.js';

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

/** A role from a manifest, with the namespace it applies in (undefined: cluster-wide). */
interface Grant {
  kind: 'ClusterRole' | 'Role';
  name: string;
  namespace: string | undefined;
  rules: Rule[];
}

const path = (p: string): string => fileURLToPath(new URL(`../../examples/${p}`, import.meta.url));

async function grantsOf(example: string): Promise<Grant[]> {
  const docs = await readManifests(path(`${example}/rbac.yaml`));
  return docs
    .filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')
    .map((d) => ({
      kind: d.kind as Grant['kind'],
      name: d.metadata?.name ?? '',
      namespace: d.kind === 'Role' ? d.metadata?.namespace : undefined,
      rules: (d as UnstructuredObject & { rules: Rule[] }).rules,
    }));
}

/** One line per (role, group, resource): `Kind/name group resource verbs [names]`, sorted. */
function render(grants: readonly Grant[]): string[] {
  const lines: string[] = [];
  for (const g of grants) {
    for (const r of g.rules) {
      for (const group of r.apiGroups) {
        for (const resource of r.resources) {
          const names = r.resourceNames?.length
            ? ` names=${[...r.resourceNames].sort().join(',')}`
            : '';
          lines.push(
            `${g.kind}/${g.name} ${group === '' ? 'core' : group} ${resource} ${[...r.verbs].sort().join(',')}${names}`,
          );
        }
      }
    }
  }
  return lines.sort();
}

/** Whether RBAC grants the request (the API server's rule matching, without aggregation). */
function granted(grants: readonly Grant[], req: RecordedRequest): boolean {
  const resource = req.subresource === '' ? req.resource : `${req.resource}/${req.subresource}`;
  return grants.some(
    (g) =>
      (g.namespace === undefined || g.namespace === req.namespace) &&
      g.rules.some(
        (r) =>
          (r.apiGroups.includes('*') || r.apiGroups.includes(req.group)) &&
          (r.resources.includes('*') || r.resources.includes(resource)) &&
          (r.verbs.includes('*') || r.verbs.includes(req.verb)) &&
          // resourceNames never match a create, list or watch without a name.
          (r.resourceNames === undefined ||
            r.resourceNames.length === 0 ||
            (req.name !== '' && req.verb !== 'create' && r.resourceNames.includes(req.name))),
      ),
  );
}

/** The resource requests the example made (discovery and other non-resource URLs are open). */
function resourceRequests(server: TestApiServer): RecordedRequest[] {
  return server.requests.filter((r) => r.resource !== '');
}

function assertAllGranted(grants: readonly Grant[], requests: readonly RecordedRequest[]): void {
  assert.ok(requests.length > 0, 'the example made no requests');
  const denied = requests
    .filter((r) => !granted(grants, r))
    .map(
      (r) =>
        `${r.verb} ${r.group || 'core'}/${r.resource}${r.subresource ? `/${r.subresource}` : ''} ns=${r.namespace} name=${r.name}`,
    );
  assert.deepEqual([...new Set(denied)], [], 'requests the manifest does not grant');
}

function eventually(what: string, cond: () => boolean): Promise<void> {
  return waitUntil(what, cond, 15_000);
}

const appsRef = { group: 'example.com', resource: 'applications' };
const deploymentsRef = { group: 'apps', resource: 'deployments' };

describe('examples: RBAC manifests are exactly what the examples need', () => {
  let server: TestApiServer;

  before(async () => {
    server = await startTestApiServer({
      namespaces: ['default', 'application-operator', 'leader-elected-example'],
    });
  });
  after(() => server.close());

  test('pod-watcher: list and watch pods, nothing else', async () => {
    const grants = await grantsOf('pod-watcher');
    assert.deepEqual(render(grants), ['ClusterRole/pod-watcher core pods list,watch']);
    server.clearRequests();
    server.create('pods', { metadata: { name: 'p', namespace: 'default' } });
    const stop = new AbortController();
    let reports = 0;
    const running = runPodWatcher(server.kubeConfig(), stop.signal, { onReport: () => reports++ });
    try {
      await eventually('a report', () => reports > 0);
    } finally {
      stop.abort();
      await running;
    }
    assertAllGranted(grants, resourceRequests(server));
  });

  test('application-operator: applications get/list/watch/patch, status update, finalizers update; children without get', async () => {
    const grants = await grantsOf('application-operator');
    assert.deepEqual(render(grants), [
      'ClusterRole/application-operator apps deployments create,delete,list,patch,watch',
      'ClusterRole/application-operator core services create,delete,list,watch',
      'ClusterRole/application-operator example.com applications get,list,patch,watch',
      'ClusterRole/application-operator example.com applications/finalizers update',
      'ClusterRole/application-operator example.com applications/status update',
    ]);
    await installApplicationCrd(server);
    server.clearRequests();
    const stop = new AbortController();
    const running = runOperator(server.kubeConfig(), stop.signal);
    try {
      // The whole story through in-process helpers (not recorded as HTTP requests): create,
      // the Deployment becomes available (status write), scale (patch), delete (cleanup).
      server.create(appsRef, {
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name: 'shop', namespace: 'default' },
        spec: { image: 'nginx:1.27', replicas: 1, port: 8080 },
      });
      await eventually('children', () => server.get('services', 'shop', 'default') !== undefined);
      const d = server.get(deploymentsRef, 'shop', 'default')!;
      server.update(deploymentsRef, { ...d, status: { availableReplicas: 1, replicas: 1 } });
      await eventually('Ready status', () => {
        const app = server.get<{ status?: unknown }>(appsRef, 'shop', 'default');
        return JSON.stringify(app?.status ?? {}).includes('"True"');
      });
      const app = server.get(appsRef, 'shop', 'default')!;
      server.update(appsRef, { ...app, spec: { image: 'nginx:1.28', replicas: 3, port: 8080 } });
      await eventually('scaled', () => {
        const dep = server.get<{ spec?: { replicas?: number } }>(deploymentsRef, 'shop', 'default');
        return dep?.spec?.replicas === 3;
      });
      server.delete(appsRef, 'shop', 'default');
      await eventually('cleanup', () => server.get(appsRef, 'shop', 'default') === undefined);
    } finally {
      stop.abort();
      await running;
    }
    const requests = resourceRequests(server);
    assertAllGranted(grants, requests);
    // Every granted verb is used by the story (so none is there for nothing).
    const used = new Set(
      requests.map(
        (r) =>
          `${r.group || 'core'} ${r.resource}${r.subresource ? `/${r.subresource}` : ''} ${r.verb}`,
      ),
    );
    for (const line of render(grants)) {
      const [, group, resource, verbs] = line.split(' ') as [string, string, string, string];
      for (const verb of verbs.split(',')) {
        if (resource === 'applications/finalizers') continue; // checked by admission, not a request
        // An informer lists by a streaming watch where the server supports it, and falls
        // back to list where it does not: list is needed with watch.
        const as = verb === 'list' && !used.has(`${group} ${resource} list`) ? 'watch' : verb;
        assert.ok(used.has(`${group} ${resource} ${as}`), `granted but unused: ${line} (${verb})`);
      }
    }
  });

  test('dynamic-watcher: list/watch CRDs and the followed group', async () => {
    const grants = await grantsOf('dynamic-watcher');
    assert.deepEqual(render(grants), [
      'ClusterRole/dynamic-watcher apiextensions.k8s.io customresourcedefinitions list,watch',
      // The watcher follows every CRD of example.com as it appears: its resources are not
      // known in advance. Read-only verbs keep the wildcard harmless.
      'ClusterRole/dynamic-watcher example.com * list,watch',
    ]);
    server.clearRequests();
    const stop = new AbortController();
    let events = 0;
    const running = runDynamicWatcher(server.kubeConfig(), stop.signal, {
      onEvent: () => events++,
    });
    try {
      server.create(appsRef, {
        apiVersion: 'example.com/v1',
        kind: 'Application',
        metadata: { name: 'dyn', namespace: 'default' },
        spec: { image: 'nginx', replicas: 1 },
      });
      await eventually('an event for the Application', () => events > 0);
    } finally {
      stop.abort();
      await running;
    }
    assertAllGranted(grants, resourceRequests(server));
  });

  test('leader-elected: list/watch/patch ConfigMaps, create leases and get/update its one Lease, all in its namespace', async () => {
    const grants = await grantsOf('leader-elected');
    assert.deepEqual(render(grants), [
      'Role/leader-elected-example coordination.k8s.io leases create',
      'Role/leader-elected-example coordination.k8s.io leases get,update names=leader-elected-example',
      'Role/leader-elected-example core configmaps list,patch,watch',
    ]);
    assert.ok(grants.every((g) => g.namespace === 'leader-elected-example'));
    server.clearRequests();
    const stop = new AbortController();
    let stamped = false;
    const done = runReplica(server.kubeConfig(), stop.signal, {
      identity: 'replica-a',
      namespace: 'leader-elected-example',
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
      await eventually('a stamp', () => stamped);
      await eventually('a renewal', () =>
        server.requests.some((r) => r.resource === 'leases' && r.verb === 'update'),
      );
    } finally {
      stop.abort();
      await done;
    }
    const requests = resourceRequests(server);
    assert.ok(requests.some((r) => r.resource === 'leases' && r.verb === 'create'));
    assert.ok(requests.some((r) => r.resource === 'configmaps' && r.verb === 'patch'));
    assertAllGranted(grants, requests);
  });
});
