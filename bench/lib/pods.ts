// A realistic pod generator for benchmarks: ~4 KB of JSON each, with managedFields,
// labels, annotations, ownerReferences, containers and status conditions, as a
// ReplicaSet-owned pod looks on a real cluster. Deterministic for a given index.

export interface BenchPod {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    resourceVersion: string;
    generateName: string;
    creationTimestamp: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    ownerReferences: {
      apiVersion: string;
      kind: string;
      name: string;
      uid: string;
      controller: boolean;
      blockOwnerDeletion: boolean;
    }[];
    managedFields: unknown[];
  };
  spec: Record<string, unknown>;
  status: Record<string, unknown>;
}

const hex = (n: number, width: number): string => n.toString(16).padStart(width, '0').slice(-width);
const uid = (i: number, salt: number): string =>
  `${hex(i * 2654435761 + salt, 8)}-${hex(i + salt, 4)}-4${hex(i * 7, 3)}-a${hex(i * 13, 3)}-${hex(i * 31 + salt, 12)}`;

/** The `index`-th pod (namespace `ns-<index % namespaces>`), at `resourceVersion`. */
export function makeBenchPod(
  index: number,
  resourceVersion = String(1000 + index),
  namespaces = 20,
): BenchPod {
  const app = `app-${index % 97}`;
  const rs = `${app}-${hex(index % 7919, 10)}`;
  const name = `${rs}-${hex(index * 48271, 5)}`;
  const ts = '2026-01-01T00:00:00Z';
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: `ns-${index % namespaces}`,
      uid: uid(index, 1),
      resourceVersion,
      generateName: `${rs}-`,
      creationTimestamp: ts,
      labels: {
        app,
        'app.kubernetes.io/name': app,
        'app.kubernetes.io/instance': `${app}-prod`,
        'app.kubernetes.io/version': '1.4.2',
        'pod-template-hash': hex(index % 7919, 10),
        tier: index % 3 === 0 ? 'frontend' : 'backend',
      },
      annotations: {
        'kubectl.kubernetes.io/restartedAt': ts,
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': '9090',
        'checksum/config': hex(index * 2246822519, 16) + hex(index * 3266489917, 16),
      },
      ownerReferences: [
        {
          apiVersion: 'apps/v1',
          kind: 'ReplicaSet',
          name: rs,
          uid: uid(index % 7919, 2),
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
      managedFields: [
        {
          manager: 'kube-controller-manager',
          operation: 'Update',
          apiVersion: 'v1',
          time: ts,
          fieldsType: 'FieldsV1',
          fieldsV1: {
            'f:metadata': {
              'f:generateName': {},
              'f:labels': { '.': {}, 'f:app': {}, 'f:pod-template-hash': {}, 'f:tier': {} },
              'f:ownerReferences': { '.': {}, [`k:{"uid":"${uid(index % 7919, 2)}"}`]: {} },
            },
            'f:spec': {
              'f:containers': {
                'k:{"name":"main"}': { '.': {}, 'f:image': {}, 'f:name': {}, 'f:ports': {} },
              },
              'f:dnsPolicy': {},
              'f:restartPolicy': {},
              'f:schedulerName': {},
              'f:terminationGracePeriodSeconds': {},
            },
          },
        },
        {
          manager: 'kubelet',
          operation: 'Update',
          apiVersion: 'v1',
          time: ts,
          fieldsType: 'FieldsV1',
          subresource: 'status',
          fieldsV1: {
            'f:status': {
              'f:conditions': {
                'k:{"type":"ContainersReady"}': {
                  '.': {},
                  'f:lastTransitionTime': {},
                  'f:status': {},
                  'f:type': {},
                },
                'k:{"type":"Initialized"}': {
                  '.': {},
                  'f:lastTransitionTime': {},
                  'f:status': {},
                  'f:type': {},
                },
                'k:{"type":"Ready"}': {
                  '.': {},
                  'f:lastTransitionTime': {},
                  'f:status': {},
                  'f:type': {},
                },
              },
              'f:containerStatuses': {},
              'f:hostIP': {},
              'f:phase': {},
              'f:podIP': {},
              'f:startTime': {},
            },
          },
        },
      ],
    },
    spec: {
      containers: [
        {
          name: 'main',
          image: `registry.example.com/team/${app}:1.4.2`,
          args: ['--port=8080', '--metrics-port=9090', `--instance=${index}`],
          ports: [
            { containerPort: 8080, name: 'http', protocol: 'TCP' },
            { containerPort: 9090, name: 'metrics', protocol: 'TCP' },
          ],
          env: [
            {
              name: 'POD_NAME',
              valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
            },
            { name: 'LOG_LEVEL', value: 'info' },
          ],
          resources: {
            limits: { cpu: '500m', memory: '256Mi' },
            requests: { cpu: '100m', memory: '128Mi' },
          },
          readinessProbe: {
            httpGet: { path: '/healthz', port: 8080, scheme: 'HTTP' },
            periodSeconds: 10,
          },
          volumeMounts: [
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
          imagePullPolicy: 'IfNotPresent',
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
        },
      ],
      dnsPolicy: 'ClusterFirst',
      nodeName: `node-${index % 500}`,
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      terminationGracePeriodSeconds: 30,
      tolerations: [
        {
          effect: 'NoExecute',
          key: 'node.kubernetes.io/not-ready',
          operator: 'Exists',
          tolerationSeconds: 300,
        },
        {
          effect: 'NoExecute',
          key: 'node.kubernetes.io/unreachable',
          operator: 'Exists',
          tolerationSeconds: 300,
        },
      ],
      volumes: [
        {
          name: 'kube-api-access',
          projected: {
            defaultMode: 420,
            sources: [
              { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
              {
                configMap: { items: [{ key: 'ca.crt', path: 'ca.crt' }], name: 'kube-root-ca.crt' },
              },
            ],
          },
        },
      ],
    },
    status: {
      phase: 'Running',
      hostIP: `10.0.${index % 250}.${(index >> 8) % 250}`,
      podIP: `10.244.${(index >> 8) % 250}.${index % 250}`,
      podIPs: [{ ip: `10.244.${(index >> 8) % 250}.${index % 250}` }],
      startTime: ts,
      qosClass: 'Burstable',
      conditions: [
        { type: 'Initialized', status: 'True', lastProbeTime: null, lastTransitionTime: ts },
        { type: 'Ready', status: 'True', lastProbeTime: null, lastTransitionTime: ts },
        { type: 'ContainersReady', status: 'True', lastProbeTime: null, lastTransitionTime: ts },
        { type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: ts },
      ],
      containerStatuses: [
        {
          name: 'main',
          ready: true,
          restartCount: index % 3,
          started: true,
          image: `registry.example.com/team/${app}:1.4.2`,
          imageID: `registry.example.com/team/${app}@sha256:${hex(index * 2654435761, 16)}${hex(index * 40503, 16)}${hex(index * 69069, 16)}${hex(index * 1103515245, 16)}`,
          containerID: `containerd://${hex(index * 22695477, 16)}${hex(index * 1664525, 16)}${hex(index * 134775813, 16)}${hex(index * 214013, 16)}`,
          state: { running: { startedAt: ts } },
          lastState: {},
        },
      ],
    },
  };
}

/** `count` pods. */
export function makeBenchPods(count: number, namespaces = 20): BenchPod[] {
  return Array.from({ length: count }, (_, i) => makeBenchPod(i, String(1000 + i), namespaces));
}
