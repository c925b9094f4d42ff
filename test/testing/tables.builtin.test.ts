// kube-apiserver's printer columns for the built-in kinds beyond pods and deployments:
// the Table JSON `kubectl get` asks for (columns, wide columns at priority 1, cells from
// the stored object, defaults kube-apiserver would have filled in), and kubectl's output.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { kubectlSkip, raw } from './helpers.js';

const run = promisify(execFile);
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json';
const T0 = Date.parse('2025-01-01T00:00:00Z');

interface Table {
  columnDefinitions: { name: string; type: string; priority: number }[];
  rows: { cells: unknown[] }[];
}

const template = {
  metadata: { labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'app', image: 'nginx:1.27' },
      { name: 'sidecar', image: 'busybox' },
    ],
  },
};

describe('built-in tables: kube-apiserver printer columns', () => {
  let server: TestApiServer;
  let clock: FakeClock;
  /** Columns as `Name` (default) or `Name*` (wide), and each row's cells. */
  const table = async (path: string): Promise<{ columns: string[]; rows: unknown[][] }> => {
    const res = await raw(server.url, 'GET', path, undefined, { Accept: TABLE });
    assert.equal(res.code, 200, `${path}: ${res.body}`);
    const t = res.json as unknown as Table;
    return {
      columns: t.columnDefinitions.map((c) => (c.priority > 0 ? `${c.name}*` : c.name)),
      rows: t.rows.map((r) => r.cells),
    };
  };

  /** An age in whole minutes (the ages here are whole minutes, 1 to 179), by the server's clock. */
  const minutesSince = (ms: number): string => `${Math.floor((clock.now() - ms) / 60_000)}m`;

  before(async () => {
    clock = new FakeClock(T0);
    server = await startTestApiServer({ clock });
    // The timestamps written into objects below (T0 and around it) are in the past.
    await clock.advance(10 * 60_000);
  });
  after(() => server.close());

  it('statefulsets: Ready (replicas default to 1), Age; wide Containers, Images', async () => {
    server.create('statefulsets.apps', {
      metadata: { name: 'db', namespace: 'default' },
      spec: { replicas: 3, selector: { matchLabels: { app: 'web' } }, template },
      status: { readyReplicas: 2 },
    });
    server.create('statefulsets.apps', {
      metadata: { name: 'one', namespace: 'default' },
      spec: { selector: { matchLabels: { app: 'one' } }, template: {} },
    });
    await clock.advance(5 * 60_000);
    const t = await table('/apis/apps/v1/namespaces/default/statefulsets');
    assert.deepEqual(t.columns, ['Name', 'Ready', 'Age', 'Containers*', 'Images*']);
    assert.deepEqual(t.rows, [
      ['db', '2/3', '5m', 'app,sidecar', 'nginx:1.27,busybox'],
      ['one', '0/1', '5m', '', ''],
    ]);
  });

  it('daemonsets: Desired, Current, Ready, Up-to-date, Available, Node Selector, Age; wide Selector', async () => {
    server.create('daemonsets.apps', {
      metadata: { name: 'agent', namespace: 'default' },
      spec: {
        selector: {
          matchLabels: { app: 'agent' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
        template: { spec: { nodeSelector: { os: 'linux', disk: 'ssd' }, containers: [] } },
      },
      status: {
        desiredNumberScheduled: 3,
        currentNumberScheduled: 3,
        numberReady: 2,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
      },
    });
    const t = await table('/apis/apps/v1/namespaces/default/daemonsets/agent');
    assert.deepEqual(t.columns, [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Up-to-date',
      'Available',
      'Node Selector',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    assert.deepEqual(t.rows[0], [
      'agent',
      3,
      3,
      2,
      3,
      2,
      'disk=ssd,os=linux',
      '0s',
      '',
      '',
      'app=agent,tier in (a,b)',
    ]);
  });

  it('replicasets: Desired, Current, Ready, Age; wide Containers, Images, Selector', async () => {
    server.create('replicasets.apps', {
      metadata: { name: 'web-1', namespace: 'default' },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template },
      status: { replicas: 2, readyReplicas: 1 },
    });
    const t = await table('/apis/apps/v1/namespaces/default/replicasets/web-1');
    assert.deepEqual(t.columns, [
      'Name',
      'Desired',
      'Current',
      'Ready',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    assert.deepEqual(t.rows[0], [
      'web-1',
      2,
      2,
      1,
      '0s',
      'app,sidecar',
      'nginx:1.27,busybox',
      'app=web',
    ]);
  });

  it('jobs: Status from conditions, Completions, Duration from start to completion, Age', async () => {
    server.create('jobs.batch', {
      metadata: { name: 'done', namespace: 'default' },
      spec: { completions: 3, template },
      status: {
        succeeded: 3,
        startTime: '2025-01-01T00:00:00Z',
        completionTime: '2025-01-01T00:02:05Z',
        conditions: [{ type: 'Complete', status: 'True' }],
      },
    });
    server.create('jobs.batch', {
      metadata: { name: 'wide', namespace: 'default' },
      spec: { parallelism: 4, template: {} },
      status: { succeeded: 1, conditions: [{ type: 'Failed', status: 'True' }] },
    });
    server.create('jobs.batch', {
      metadata: { name: 'plain', namespace: 'default' },
      spec: { template: {} },
    });
    const t = await table('/apis/batch/v1/namespaces/default/jobs');
    assert.deepEqual(t.columns, [
      'Name',
      'Status',
      'Completions',
      'Duration',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    assert.deepEqual(
      t.rows.map((r) => r.slice(0, 4)),
      [
        ['done', 'Complete', '3/3', '2m5s'],
        ['plain', 'Running', '0/1', ''],
        ['wide', 'Failed', '1/1 of 4', ''],
      ],
    );
  });

  it('cronjobs: Schedule, Timezone, Suspend (default False), Active, Last Schedule, Age', async () => {
    server.create('cronjobs.batch', {
      metadata: { name: 'nightly', namespace: 'default' },
      spec: {
        schedule: '0 3 * * *',
        timeZone: 'Europe/Paris',
        jobTemplate: { spec: { template } },
      },
      status: { active: [{ name: 'nightly-1' }], lastScheduleTime: '2024-12-31T23:00:00Z' },
    });
    const t = await table('/apis/batch/v1/namespaces/default/cronjobs/nightly');
    assert.deepEqual(t.columns, [
      'Name',
      'Schedule',
      'Timezone',
      'Suspend',
      'Active',
      'Last Schedule',
      'Age',
      'Containers*',
      'Images*',
      'Selector*',
    ]);
    assert.deepEqual(t.rows[0]?.slice(0, 6), [
      'nightly',
      '0 3 * * *',
      'Europe/Paris',
      'False',
      1,
      minutesSince(Date.parse('2024-12-31T23:00:00Z')),
    ]);
    assert.deepEqual(t.rows[0]?.slice(7), ['app,sidecar', 'nginx:1.27,busybox', '<none>']);
  });

  it('ingresses: Class, Hosts, Address, Ports (80, 443 with TLS), Age; networkpolicies: Pod-Selector', async () => {
    server.create('ingresses.networking.k8s.io', {
      metadata: { name: 'front', namespace: 'default' },
      spec: {
        ingressClassName: 'nginx',
        tls: [{ hosts: ['a.example.com'] }],
        rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }],
      },
      status: { loadBalancer: { ingress: [{ ip: '10.0.0.2' }, { hostname: 'lb.example.com' }] } },
    });
    const ing = await table('/apis/networking.k8s.io/v1/namespaces/default/ingresses/front');
    assert.deepEqual(ing.columns, ['Name', 'Class', 'Hosts', 'Address', 'Ports', 'Age']);
    assert.deepEqual(ing.rows[0]?.slice(0, 5), [
      'front',
      'nginx',
      'a.example.com,b.example.com',
      '10.0.0.2,lb.example.com',
      '80, 443',
    ]);
    server.create('networkpolicies.networking.k8s.io', {
      metadata: { name: 'deny', namespace: 'default' },
      spec: { podSelector: {} },
    });
    server.create('networkpolicies.networking.k8s.io', {
      metadata: { name: 'web', namespace: 'default' },
      spec: { podSelector: { matchExpressions: [{ key: 'app', operator: 'Exists' }] } },
    });
    const np = await table('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies');
    assert.deepEqual(np.columns, ['Name', 'Pod-Selector', 'Age']);
    assert.deepEqual(
      np.rows.map((r) => r.slice(0, 2)),
      [
        ['deny', '<none>'],
        ['web', 'app'],
      ],
    );
  });

  it('poddisruptionbudgets: Min Available, Max Unavailable (N/A when unset), Allowed Disruptions', async () => {
    server.create('poddisruptionbudgets.policy', {
      metadata: { name: 'pdb', namespace: 'default' },
      spec: { minAvailable: '50%' },
      status: { disruptionsAllowed: 1 },
    });
    const t = await table('/apis/policy/v1/namespaces/default/poddisruptionbudgets/pdb');
    assert.deepEqual(t.columns, [
      'Name',
      'Min Available',
      'Max Unavailable',
      'Allowed Disruptions',
      'Age',
    ]);
    assert.deepEqual(t.rows[0]?.slice(0, 4), ['pdb', '50%', 'N/A', 1]);
  });

  it('persistentvolumeclaims: Status (Pending by default), Volume, Capacity and Access Modes once bound, StorageClass', async () => {
    server.create('persistentvolumeclaims', {
      metadata: { name: 'bound', namespace: 'default' },
      spec: {
        storageClassName: 'fast',
        volumeName: 'pv-1',
        accessModes: ['ReadWriteOnce'],
        volumeMode: 'Filesystem',
      },
      status: {
        phase: 'Bound',
        capacity: { storage: '10Gi' },
        accessModes: ['ReadWriteMany', 'ReadWriteOnce'],
      },
    });
    server.create('persistentvolumeclaims', {
      metadata: { name: 'new', namespace: 'default' },
      spec: { accessModes: ['ReadWriteOnce'] },
    });
    const t = await table('/api/v1/namespaces/default/persistentvolumeclaims');
    assert.deepEqual(t.columns, [
      'Name',
      'Status',
      'Volume',
      'Capacity',
      'Access Modes',
      'StorageClass',
      'VolumeAttributesClass',
      'Age',
      'VolumeMode*',
    ]);
    assert.deepEqual(
      t.rows.map((r) => [...r.slice(0, 7), r[8]]),
      [
        ['bound', 'Bound', 'pv-1', '10Gi', 'RWO,RWX', 'fast', '<unset>', 'Filesystem'],
        // volumeMode is defaulted to Filesystem on create, as kube-apiserver does.
        ['new', 'Pending', '', '', '', '', '<unset>', 'Filesystem'],
      ],
    );
  });

  it('nodes: Status from the Ready condition, Roles from labels, Version; wide addresses and node info', async () => {
    server.create('nodes', {
      metadata: {
        name: 'n1',
        labels: { 'node-role.kubernetes.io/control-plane': '', 'kubernetes.io/role': 'edge' },
      },
      spec: { unschedulable: true },
      status: {
        conditions: [{ type: 'Ready', status: 'True' }],
        addresses: [{ type: 'InternalIP', address: '10.0.0.1' }],
        nodeInfo: { kubeletVersion: 'v1.32.0', osImage: 'Debian' },
      },
    });
    const t = await table('/api/v1/nodes/n1');
    assert.deepEqual(t.columns, [
      'Name',
      'Status',
      'Roles',
      'Age',
      'Version',
      'Internal-IP*',
      'External-IP*',
      'OS-Image*',
      'Kernel-Version*',
      'Container-Runtime*',
    ]);
    assert.deepEqual(t.rows[0], [
      'n1',
      'Ready,SchedulingDisabled',
      'control-plane,edge',
      '0s',
      'v1.32.0',
      '10.0.0.1',
      '<none>',
      'Debian',
      '<unknown>',
      '<unknown>',
    ]);
  });

  it('endpoints: the first three address:port pairs, then "+ N more..."', async () => {
    server.create('endpoints', {
      metadata: { name: 'web', namespace: 'default' },
      subsets: [
        {
          addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }, { ip: 'fd00::3' }],
          ports: [{ port: 80 }, { port: 443 }],
        },
      ],
    });
    server.create('endpoints', { metadata: { name: 'empty', namespace: 'default' } });
    const t = await table('/api/v1/namespaces/default/endpoints');
    assert.deepEqual(t.columns, ['Name', 'Endpoints', 'Age']);
    assert.deepEqual(
      t.rows.map((r) => r.slice(0, 2)),
      [
        ['empty', '<none>'],
        ['web', '10.1.0.1:80,10.1.0.2:80,[fd00::3]:80 + 3 more...'],
      ],
    );
  });

  it('resourcequotas: Request and Limit as used/hard per resource; serviceaccounts: Secrets', async () => {
    server.create('resourcequotas', {
      metadata: { name: 'q', namespace: 'default' },
      status: {
        hard: { 'requests.cpu': '2', pods: '10', 'limits.memory': '4Gi' },
        used: { 'requests.cpu': '500m', 'limits.memory': '1Gi' },
      },
    });
    const q = await table('/api/v1/namespaces/default/resourcequotas/q');
    assert.deepEqual(q.columns, ['Name', 'Request', 'Limit', 'Age']);
    assert.deepEqual(q.rows[0]?.slice(0, 3), [
      'q',
      'pods: 0/10, requests.cpu: 500m/2',
      'limits.memory: 1Gi/4Gi',
    ]);
    server.create('serviceaccounts', {
      metadata: { name: 'robot', namespace: 'default' },
      secrets: [{ name: 'robot-token' }],
    });
    const sa = await table('/api/v1/namespaces/default/serviceaccounts/robot');
    assert.deepEqual(sa.columns, ['Name', 'Secrets', 'Age']);
    assert.deepEqual(sa.rows[0]?.slice(0, 2), ['robot', 1]);
  });

  it('roles and clusterroles: Name and Created At (the default table convertor); bindings: Role, Age, wide subjects', async () => {
    server.create('roles.rbac.authorization.k8s.io', {
      metadata: { name: 'reader', namespace: 'default' },
      rules: [],
    });
    const roles = await table('/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles');
    assert.deepEqual(roles.columns, ['Name', 'Created At']);
    const created = server.get('roles.rbac.authorization.k8s.io', 'reader', 'default')?.metadata
      ?.creationTimestamp;
    assert.deepEqual(roles.rows[0], ['reader', created]);
    assert.match(String(created), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const clusterRoles = await table('/apis/rbac.authorization.k8s.io/v1/clusterroles');
    assert.deepEqual(clusterRoles.columns, ['Name', 'Created At']);
    server.create('clusterrolebindings.rbac.authorization.k8s.io', {
      metadata: { name: 'admins' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'admin' },
      subjects: [
        { kind: 'User', name: 'alice' },
        { kind: 'User', name: 'bob' },
        { kind: 'Group', name: 'ops' },
        { kind: 'ServiceAccount', name: 'robot', namespace: 'default' },
      ],
    });
    const crb = await table('/apis/rbac.authorization.k8s.io/v1/clusterrolebindings/admins');
    assert.deepEqual(crb.columns, ['Name', 'Role', 'Age', 'Users*', 'Groups*', 'ServiceAccounts*']);
    assert.deepEqual(crb.rows[0], [
      'admins',
      'ClusterRole/admin',
      '0s',
      'alice, bob',
      'ops',
      'default/robot',
    ]);
    server.create('rolebindings.rbac.authorization.k8s.io', {
      metadata: { name: 'read', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
    });
    const rb = await table(
      '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings/read',
    );
    assert.deepEqual(rb.rows[0], ['read', 'Role/reader', '0s', '', '', '']);
  });

  it('events.k8s.io events print as core events do, read through their new field names', async () => {
    server.create('events.events.k8s.io', {
      metadata: { name: 'e1', namespace: 'default' },
      eventTime: '2025-01-01T00:00:00.000000Z',
      type: 'Warning',
      reason: 'BackOff',
      note: '  Back-off restarting  ',
      regarding: { kind: 'Pod', name: 'p', fieldPath: 'spec.containers{app}' },
      reportingController: 'kubelet',
      reportingInstance: 'n1',
      action: 'Restart',
      series: { count: 4, lastObservedTime: '2025-01-01T00:01:00.000000Z' },
    });
    const t = await table('/apis/events.k8s.io/v1/namespaces/default/events/e1');
    assert.deepEqual(t.columns, [
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject*',
      'Source*',
      'Message',
      'First Seen*',
      'Count*',
      'Name*',
    ]);
    assert.deepEqual(t.rows[0], [
      minutesSince(T0 + 60_000),
      'Warning',
      'BackOff',
      'pod/p',
      'spec.containers{app}',
      'kubelet, n1',
      'Back-off restarting',
      minutesSince(T0),
      4,
      'e1',
    ]);
    server.create('events', {
      metadata: { name: 'e2', namespace: 'default' },
      type: 'Normal',
      reason: 'Pulled',
      message: 'pulled',
      involvedObject: { kind: 'Pod', name: 'p' },
      source: { component: 'kubelet' },
      firstTimestamp: '2025-01-01T00:00:00Z',
    });
    const core = await table('/api/v1/namespaces/default/events/e2');
    assert.deepEqual(core.rows[0], [
      minutesSince(T0),
      'Normal',
      'Pulled',
      'pod/p',
      '',
      'kubelet',
      'pulled',
      minutesSince(T0),
      1,
      'e2',
    ]);
  });

  it('kubectl get shows the columns (default and -o wide)', { skip: kubectlSkip() }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'kck-tables-'));
    try {
      const kubeconfig = join(dir, 'kubeconfig.yaml');
      await server.writeKubeconfig(kubeconfig);
      const kubectl = async (...args: string[]): Promise<string[][]> => {
        const { stdout } = await run('kubectl', ['--kubeconfig', kubeconfig, ...args]);
        return stdout
          .trim()
          .split('\n')
          .map((l) => l.trim().split(/\s{2,}/));
      };
      const sts = await kubectl('get', 'statefulsets', '-o', 'wide');
      assert.deepEqual(sts[0], ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
      assert.deepEqual(sts[1]?.slice(0, 2), ['db', '2/3']);
      assert.deepEqual(sts[1]?.slice(3), ['app,sidecar', 'nginx:1.27,busybox']);
      const jobs = await kubectl('get', 'jobs');
      assert.deepEqual(jobs[0], ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
      assert.deepEqual(jobs[1]?.slice(0, 4), ['done', 'Complete', '3/3', '2m5s']);
      const crb = await kubectl('get', 'clusterrolebindings', 'admins', '-o', 'wide');
      assert.deepEqual(crb[0], ['NAME', 'ROLE', 'AGE', 'USERS', 'GROUPS', 'SERVICEACCOUNTS']);
      assert.deepEqual(crb[1]?.slice(0, 2), ['admins', 'ClusterRole/admin']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
