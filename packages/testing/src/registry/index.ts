/**
 * The built-in kinds the test API server serves: one list, in kube-apiserver's discovery
 * order. Adding a kind is adding its file under `registry/<group>/` (one `defineKind`:
 * its facts, printers, merge type and the strategy steps that differ from ./generic.ts)
 * and one line here. Nothing else names a kind: discovery, RBAC, tables, server-side
 * apply, lists, watches, admission and the store read it from the registry. (Its protobuf
 * messages and OpenAPI schema come from the generated files, see
 * scripts/gen-k8s-protobuf.mjs.)
 *
 * @module
 */
import { groupResourceKey } from 'kube-controller-kit';
import type { BuiltinType } from '../fieldmanager/builtin_schema.js';
import { openRoot } from '../fieldmanager/builtin_schema.js';
import { customResourceDefinitions } from './apiextensions/customresourcedefinition.js';
import { mutatingWebhookConfigurations } from './admissionregistration/mutatingwebhookconfiguration.js';
import { validatingAdmissionPolicies } from './admissionregistration/validatingadmissionpolicy.js';
import { validatingAdmissionPolicyBindings } from './admissionregistration/validatingadmissionpolicybinding.js';
import { validatingWebhookConfigurations } from './admissionregistration/validatingwebhookconfiguration.js';
import { daemonSets } from './apps/daemonset.js';
import { deployments } from './apps/deployment.js';
import { replicaSets } from './apps/replicaset.js';
import { statefulSets } from './apps/statefulset.js';
import { cronJobs } from './batch/cronjob.js';
import { jobs } from './batch/job.js';
import { leases } from './coordination/lease.js';
import { configMaps } from './core/configmap.js';
import { endpoints } from './core/endpoints.js';
import { events } from './core/event.js';
import { namespaces } from './core/namespace.js';
import { nodes } from './core/node.js';
import { persistentVolumeClaims } from './core/persistentvolumeclaim.js';
import { pods } from './core/pod.js';
import { resourceQuotas } from './core/resourcequota.js';
import { secrets } from './core/secret.js';
import { serviceAccounts } from './core/serviceaccount.js';
import { services } from './core/service.js';
import { eventsApiEvents } from './events/event.js';
import { ingresses } from './networking/ingress.js';
import { networkPolicies } from './networking/networkpolicy.js';
import { podDisruptionBudgets } from './policy/poddisruptionbudget.js';
import { clusterRoleBindings } from './rbac/clusterrolebinding.js';
import { clusterRoles } from './rbac/clusterrole.js';
import { roleBindings } from './rbac/rolebinding.js';
import { roles } from './rbac/role.js';
import { resourceTypeOf } from './kind.js';
import {
  localSubjectAccessReviews,
  selfSubjectAccessReviews,
  selfSubjectReviews,
  selfSubjectRulesReviews,
  subjectAccessReviews,
  tokenReviews,
} from './reviews.js';
import type { KindDefinition, ResourceType } from './types.js';

/** Every built-in kind, in the order discovery lists them. */
export const BUILTIN_KINDS: readonly KindDefinition[] = [
  namespaces,
  pods,
  configMaps,
  secrets,
  services,
  events,
  eventsApiEvents,
  serviceAccounts,
  roles,
  roleBindings,
  clusterRoles,
  clusterRoleBindings,
  deployments,
  persistentVolumeClaims,
  nodes,
  endpoints,
  resourceQuotas,
  statefulSets,
  daemonSets,
  replicaSets,
  jobs,
  cronJobs,
  ingresses,
  networkPolicies,
  podDisruptionBudgets,
  leases,
  selfSubjectAccessReviews,
  subjectAccessReviews,
  localSubjectAccessReviews,
  selfSubjectRulesReviews,
  selfSubjectReviews,
  tokenReviews,
  mutatingWebhookConfigurations,
  validatingWebhookConfigurations,
  validatingAdmissionPolicyBindings,
  validatingAdmissionPolicies,
  customResourceDefinitions,
];

/** The built-in resources, fresh objects (field selectors may be added per server). */
export function builtinResources(): ResourceType[] {
  return BUILTIN_KINDS.map(resourceTypeOf);
}

const BY_KEY = new Map(BUILTIN_KINDS.map((k) => [groupResourceKey(k.group, k.resource), k]));

/**
 * The merge type of a built-in resource by its storage key (`pods`, `deployments.apps`);
 * an unknown built-in, or one that states none, gets an open struct with ObjectMeta.
 */
export function builtinType(grKey: string): BuiltinType {
  return BY_KEY.get(grKey)?.mergeType ?? openRoot;
}
