/**
 * Defaults of core/v1 pods and pod templates, as kube-apiserver sets them on decode
 * (k8s.io/kubernetes `pkg/apis/core/v1/defaults.go` and the generated defaulters):
 *
 * - `PodSpec` (pods and every pod template): `dnsPolicy: ClusterFirst`,
 *   `restartPolicy: Always`, `securityContext: {}`, `terminationGracePeriodSeconds: 30`,
 *   `schedulerName: default-scheduler`.
 * - Containers (regular, init, ephemeral): `imagePullPolicy` by image tag,
 *   `terminationMessagePath: /dev/termination-log`, `terminationMessagePolicy: File`,
 *   port `protocol: TCP`, `resources: {}` (a Go struct that is always serialized),
 *   probe timings (1 s timeout, 10 s period, thresholds 1 and 3), HTTP actions' `path: /`
 *   and `scheme: HTTP`, gRPC probes' `service: ''`, `fieldRef.apiVersion: v1`.
 * - Volumes: no source means `emptyDir: {}`; `defaultMode: 420` for secret, configMap,
 *   downwardAPI and projected volumes; `hostPath.type: ''`; a projected token's
 *   `expirationSeconds: 3600`; the legacy in-tree sources' declarative defaults;
 *   an ephemeral volume's claim `volumeMode: Filesystem`.
 * - Pods only (not templates): `enableServiceLinks: true`, container `requests` copied
 *   from `limits` where missing, and with `hostNetwork` each port's `hostPort` set to its
 *   `containerPort`.
 *
 * @module
 */
import { defaultPullPolicy } from './image.js';
import type { Obj } from './fields.js';
import { child, ensure, items, setIfEmpty, setIfNil, setIfZero } from './fields.js';

const VOLUME_SOURCES = [
  'hostPath',
  'emptyDir',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'secret',
  'nfs',
  'iscsi',
  'glusterfs',
  'persistentVolumeClaim',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'downwardAPI',
  'fc',
  'azureFile',
  'configMap',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'projected',
  'portworxVolume',
  'scaleIO',
  'storageos',
  'csi',
  'ephemeral',
  'image',
] as const;

/** File mode of secret, configMap, downwardAPI and projected volumes (0644). */
const DEFAULT_MODE = 420;

function defaultFieldRef(holder: Obj | undefined): void {
  const ref = holder === undefined ? undefined : child(holder, 'fieldRef');
  if (ref) setIfEmpty(ref, 'apiVersion', 'v1');
}

function defaultHttpGet(handler: Obj | undefined): void {
  const get = handler === undefined ? undefined : child(handler, 'httpGet');
  if (!get) return;
  setIfEmpty(get, 'path', '/');
  setIfEmpty(get, 'scheme', 'HTTP');
}

function defaultProbe(probe: Obj | undefined): void {
  if (!probe) return;
  setIfZero(probe, 'timeoutSeconds', 1);
  setIfZero(probe, 'periodSeconds', 10);
  setIfZero(probe, 'successThreshold', 1);
  setIfZero(probe, 'failureThreshold', 3);
  defaultHttpGet(probe);
  const grpc = child(probe, 'grpc');
  if (grpc) setIfNil(grpc, 'service', '');
}

/** Defaults one container (regular, init or ephemeral). */
export function defaultContainer(c: Obj): void {
  setIfEmpty(c, 'imagePullPolicy', defaultPullPolicy(c.image));
  setIfEmpty(c, 'terminationMessagePath', '/dev/termination-log');
  setIfEmpty(c, 'terminationMessagePolicy', 'File');
  setIfNil(c, 'resources', {});
  for (const p of items(c, 'ports')) setIfEmpty(p, 'protocol', 'TCP');
  for (const e of items(c, 'env')) defaultFieldRef(child(e, 'valueFrom'));
  for (const probe of ['livenessProbe', 'readinessProbe', 'startupProbe']) {
    defaultProbe(child(c, probe));
  }
  const lifecycle = child(c, 'lifecycle');
  if (lifecycle) {
    defaultHttpGet(child(lifecycle, 'postStart'));
    defaultHttpGet(child(lifecycle, 'preStop'));
  }
}

/** Defaults a PersistentVolumeClaimSpec (`volumeMode: Filesystem`). */
export function defaultClaimSpec(spec: Obj): void {
  setIfNil(spec, 'volumeMode', 'Filesystem');
}

function defaultDownwardApiItems(source: Obj): void {
  for (const item of items(source, 'items')) defaultFieldRef(item);
}

/** Defaults one pod volume. */
export function defaultVolume(v: Obj): void {
  if (!VOLUME_SOURCES.some((k) => v[k] !== undefined && v[k] !== null)) v.emptyDir = {};
  const hostPath = child(v, 'hostPath');
  if (hostPath) setIfNil(hostPath, 'type', '');
  for (const key of ['secret', 'configMap']) {
    const source = child(v, key);
    if (source) setIfNil(source, 'defaultMode', DEFAULT_MODE);
  }
  const downward = child(v, 'downwardAPI');
  if (downward) {
    setIfNil(downward, 'defaultMode', DEFAULT_MODE);
    defaultDownwardApiItems(downward);
  }
  const projected = child(v, 'projected');
  if (projected) {
    setIfNil(projected, 'defaultMode', DEFAULT_MODE);
    for (const source of items(projected, 'sources')) {
      const d = child(source, 'downwardAPI');
      if (d) defaultDownwardApiItems(d);
      const token = child(source, 'serviceAccountToken');
      if (token) setIfNil(token, 'expirationSeconds', 3600);
    }
  }
  defaultLegacyVolumeSources(v);
  const template = child(child(v, 'ephemeral') ?? {}, 'volumeClaimTemplate');
  const claimSpec = template && child(template, 'spec');
  if (claimSpec) defaultClaimSpec(claimSpec);
}

/** The declarative (`+default=`) defaults of the in-tree volume plugins. */
function defaultLegacyVolumeSources(v: Obj): void {
  const iscsi = child(v, 'iscsi');
  if (iscsi) setIfEmpty(iscsi, 'iscsiInterface', 'default');
  const rbd = child(v, 'rbd');
  if (rbd) {
    setIfEmpty(rbd, 'pool', 'rbd');
    setIfEmpty(rbd, 'user', 'admin');
    setIfEmpty(rbd, 'keyring', '/etc/ceph/keyring');
  }
  const azure = child(v, 'azureDisk');
  if (azure) {
    setIfNil(azure, 'cachingMode', 'ReadWrite');
    setIfNil(azure, 'fsType', 'ext4');
    setIfNil(azure, 'readOnly', false);
    setIfNil(azure, 'kind', 'Shared');
  }
  const scaleIO = child(v, 'scaleIO');
  if (scaleIO) {
    setIfEmpty(scaleIO, 'storageMode', 'ThinProvisioned');
    setIfEmpty(scaleIO, 'fsType', 'xfs');
  }
}

/** Defaults a PodSpec: what pods and every pod template get. */
export function defaultPodSpec(spec: Obj): void {
  setIfEmpty(spec, 'dnsPolicy', 'ClusterFirst');
  setIfEmpty(spec, 'restartPolicy', 'Always');
  setIfNil(spec, 'securityContext', {});
  setIfNil(spec, 'terminationGracePeriodSeconds', 30);
  setIfEmpty(spec, 'schedulerName', 'default-scheduler');
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of items(spec, key)) defaultContainer(c);
  }
  for (const v of items(spec, 'volumes')) defaultVolume(v);
}

/** Defaults the pod template (`spec.template.spec`) of a workload spec. */
export function defaultPodTemplate(workloadSpec: Obj | undefined): void {
  const template = workloadSpec && child(workloadSpec, 'template');
  if (template) defaultPodSpec(ensure(template, 'spec'));
}

/** Copies each missing request from the container's limits (pods only). */
function requestsFromLimits(c: Obj): void {
  const resources = child(c, 'resources');
  const limits = resources && child(resources, 'limits');
  if (!resources || !limits) return;
  const requests = ensure(resources, 'requests');
  for (const [name, quantity] of Object.entries(limits)) {
    if (!(name in requests)) requests[name] = quantity;
  }
}

/** Defaults a Pod: its spec, plus what only pods (not templates) get. */
export function defaultPod(pod: Obj): void {
  const spec = ensure(pod, 'spec');
  defaultPodSpec(spec);
  for (const key of ['containers', 'initContainers']) {
    for (const c of items(spec, key)) requestsFromLimits(c);
  }
  setIfNil(spec, 'enableServiceLinks', true);
  if (spec.hostNetwork === true) {
    for (const key of ['containers', 'initContainers']) {
      for (const c of items(spec, key)) {
        for (const p of items(c, 'ports')) {
          if (p.hostPort === undefined || p.hostPort === null || p.hostPort === 0) {
            p.hostPort = p.containerPort;
          }
        }
      }
    }
  }
}
