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
import type { UnstructuredObject } from 'kube-controller-kit';
import type { BuiltinType } from '../fieldmanager/builtin_schema.js';
import { openRoot } from '../fieldmanager/builtin_schema.js';
import { customResourceDefinitions } from './apiextensions/customresourcedefinition.js';
import { mutatingAdmissionPolicies } from './admissionregistration/mutatingadmissionpolicy.js';
import { mutatingAdmissionPolicyBindings } from './admissionregistration/mutatingadmissionpolicybinding.js';
import { mutatingWebhookConfigurations } from './admissionregistration/mutatingwebhookconfiguration.js';
import { validatingAdmissionPolicies } from './admissionregistration/validatingadmissionpolicy.js';
import { validatingAdmissionPolicyBindings } from './admissionregistration/validatingadmissionpolicybinding.js';
import { validatingWebhookConfigurations } from './admissionregistration/validatingwebhookconfiguration.js';
import { controllerRevisions } from './apps/controllerrevision.js';
import { daemonSets } from './apps/daemonset.js';
import { deployments } from './apps/deployment.js';
import { replicaSets } from './apps/replicaset.js';
import { statefulSets } from './apps/statefulset.js';
import { horizontalPodAutoscalers } from './autoscaling/horizontalpodautoscaler.js';
import { cronJobs } from './batch/cronjob.js';
import { jobs } from './batch/job.js';
import { leases } from './coordination/lease.js';
import { bindings } from './core/binding.js';
import { componentStatuses } from './core/componentstatus.js';
import { configMaps } from './core/configmap.js';
import { endpoints } from './core/endpoints.js';
import { events } from './core/event.js';
import { limitRanges } from './core/limitrange.js';
import { namespaces } from './core/namespace.js';
import { persistentVolumes } from './core/persistentvolume.js';
import { podTemplates } from './core/podtemplate.js';
import { replicationControllers } from './core/replicationcontroller.js';
import { nodes } from './core/node.js';
import { persistentVolumeClaims } from './core/persistentvolumeclaim.js';
import { pods } from './core/pod.js';
import { resourceQuotas } from './core/resourcequota.js';
import { secrets } from './core/secret.js';
import { serviceAccounts } from './core/serviceaccount.js';
import { services } from './core/service.js';
import { endpointSlices } from './discovery/endpointslice.js';
import { eventsApiEvents } from './events/event.js';
import { ingressClasses } from './networking/ingressclass.js';
import { ingresses } from './networking/ingress.js';
import { ipAddresses } from './networking/ipaddress.js';
import { networkPolicies } from './networking/networkpolicy.js';
import { serviceCidrs } from './networking/servicecidr.js';
import { runtimeClasses } from './node/runtimeclass.js';
import { podDisruptionBudgets } from './policy/poddisruptionbudget.js';
import { clusterRoleBindings } from './rbac/clusterrolebinding.js';
import { clusterRoles } from './rbac/clusterrole.js';
import { roleBindings } from './rbac/rolebinding.js';
import { roles } from './rbac/role.js';
import { priorityClasses } from './scheduling/priorityclass.js';
import { resourceTypeOf } from './kind.js';
import { apiServices } from './apiregistration/apiservice.js';
import { certificateSigningRequests } from './certificates/certificatesigningrequest.js';
import { flowSchemas } from './flowcontrol/flowschema.js';
import { priorityLevelConfigurations } from './flowcontrol/prioritylevelconfiguration.js';
import { deviceClasses } from './resource/deviceclass.js';
import { resourceClaims } from './resource/resourceclaim.js';
import { resourceClaimTemplates } from './resource/resourceclaimtemplate.js';
import { resourceSlices } from './resource/resourceslice.js';
import { csiDrivers } from './storage/csidriver.js';
import { csiNodes } from './storage/csinode.js';
import { csiStorageCapacities } from './storage/csistoragecapacity.js';
import { storageClasses } from './storage/storageclass.js';
import { volumeAttachments } from './storage/volumeattachment.js';
import { volumeAttributesClasses } from './storage/volumeattributesclass.js';
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
  persistentVolumes,
  nodes,
  endpoints,
  endpointSlices,
  resourceQuotas,
  limitRanges,
  podTemplates,
  replicationControllers,
  componentStatuses,
  bindings,
  statefulSets,
  daemonSets,
  replicaSets,
  controllerRevisions,
  horizontalPodAutoscalers,
  jobs,
  cronJobs,
  ingresses,
  networkPolicies,
  ingressClasses,
  ipAddresses,
  serviceCidrs,
  podDisruptionBudgets,
  storageClasses,
  volumeAttachments,
  csiDrivers,
  csiNodes,
  csiStorageCapacities,
  volumeAttributesClasses,
  leases,
  priorityClasses,
  runtimeClasses,
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
  mutatingAdmissionPolicies,
  mutatingAdmissionPolicyBindings,
  customResourceDefinitions,
  certificateSigningRequests,
  flowSchemas,
  priorityLevelConfigurations,
  deviceClasses,
  resourceClaims,
  resourceClaimTemplates,
  resourceSlices,
  apiServices,
];

/** One object kube-apiserver creates at start, with its kind's group and resource. */
export interface BootstrapObject {
  /** API group of its kind. */
  group: string;
  /** Resource of its kind. */
  resource: string;
  /** The object, at its kind's first version. */
  obj: UnstructuredObject;
}

/** What kube-apiserver's bootstrap hooks create at start (a kind's `bootstrap`), in kind order. */
export function bootstrapObjects(): BootstrapObject[] {
  return BUILTIN_KINDS.flatMap((k) =>
    (k.bootstrap?.(BUILTIN_KINDS) ?? []).map((obj) => ({
      group: k.group,
      resource: k.resource,
      obj,
    })),
  );
}

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
