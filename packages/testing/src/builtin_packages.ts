/**
 * The Go package of each built-in API group the test server serves: `apps` for `apps`,
 * `rbac` for `rbac.authorization.k8s.io`. It names both their protobuf messages
 * (`k8s.io.api.<pkg>.<version>.<Kind>`) and their OpenAPI schemas
 * (`io.k8s.api.<pkg>.<version>.<Kind>`), as kube-apiserver does.
 *
 * @module
 */

/** Built-in API group → its package under `k8s.io/api`. */
export const BUILTIN_API_PACKAGES: Readonly<Record<string, string>> = {
  '': 'core',
  apps: 'apps',
  autoscaling: 'autoscaling',
  batch: 'batch',
  'coordination.k8s.io': 'coordination',
  'events.k8s.io': 'events',
  'networking.k8s.io': 'networking',
  policy: 'policy',
  'rbac.authorization.k8s.io': 'rbac',
  'authorization.k8s.io': 'authorization',
  'authentication.k8s.io': 'authentication',
  'admissionregistration.k8s.io': 'admissionregistration',
  'certificates.k8s.io': 'certificates',
  'discovery.k8s.io': 'discovery',
  'flowcontrol.apiserver.k8s.io': 'flowcontrol',
  'node.k8s.io': 'node',
  'resource.k8s.io': 'resource',
  'scheduling.k8s.io': 'scheduling',
  'storage.k8s.io': 'storage',
};
