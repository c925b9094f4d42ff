/**
 * The roles and bindings kube-apiserver creates at start when RBAC is on
 * (plugin/pkg/auth/authorizer/rbac/bootstrappolicy), the ones operators and their tests
 * rely on: `cluster-admin` (bound to `system:masters`); the user-facing `admin`, `edit`
 * and `view`, aggregated as kube-apiserver aggregates them (from the
 * `system:aggregate-to-*` roles and any ClusterRole labelled
 * `rbac.authorization.k8s.io/aggregate-to-<role>: "true"`); `system:auth-delegator`
 * (TokenReview and SubjectAccessReview, what a secured metrics endpoint needs);
 * `system:basic-user`, `system:discovery` and `system:public-info-viewer` (bound to
 * every authenticated user, the last also to anonymous ones); `system:monitoring`.
 *
 * Each carries the `kubernetes.io/bootstrapping: rbac-defaults` label and the
 * `rbac.authorization.kubernetes.io/autoupdate: "true"` annotation.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { RBAC_GROUP } from './rbac.js';
import type { PolicyRule } from './rbac.js';

const READ = ['get', 'list', 'watch'];
const WRITE = ['create', 'delete', 'deletecollection', 'patch', 'update'];

function rule(verbs: string[], apiGroups: string[], resources: string[]): PolicyRule {
  return { verbs, apiGroups, resources };
}

function paths(verbs: string[], nonResourceURLs: string[]): PolicyRule {
  return { verbs, nonResourceURLs };
}

const META = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};

function clusterRole(
  name: string,
  rules: PolicyRule[],
  extra: { labels?: Record<string, string>; aggregateFrom?: string } = {},
): UnstructuredObject {
  const role: UnstructuredObject = {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name,
      labels: { ...META.labels, ...extra.labels },
      annotations: { ...META.annotations },
    },
    rules,
  };
  if (extra.aggregateFrom !== undefined) {
    role.aggregationRule = {
      clusterRoleSelectors: [
        {
          matchLabels: {
            [`rbac.authorization.k8s.io/aggregate-to-${extra.aggregateFrom}`]: 'true',
          },
        },
      ],
    };
  }
  return role;
}

function binding(name: string, role: string, groups: string[]): UnstructuredObject {
  return {
    apiVersion: `${RBAC_GROUP}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, labels: { ...META.labels }, annotations: { ...META.annotations } },
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: role },
    subjects: groups.map((g) => ({ apiGroup: RBAC_GROUP, kind: 'Group', name: g })),
  };
}

/** What `view` grants: reading the usual namespaced objects, never Secrets. */
function viewRules(): PolicyRule[] {
  return [
    rule(
      READ,
      [''],
      [
        'pods',
        'replicationcontrollers',
        'replicationcontrollers/scale',
        'serviceaccounts',
        'services',
        'services/status',
        'endpoints',
        'persistentvolumeclaims',
        'persistentvolumeclaims/status',
        'configmaps',
      ],
    ),
    rule(
      READ,
      [''],
      [
        'limitranges',
        'resourcequotas',
        'bindings',
        'events',
        'pods/status',
        'resourcequotas/status',
        'namespaces/status',
        'replicationcontrollers/status',
        'pods/log',
      ],
    ),
    rule(READ, [''], ['namespaces']),
    rule(READ, ['discovery.k8s.io'], ['endpointslices']),
    rule(
      READ,
      ['apps'],
      [
        'controllerrevisions',
        'statefulsets',
        'statefulsets/scale',
        'statefulsets/status',
        'daemonsets',
        'daemonsets/status',
        'deployments',
        'deployments/scale',
        'deployments/status',
        'replicasets',
        'replicasets/scale',
        'replicasets/status',
      ],
    ),
    rule(READ, ['autoscaling'], ['horizontalpodautoscalers', 'horizontalpodautoscalers/status']),
    rule(READ, ['batch'], ['jobs', 'cronjobs', 'cronjobs/status', 'jobs/status']),
    rule(READ, ['policy'], ['poddisruptionbudgets', 'poddisruptionbudgets/status']),
    rule(READ, ['networking.k8s.io'], ['ingresses', 'ingresses/status', 'networkpolicies']),
  ];
}

/** What `edit` adds to `view`: writing the usual namespaced objects, Secrets included. */
function editRules(): PolicyRule[] {
  return [
    rule(['impersonate'], [''], ['serviceaccounts']),
    rule(WRITE, [''], ['pods', 'pods/attach', 'pods/proxy', 'pods/exec', 'pods/portforward']),
    rule(['create'], [''], ['pods/eviction']),
    rule(
      [...READ, ...WRITE],
      [''],
      [
        'replicationcontrollers',
        'replicationcontrollers/scale',
        'serviceaccounts',
        'services',
        'services/proxy',
        'persistentvolumeclaims',
        'configmaps',
        'secrets',
        'events',
      ],
    ),
    rule(['create'], [''], ['serviceaccounts/token']),
    rule(
      WRITE,
      ['apps'],
      [
        'statefulsets',
        'statefulsets/scale',
        'daemonsets',
        'deployments',
        'deployments/rollback',
        'deployments/scale',
        'replicasets',
        'replicasets/scale',
      ],
    ),
    rule(WRITE, ['autoscaling'], ['horizontalpodautoscalers']),
    rule(WRITE, ['batch'], ['jobs', 'cronjobs']),
    rule(WRITE, ['policy'], ['poddisruptionbudgets']),
    rule(WRITE, ['networking.k8s.io'], ['ingresses', 'networkpolicies']),
    rule(WRITE, ['discovery.k8s.io'], ['endpointslices']),
    rule(WRITE, ['coordination.k8s.io'], ['leases']),
    rule(READ, ['coordination.k8s.io'], ['leases']),
  ];
}

/** What `admin` adds to `edit`: managing RBAC in the namespace. */
function adminRules(): PolicyRule[] {
  return [
    rule(['create'], ['authorization.k8s.io'], ['localsubjectaccessreviews']),
    rule([...READ, ...WRITE], [RBAC_GROUP], ['rolebindings', 'roles']),
  ];
}

/** The bootstrap ClusterRoles and ClusterRoleBindings, in the order they are created. */
export function bootstrapPolicy(): {
  clusterRoles: UnstructuredObject[];
  clusterRoleBindings: UnstructuredObject[];
} {
  const clusterRoles = [
    clusterRole('cluster-admin', [rule(['*'], ['*'], ['*']), paths(['*'], ['*'])]),
    clusterRole('admin', [], {
      aggregateFrom: 'admin',
    }),
    clusterRole('edit', [], {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
      aggregateFrom: 'edit',
    }),
    clusterRole('view', [], {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
      aggregateFrom: 'view',
    }),
    clusterRole('system:aggregate-to-admin', adminRules(), {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-admin': 'true' },
    }),
    clusterRole('system:aggregate-to-edit', editRules(), {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    }),
    clusterRole('system:aggregate-to-view', viewRules(), {
      labels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    }),
    clusterRole('system:auth-delegator', [
      rule(['create'], ['authentication.k8s.io'], ['tokenreviews']),
      rule(['create'], ['authorization.k8s.io'], ['subjectaccessreviews']),
    ]),
    clusterRole('system:basic-user', [
      rule(
        ['create'],
        ['authorization.k8s.io'],
        ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      ),
      rule(['create'], ['authentication.k8s.io'], ['selfsubjectreviews']),
    ]),
    clusterRole('system:discovery', [
      paths(
        ['get'],
        [
          '/api',
          '/api/*',
          '/apis',
          '/apis/*',
          '/healthz',
          '/livez',
          '/openapi',
          '/openapi/*',
          '/readyz',
          '/version',
          '/version/',
        ],
      ),
    ]),
    clusterRole('system:service-account-issuer-discovery', [
      paths(
        ['get'],
        [
          '/.well-known/openid-configuration',
          '/.well-known/openid-configuration/',
          '/openid/v1/jwks',
          '/openid/v1/jwks/',
        ],
      ),
    ]),
    clusterRole('system:public-info-viewer', [
      paths(['get'], ['/healthz', '/livez', '/readyz', '/version', '/version/']),
    ]),
    clusterRole('system:monitoring', [
      paths(
        ['get'],
        [
          '/healthz',
          '/healthz/*',
          '/livez',
          '/livez/*',
          '/metrics',
          '/metrics/slis',
          '/readyz',
          '/readyz/*',
        ],
      ),
    ]),
  ];
  const clusterRoleBindings = [
    binding('cluster-admin', 'cluster-admin', ['system:masters']),
    binding('system:basic-user', 'system:basic-user', ['system:authenticated']),
    binding('system:discovery', 'system:discovery', ['system:authenticated']),
    binding('system:public-info-viewer', 'system:public-info-viewer', [
      'system:authenticated',
      'system:unauthenticated',
    ]),
    binding('system:monitoring', 'system:monitoring', ['system:monitoring']),
    binding('system:service-account-issuer-discovery', 'system:service-account-issuer-discovery', [
      'system:serviceaccounts',
    ]),
  ];
  return { clusterRoles, clusterRoleBindings };
}
