// Built-in defaulting on the test API server, as kube-apiserver defaults a request body when
// it decodes it (pkg/apis/<group>/v1/defaults.go): every rule is checked through HTTP
// (create, read back), for updates, patches, server-side apply, protobuf bodies, in-process
// seeding, and kubectl; plus what field ownership an Update and an Apply get.
/* eslint-disable @typescript-eslint/no-explicit-any -- tests read arbitrary JSON answers */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { request } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { imageTag } from '../../packages/testing/src/defaults/image.js';
import { decodeObject, encodeObject } from '../../packages/testing/src/protobuf/codec.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer } from '../../packages/testing/src/index.js';
import { hasKubectl, raw } from './helpers.js';

const CORE = '/api/v1/namespaces/default';
const APPS = '/apis/apps/v1/namespaces/default';
const BATCH = '/apis/batch/v1/namespaces/default';

let server: TestApiServer;

/** POSTs a JSON object and answers the created object (asserting 201). */
async function create(path: string, obj: Record<string, unknown>): Promise<any> {
  const res = await raw(server.url, 'POST', path, JSON.stringify(obj));
  assert.equal(res.code, 201, res.body);
  return res.json;
}

/** GETs an object. */
async function read(path: string): Promise<any> {
  const res = await raw(server.url, 'GET', path);
  assert.equal(res.code, 200, res.body);
  return res.json;
}

const container = (name: string, image: string, extra: Record<string, unknown> = {}) => ({
  name,
  image,
  ...extra,
});

const template = (labels: Record<string, string>, spec: Record<string, unknown> = {}) => ({
  metadata: { labels },
  spec: { containers: [container('app', 'nginx:1.27')], ...spec },
});

const run = promisify(execFile);

describe('built-in defaults on the test API server', () => {
  before(async () => {
    server = await startTestApiServer();
  });
  after(() => server.close());

  describe('built-in defaults: pods', () => {
    it('a pod spec gets dnsPolicy ClusterFirst, restartPolicy Always, schedulerName default-scheduler, terminationGracePeriodSeconds 30, securityContext {} and enableServiceLinks true', async () => {
      await create(`${CORE}/pods`, {
        metadata: { name: 'plain' },
        spec: { containers: [container('c', 'nginx')] },
      });
      const pod = await read(`${CORE}/pods/plain`);
      assert.equal(pod.spec.dnsPolicy, 'ClusterFirst');
      assert.equal(pod.spec.restartPolicy, 'Always');
      assert.equal(pod.spec.schedulerName, 'default-scheduler');
      assert.equal(pod.spec.terminationGracePeriodSeconds, 30);
      assert.deepEqual(pod.spec.securityContext, {});
      assert.equal(pod.spec.enableServiceLinks, true);
    });

    it('a container gets terminationMessagePath /dev/termination-log, terminationMessagePolicy File, resources {} and port protocol TCP', async () => {
      const pod = await create(`${CORE}/pods`, {
        metadata: { name: 'ports' },
        spec: {
          containers: [container('c', 'nginx:1.27', { ports: [{ containerPort: 80 }] })],
          initContainers: [container('init', 'busybox')],
        },
      });
      const [c] = pod.spec.containers;
      assert.equal(c.terminationMessagePath, '/dev/termination-log');
      assert.equal(c.terminationMessagePolicy, 'File');
      assert.deepEqual(c.resources, {});
      assert.deepEqual(c.ports, [{ containerPort: 80, protocol: 'TCP' }]);
      assert.equal(pod.spec.initContainers[0].terminationMessagePolicy, 'File');
      assert.equal(pod.spec.initContainers[0].imagePullPolicy, 'Always');
    });

    it('imagePullPolicy is Always for tag latest or no tag and digest, IfNotPresent otherwise', async () => {
      const digest = `sha256:${'a'.repeat(64)}`;
      const cases: [string, string][] = [
        ['nginx', 'Always'],
        ['nginx:latest', 'Always'],
        ['docker.io/library/nginx', 'Always'],
        ['localhost:5000/team/app', 'Always'],
        [`nginx:latest@${digest}`, 'Always'],
        ['nginx:1.27', 'IfNotPresent'],
        ['localhost:5000/team/app:v2', 'IfNotPresent'],
        [`nginx@${digest}`, 'IfNotPresent'],
        ['Not/A/Valid:Image', 'IfNotPresent'],
      ];
      const pod = await create(`${CORE}/pods`, {
        metadata: { name: 'images' },
        spec: { containers: cases.map(([image], i) => container(`c${i}`, image)) },
      });
      assert.deepEqual(
        pod.spec.containers.map((c: any) => [c.image, c.imagePullPolicy]),
        cases,
      );
      assert.equal(imageTag('nginx'), 'latest');
      assert.equal(imageTag(`nginx@${digest}`), '');
      assert.equal(imageTag('UPPER/case'), 'latest', 'an upper-case first component is a registry');
      assert.equal(imageTag('library/UPPER'), undefined);
    });

    it('values the client set are kept: restartPolicy, imagePullPolicy, defaultMode, grace period 0', async () => {
      const pod = await create(`${CORE}/pods`, {
        metadata: { name: 'explicit' },
        spec: {
          restartPolicy: 'Never',
          terminationGracePeriodSeconds: 0,
          containers: [container('c', 'nginx', { imagePullPolicy: 'Never' })],
          volumes: [{ name: 'cfg', configMap: { name: 'x', defaultMode: 256 } }],
        },
      });
      assert.equal(pod.spec.restartPolicy, 'Never');
      assert.equal(pod.spec.terminationGracePeriodSeconds, 0);
      assert.equal(pod.spec.containers[0].imagePullPolicy, 'Never');
      assert.equal(pod.spec.volumes[0].configMap.defaultMode, 256);
    });

    it('a pod (not a template) gets requests from limits, and with hostNetwork hostPort from containerPort', async () => {
      const pod = await create(`${CORE}/pods`, {
        metadata: { name: 'limits' },
        spec: {
          hostNetwork: true,
          containers: [
            container('c', 'nginx', {
              resources: { limits: { cpu: '500m', memory: '1Gi' }, requests: { cpu: '100m' } },
              ports: [{ containerPort: 8080 }],
            }),
          ],
        },
      });
      const [c] = pod.spec.containers;
      assert.deepEqual(c.resources.requests, { cpu: '100m', memory: '1Gi' });
      assert.deepEqual(c.ports, [{ containerPort: 8080, hostPort: 8080, protocol: 'TCP' }]);
    });

    it('status.qosClass is computed at create (pkg/apis/core/helper/qos): BestEffort without cpu/memory, Guaranteed when every container limits both and requests equal limits (limits alone default the requests; 0.5 = 500m), Burstable otherwise; init containers and pod-level resources count', async () => {
      const qos = async (name: string, spec: Record<string, unknown>): Promise<string> =>
        (await create(`${CORE}/pods`, { metadata: { name }, spec })).status.qosClass;
      const res = (r: Record<string, unknown>) => container('c', 'nginx', { resources: r });
      const both = { cpu: '500m', memory: '1Gi' };
      assert.equal(await qos('qos-none', { containers: [container('c', 'nginx')] }), 'BestEffort');
      // Only cpu and memory count, and a zero quantity is no quantity.
      assert.equal(
        await qos('qos-other', {
          containers: [res({ requests: { 'ephemeral-storage': '1Gi', cpu: '0' } })],
        }),
        'BestEffort',
      );
      assert.equal(await qos('qos-limits', { containers: [res({ limits: both })] }), 'Guaranteed');
      assert.equal(
        await qos('qos-equal', {
          containers: [res({ limits: both, requests: { cpu: '0.5', memory: '1073741824' } })],
        }),
        'Guaranteed',
      );
      assert.equal(
        await qos('qos-less', {
          containers: [res({ limits: both, requests: { cpu: '100m', memory: '1Gi' } })],
        }),
        'Burstable',
      );
      assert.equal(
        await qos('qos-cpu-only', { containers: [res({ limits: { cpu: '1' } })] }),
        'Burstable',
      );
      assert.equal(
        await qos('qos-init', {
          containers: [res({ limits: both })],
          initContainers: [container('i', 'busybox')],
        }),
        'Burstable',
      );
      assert.equal(
        await qos('qos-pod-level', {
          resources: { limits: both, requests: both },
          containers: [container('c', 'nginx')],
        }),
        'Guaranteed',
      );
    });

    it('probes get timeoutSeconds 1, periodSeconds 10, successThreshold 1, failureThreshold 3; httpGet path / and scheme HTTP; grpc service ""', async () => {
      const pod = await create(`${CORE}/pods`, {
        metadata: { name: 'probes' },
        spec: {
          containers: [
            container('c', 'nginx', {
              livenessProbe: { httpGet: { port: 8080 } },
              readinessProbe: { grpc: { port: 9090 }, periodSeconds: 5 },
              lifecycle: { preStop: { httpGet: { port: 80, path: '/quit' } } },
              env: [{ name: 'NODE', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } }],
            }),
          ],
        },
      });
      const [c] = pod.spec.containers;
      assert.deepEqual(c.livenessProbe, {
        httpGet: { port: 8080, path: '/', scheme: 'HTTP' },
        timeoutSeconds: 1,
        periodSeconds: 10,
        successThreshold: 1,
        failureThreshold: 3,
      });
      assert.equal(c.readinessProbe.periodSeconds, 5);
      assert.equal(c.readinessProbe.grpc.service, '');
      assert.deepEqual(c.lifecycle.preStop.httpGet, { port: 80, path: '/quit', scheme: 'HTTP' });
      assert.equal(c.env[0].valueFrom.fieldRef.apiVersion, 'v1');
    });

    it('volumes get defaultMode 420, emptyDir when sourceless, hostPath type "", token expirationSeconds 3600', async () => {
      const pod = await create(`${CORE}/pods`, {
        metadata: { name: 'volumes' },
        spec: {
          containers: [container('c', 'nginx')],
          volumes: [
            { name: 'cm', configMap: { name: 'cfg' } },
            { name: 'sec', secret: { secretName: 's' } },
            {
              name: 'down',
              downwardAPI: { items: [{ path: 'n', fieldRef: { fieldPath: 'metadata.name' } }] },
            },
            { name: 'proj', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } },
            { name: 'scratch' },
            { name: 'host', hostPath: { path: '/var/log' } },
          ],
        },
      });
      const byName = Object.fromEntries(pod.spec.volumes.map((v: any) => [v.name, v]));
      assert.equal(byName.cm.configMap.defaultMode, 420);
      assert.equal(byName.sec.secret.defaultMode, 420);
      assert.equal(byName.down.downwardAPI.defaultMode, 420);
      assert.equal(byName.down.downwardAPI.items[0].fieldRef.apiVersion, 'v1');
      assert.equal(byName.proj.projected.defaultMode, 420);
      assert.equal(byName.proj.projected.sources[0].serviceAccountToken.expirationSeconds, 3600);
      assert.deepEqual(byName.scratch, { name: 'scratch', emptyDir: {} });
      assert.deepEqual(byName.host.hostPath, { path: '/var/log', type: '' });
    });
  });

  describe('built-in defaults: workloads', () => {
    it('a Deployment gets replicas 1, strategy RollingUpdate 25%/25%, revisionHistoryLimit 10, progressDeadlineSeconds 600, and its template the pod spec defaults', async () => {
      const d = await create(`${APPS}/deployments`, {
        metadata: { name: 'web' },
        spec: { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) },
      });
      assert.equal(d.spec.replicas, 1);
      assert.deepEqual(d.spec.strategy, {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' },
      });
      assert.equal(d.spec.revisionHistoryLimit, 10);
      assert.equal(d.spec.progressDeadlineSeconds, 600);
      const pod = d.spec.template.spec;
      assert.equal(pod.restartPolicy, 'Always');
      assert.equal(pod.containers[0].imagePullPolicy, 'IfNotPresent');
      assert.equal('enableServiceLinks' in pod, false, 'a Pod-only default');
    });

    it('a Deployment gets neither labels nor a selector from its template (apps/v1), and Recreate gets no rollingUpdate', async () => {
      const d = await create(`${APPS}/deployments`, {
        metadata: { name: 'recreate' },
        spec: { strategy: { type: 'Recreate' }, replicas: 0, template: template({ app: 'r' }) },
      });
      assert.equal(d.metadata.labels, undefined);
      assert.equal(d.spec.selector, undefined);
      assert.deepEqual(d.spec.strategy, { type: 'Recreate' });
      assert.equal(d.spec.replicas, 0, 'an explicit 0 is kept');
    });

    it('a ReplicaSet gets replicas 1; a DaemonSet updateStrategy RollingUpdate 1/0 and revisionHistoryLimit 10', async () => {
      const rs = await create(`${APPS}/replicasets`, {
        metadata: { name: 'rs' },
        spec: { selector: { matchLabels: { app: 'rs' } }, template: template({ app: 'rs' }) },
      });
      assert.equal(rs.spec.replicas, 1);
      assert.equal(rs.spec.template.spec.dnsPolicy, 'ClusterFirst');
      const ds = await create(`${APPS}/daemonsets`, {
        metadata: { name: 'ds' },
        spec: { selector: { matchLabels: { app: 'ds' } }, template: template({ app: 'ds' }) },
      });
      assert.deepEqual(ds.spec.updateStrategy, {
        type: 'RollingUpdate',
        rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
      });
      assert.equal(ds.spec.revisionHistoryLimit, 10);
    });

    it('a StatefulSet gets podManagementPolicy OrderedReady, updateStrategy partition 0, PVC retention Retain, replicas 1, and its claim templates volumeMode Filesystem and phase Pending', async () => {
      const sts = await create(`${APPS}/statefulsets`, {
        metadata: { name: 'db' },
        spec: {
          serviceName: 'db',
          selector: { matchLabels: { app: 'db' } },
          template: template({ app: 'db' }),
          volumeClaimTemplates: [
            {
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
            },
          ],
        },
      });
      assert.equal(sts.spec.podManagementPolicy, 'OrderedReady');
      assert.deepEqual(sts.spec.updateStrategy, {
        type: 'RollingUpdate',
        rollingUpdate: { partition: 0 },
      });
      assert.deepEqual(sts.spec.persistentVolumeClaimRetentionPolicy, {
        whenDeleted: 'Retain',
        whenScaled: 'Retain',
      });
      assert.equal(sts.spec.replicas, 1);
      assert.equal(sts.spec.revisionHistoryLimit, 10);
      assert.equal(sts.spec.volumeClaimTemplates[0].spec.volumeMode, 'Filesystem');
      assert.deepEqual(sts.spec.volumeClaimTemplates[0].status, { phase: 'Pending' });
    });

    it('a Job gets completions and parallelism 1, backoffLimit 6, completionMode NonIndexed, suspend false, podReplacementPolicy TerminatingOrFailed, and its template labels', async () => {
      const job = await create(`${BATCH}/jobs`, {
        metadata: { name: 'once' },
        spec: { template: template({ run: 'once' }, { restartPolicy: 'Never' }) },
      });
      assert.equal(job.spec.completions, 1);
      assert.equal(job.spec.parallelism, 1);
      assert.equal(job.spec.backoffLimit, 6);
      assert.equal(job.spec.completionMode, 'NonIndexed');
      assert.equal(job.spec.suspend, false);
      assert.equal(job.spec.podReplacementPolicy, 'TerminatingOrFailed');
      assert.deepEqual(job.metadata.labels, { run: 'once' });
      assert.equal(job.spec.template.spec.restartPolicy, 'Never');
    });

    it('a Job with parallelism alone keeps completions unset; backoffLimitPerIndex makes backoffLimit the int32 maximum; a podFailurePolicy makes podReplacementPolicy Failed', async () => {
      const job = await create(`${BATCH}/jobs`, {
        metadata: { name: 'work-queue', labels: { own: 'label' } },
        spec: {
          parallelism: 3,
          completionMode: 'Indexed',
          completions: 4,
          backoffLimitPerIndex: 1,
          podFailurePolicy: {
            rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } }],
          },
          template: template({ run: 'q' }, { restartPolicy: 'Never' }),
        },
      });
      assert.equal(job.spec.backoffLimit, 2147483647);
      assert.equal(job.spec.podReplacementPolicy, 'Failed');
      assert.deepEqual(job.metadata.labels, { own: 'label' });
      const queue = await create(`${BATCH}/jobs`, {
        metadata: { name: 'queue' },
        spec: { parallelism: 2, template: template({ run: 'p' }, { restartPolicy: 'Never' }) },
      });
      assert.equal(queue.spec.parallelism, 2);
      assert.equal('completions' in queue.spec, false);
    });

    it('a CronJob gets concurrencyPolicy Allow, suspend false, history limits 3 and 1; its job template only the pod spec defaults', async () => {
      const cj = await create(`${BATCH}/cronjobs`, {
        metadata: { name: 'tick' },
        spec: {
          schedule: '*/5 * * * *',
          jobTemplate: {
            spec: { template: template({ run: 'tick' }, { restartPolicy: 'OnFailure' }) },
          },
        },
      });
      assert.equal(cj.spec.concurrencyPolicy, 'Allow');
      assert.equal(cj.spec.suspend, false);
      assert.equal(cj.spec.successfulJobsHistoryLimit, 3);
      assert.equal(cj.spec.failedJobsHistoryLimit, 1);
      assert.equal('backoffLimit' in cj.spec.jobTemplate.spec, false);
      assert.equal(cj.spec.jobTemplate.spec.template.spec.schedulerName, 'default-scheduler');
    });
  });

  describe('built-in defaults: services', () => {
    it('a Service gets type ClusterIP, sessionAffinity None, port protocol TCP and targetPort = port, internalTrafficPolicy Cluster, and a cluster IP with its family fields', async () => {
      const svc = await create(`${CORE}/services`, {
        metadata: { name: 'web' },
        spec: {
          selector: { app: 'web' },
          ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }],
        },
      });
      assert.equal(svc.spec.type, 'ClusterIP');
      assert.equal(svc.spec.sessionAffinity, 'None');
      assert.deepEqual(svc.spec.ports, [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ]);
      assert.equal(svc.spec.internalTrafficPolicy, 'Cluster');
      assert.equal('externalTrafficPolicy' in svc.spec, false);
      assert.match(svc.spec.clusterIP, /^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);
      assert.deepEqual(svc.spec.clusterIPs, [svc.spec.clusterIP]);
      assert.deepEqual(svc.spec.ipFamilies, ['IPv4']);
      assert.equal(svc.spec.ipFamilyPolicy, 'SingleStack');
    });

    it('cluster IPs are allocated in order, never twice, and an update that leaves them out keeps them', async () => {
      const a = await create(`${CORE}/services`, {
        metadata: { name: 'a' },
        spec: { ports: [{ port: 1 }] },
      });
      const b = await create(`${CORE}/services`, {
        metadata: { name: 'b' },
        spec: { ports: [{ port: 1 }] },
      });
      assert.notEqual(a.spec.clusterIP, b.spec.clusterIP);
      const put = await raw(
        server.url,
        'PUT',
        `${CORE}/services/a`,
        JSON.stringify({ metadata: { name: 'a' }, spec: { ports: [{ port: 2 }] } }),
      );
      assert.equal(put.code, 200, put.body);
      assert.equal((put.json as any).spec.clusterIP, a.spec.clusterIP);
      assert.deepEqual((put.json as any).spec.clusterIPs, a.spec.clusterIPs);
    });

    it('NodePort gets nodePorts and externalTrafficPolicy Cluster; headless keeps None; ExternalName gets no address; ClientIP affinity a 10800 s timeout', async () => {
      const np = await create(`${CORE}/services`, {
        metadata: { name: 'np' },
        spec: {
          type: 'NodePort',
          selector: { app: 'x' },
          ports: [{ port: 80 }, { port: 81, nodePort: 31000 }],
        },
      });
      assert.equal(np.spec.externalTrafficPolicy, 'Cluster');
      const [p0, p1] = np.spec.ports;
      assert.ok(p0.nodePort >= 30000 && p0.nodePort <= 32767, String(p0.nodePort));
      assert.equal(p1.nodePort, 31000);
      const headless = await create(`${CORE}/services`, {
        metadata: { name: 'headless' },
        spec: { clusterIP: 'None', selector: { app: 'db' }, ports: [{ port: 5432 }] },
      });
      assert.deepEqual(headless.spec.clusterIPs, ['None']);
      assert.equal(headless.spec.ipFamilyPolicy, 'SingleStack');
      const ext = await create(`${CORE}/services`, {
        metadata: { name: 'ext' },
        spec: { type: 'ExternalName', externalName: 'example.com' },
      });
      assert.equal('clusterIP' in ext.spec, false);
      assert.equal('ipFamilies' in ext.spec, false);
      const sticky = await create(`${CORE}/services`, {
        metadata: { name: 'sticky' },
        spec: { sessionAffinity: 'ClientIP', ports: [{ port: 80 }] },
      });
      assert.deepEqual(sticky.spec.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    });
  });

  describe('built-in defaults: other kinds', () => {
    it('a Secret gets type Opaque; a PersistentVolumeClaim volumeMode Filesystem and phase Pending', async () => {
      const secret = await create(`${CORE}/secrets`, { metadata: { name: 's' }, stringData: {} });
      assert.equal(secret.type, 'Opaque');
      const pvc = await create(`${CORE}/persistentvolumeclaims`, {
        metadata: { name: 'data' },
        spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
      });
      assert.equal(pvc.spec.volumeMode, 'Filesystem');
      assert.equal(pvc.status.phase, 'Pending');
    });

    it('a NetworkPolicy gets policyTypes (Egress when it has egress rules) and port protocol TCP', async () => {
      const np = await create('/apis/networking.k8s.io/v1/namespaces/default/networkpolicies', {
        metadata: { name: 'np' },
        spec: { podSelector: {}, egress: [{ ports: [{ port: 53 }] }] },
      });
      assert.deepEqual(np.spec.policyTypes, ['Ingress', 'Egress']);
      assert.deepEqual(np.spec.egress[0].ports, [{ port: 53, protocol: 'TCP' }]);
    });

    it('a RoleBinding gets roleRef.apiGroup and User/Group subjects apiGroup rbac.authorization.k8s.io; Endpoints ports protocol TCP', async () => {
      const rb = await create(
        '/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings',
        {
          metadata: { name: 'rb' },
          roleRef: { kind: 'Role', name: 'reader' },
          subjects: [
            { kind: 'User', name: 'alice' },
            { kind: 'ServiceAccount', name: 'bot', namespace: 'default' },
          ],
        },
      );
      assert.equal(rb.roleRef.apiGroup, 'rbac.authorization.k8s.io');
      assert.equal(rb.subjects[0].apiGroup, 'rbac.authorization.k8s.io');
      assert.equal('apiGroup' in rb.subjects[1], false);
      const ep = await create(`${CORE}/endpoints`, {
        metadata: { name: 'ep' },
        subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }],
      });
      assert.equal(ep.subsets[0].ports[0].protocol, 'TCP');
    });

    it('a ConfigMap is stored as sent (its only default, an empty data map, is not serialized)', async () => {
      const cm = await create(`${CORE}/configmaps`, { metadata: { name: 'bare' } });
      assert.equal('data' in cm, false);
    });
  });

  describe('built-in defaults on every write path', () => {
    it('an update (PUT) that leaves defaults out gets them again, and the generation does not move', async () => {
      const d = await create(`${APPS}/deployments`, {
        metadata: { name: 'put' },
        spec: { selector: { matchLabels: { app: 'put' } }, template: template({ app: 'put' }) },
      });
      const res = await raw(
        server.url,
        'PUT',
        `${APPS}/deployments/put`,
        JSON.stringify({
          metadata: { name: 'put', resourceVersion: d.metadata.resourceVersion },
          spec: { selector: { matchLabels: { app: 'put' } }, template: template({ app: 'put' }) },
        }),
      );
      assert.equal(res.code, 200, res.body);
      const put = res.json as any;
      assert.equal(put.spec.replicas, 1);
      assert.equal(
        put.spec.template.spec.containers[0].terminationMessagePath,
        '/dev/termination-log',
      );
      assert.equal(put.metadata.generation, 1);
      assert.equal(put.metadata.resourceVersion, d.metadata.resourceVersion, 'a no-op update');
    });

    it('a merge patch that removes a defaulted field gets it back; a JSON patch result is defaulted too', async () => {
      const res = await raw(
        server.url,
        'PATCH',
        `${APPS}/deployments/put`,
        JSON.stringify({ spec: { revisionHistoryLimit: null, strategy: null } }),
        { 'Content-Type': 'application/merge-patch+json' },
      );
      assert.equal(res.code, 200, res.body);
      const d = res.json as any;
      assert.equal(d.spec.revisionHistoryLimit, 10);
      assert.equal(d.spec.strategy.type, 'RollingUpdate');
      assert.equal(d.metadata.generation, 1);
      const jp = await raw(
        server.url,
        'PATCH',
        `${APPS}/deployments/put`,
        JSON.stringify([
          {
            op: 'add',
            path: '/spec/template/spec/containers/-',
            value: { name: 'side', image: 'envoy' },
          },
        ]),
        { 'Content-Type': 'application/json-patch+json' },
      );
      assert.equal(jp.code, 200, jp.body);
      const side = (jp.json as any).spec.template.spec.containers[1];
      assert.equal(side.imagePullPolicy, 'Always');
      assert.equal((jp.json as any).metadata.generation, 2);
    });

    it('server-side apply of a Deployment without replicas stores replicas 1 but its manager owns no f:replicas (nor other defaults); a create owns the defaults it stored, as on kube-apiserver', async () => {
      const applied = {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'applied' },
        spec: { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }) },
      };
      const res = await raw(
        server.url,
        'PATCH',
        `${APPS}/deployments/applied?fieldManager=ci`,
        JSON.stringify(applied),
        { 'Content-Type': 'application/apply-patch+yaml' },
      );
      assert.equal(res.code, 201, res.body);
      const d = res.json as any;
      assert.equal(d.spec.replicas, 1);
      const [entry] = d.metadata.managedFields;
      assert.equal(entry.manager, 'ci');
      assert.equal(entry.operation, 'Apply');
      const spec = entry.fieldsV1['f:spec'];
      assert.deepEqual(Object.keys(spec).sort(), ['f:selector', 'f:template']);
      const c = spec['f:template']['f:spec']['f:containers']['k:{"name":"app"}'];
      assert.deepEqual(Object.keys(c).sort(), ['.', 'f:image', 'f:name']);
      // A POST is an Update: kube-apiserver's field manager sees the defaulted object.
      const posted = await raw(
        server.url,
        'POST',
        `${APPS}/deployments?fieldManager=kubectl-create`,
        JSON.stringify({ ...applied, metadata: { name: 'posted' } }),
      );
      const owned = (posted.json as any).metadata.managedFields[0].fieldsV1['f:spec'];
      assert.ok(
        'f:replicas' in owned && 'f:strategy' in owned && 'f:revisionHistoryLimit' in owned,
      );
    });

    it('a protobuf body gets the same defaults as JSON', async () => {
      const body = encodeObject({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'pb', namespace: 'default' },
        spec: { selector: { matchLabels: { app: 'pb' } }, template: template({ app: 'pb' }) },
      });
      assert.ok(body);
      const res = await new Promise<{ code: number; body: Buffer }>((resolve, reject) => {
        const req = request(
          `${server.url}${APPS}/deployments`,
          {
            method: 'POST',
            agent: false,
            headers: {
              'Content-Type': 'application/vnd.kubernetes.protobuf',
              Accept: 'application/vnd.kubernetes.protobuf',
            },
          },
          (r) => {
            const chunks: Buffer[] = [];
            r.on('data', (c: Buffer) => chunks.push(c));
            r.on('end', () => resolve({ code: r.statusCode ?? 0, body: Buffer.concat(chunks) }));
          },
        );
        req.on('error', reject);
        req.end(body);
      });
      assert.equal(res.code, 201, res.body.toString());
      const d = decodeObject(res.body) as any;
      assert.equal(d.spec.replicas, 1);
      assert.equal(d.spec.strategy.rollingUpdate.maxSurge, '25%');
      assert.equal(d.spec.template.spec.containers[0].imagePullPolicy, 'IfNotPresent');
      const stored = server.get<any>('deployments.apps', 'pb', 'default');
      assert.deepEqual(stored.spec.template.spec.securityContext, {});
    });

    it('in-process seeding (server.create) defaults as HTTP does', () => {
      server.create('pods', {
        metadata: { name: 'seeded', namespace: 'default' },
        spec: { containers: [container('c', 'redis:7')] },
      });
      const pod = server.get<any>('pods', 'seeded', 'default');
      assert.equal(pod.spec.restartPolicy, 'Always');
      assert.equal(pod.spec.containers[0].imagePullPolicy, 'IfNotPresent');
    });
  });

  describe(
    'built-in defaults seen by kubectl',
    { skip: hasKubectl() ? false : 'kubectl is not installed' },
    () => {
      let dir: string;
      let kubeconfig: string;
      const kubectl = async (...args: string[]): Promise<string> =>
        (await run('kubectl', ['--kubeconfig', kubeconfig, ...args])).stdout;
      before(async () => {
        dir = await mkdtemp(join(tmpdir(), 'kck-defaults-'));
        kubeconfig = join(dir, 'kubeconfig.yaml');
        await server.writeKubeconfig(kubeconfig);
      });
      after(() => rm(dir, { recursive: true, force: true }));

      it('kubectl create deployment --image=nginx reads back imagePullPolicy Always, strategy RollingUpdate 25%/25% and replicas 1', async () => {
        await kubectl('create', 'deployment', 'kx', '--image=nginx');
        const policy = await kubectl(
          'get',
          'deployment',
          'kx',
          '-o',
          'jsonpath={.spec.template.spec.containers[0].imagePullPolicy}',
        );
        assert.equal(policy, 'Always');
        const d = JSON.parse(await kubectl('get', 'deployment', 'kx', '-o', 'json'));
        assert.deepEqual(d.spec.strategy, {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' },
        });
        assert.equal(d.spec.replicas, 1);
        assert.equal(d.spec.template.spec.terminationGracePeriodSeconds, 30);
      });

      it('kubectl apply --server-side of a Deployment without replicas: replicas 1, and no f:replicas in the manager’s fields', async () => {
        const file = join(dir, 'd.yaml');
        await writeFile(
          file,
          [
            'apiVersion: apps/v1',
            'kind: Deployment',
            'metadata: {name: ssa, namespace: default}',
            'spec:',
            '  selector: {matchLabels: {app: ssa}}',
            '  template:',
            '    metadata: {labels: {app: ssa}}',
            '    spec:',
            '      containers: [{name: app, image: "nginx:1.27"}]',
          ].join('\n'),
        );
        await kubectl('apply', '--server-side', '-f', file);
        const d = JSON.parse(
          await kubectl('get', 'deployment', 'ssa', '-o', 'json', '--show-managed-fields'),
        );
        assert.equal(d.spec.replicas, 1);
        const entry = d.metadata.managedFields.find((m: any) => m.operation === 'Apply');
        assert.equal(entry.manager, 'kubectl');
        assert.equal('f:replicas' in entry.fieldsV1['f:spec'], false);
        assert.equal('f:strategy' in entry.fieldsV1['f:spec'], false);
      });
    },
  );
});
