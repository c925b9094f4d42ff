/**
 * The discovery order of kube-apiserver's groups: the priority of each group and of each
 * version in it, as the aggregator's APIServices carry them (`groupPriorityMinimum`,
 * `versionPriority`; kube-apiserver's DefaultGenericAPIServicePriorities and its own
 * additions). `/apis` lists apiregistration.k8s.io (the aggregator's own group) first,
 * then the groups by priority, highest first, ties by name; a group without one (a CRD's)
 * has 1000.
 *
 * @module
 */

/** A group's priority and the priority of each of its served versions. */
export interface GroupPriority {
  /** `groupPriorityMinimum`: higher is listed first. */
  group: number;
  /** `versionPriority` of each version. */
  versions: Record<string, number>;
}

/** The aggregator's own group, listed first in `/apis`. */
export const AGGREGATOR_GROUP = 'apiregistration.k8s.io';

/** The priority kube-apiserver gives a CRD's group (crdregistration). */
export const CRD_GROUP_PRIORITY = 1000;
/** The version priority of a CRD's versions. */
export const CRD_VERSION_PRIORITY = 100;

/** kube-apiserver 1.36's built-in group priorities. */
export const GROUP_PRIORITIES: Readonly<Record<string, GroupPriority>> = {
  '': { group: 18000, versions: { v1: 1 } },
  'apiregistration.k8s.io': { group: 18000, versions: { v1: 15 } },
  apps: { group: 17800, versions: { v1: 15 } },
  'events.k8s.io': { group: 17750, versions: { v1: 15 } },
  'authentication.k8s.io': { group: 17700, versions: { v1: 15 } },
  'authorization.k8s.io': { group: 17600, versions: { v1: 15 } },
  autoscaling: { group: 17500, versions: { v2: 30, v1: 15 } },
  batch: { group: 17400, versions: { v1: 15 } },
  'certificates.k8s.io': { group: 17300, versions: { v1: 15 } },
  'networking.k8s.io': { group: 17200, versions: { v1: 15 } },
  policy: { group: 17100, versions: { v1: 15 } },
  'rbac.authorization.k8s.io': { group: 17000, versions: { v1: 15 } },
  'storage.k8s.io': { group: 16800, versions: { v1: 15 } },
  'admissionregistration.k8s.io': { group: 16700, versions: { v1: 15 } },
  'apiextensions.k8s.io': { group: 16700, versions: { v1: 15 } },
  'scheduling.k8s.io': { group: 16600, versions: { v1: 15 } },
  'coordination.k8s.io': { group: 16500, versions: { v1: 15 } },
  'node.k8s.io': { group: 16300, versions: { v1: 15 } },
  'discovery.k8s.io': { group: 16200, versions: { v1: 15 } },
  'flowcontrol.apiserver.k8s.io': { group: 16100, versions: { v1: 21 } },
  'resource.k8s.io': { group: 15900, versions: { v1: 15 } },
};

/** Orders group names as `/apis` lists them. */
export function compareGroups(a: string, b: string): number {
  if (a === b) return 0;
  if (a === AGGREGATOR_GROUP) return -1;
  if (b === AGGREGATOR_GROUP) return 1;
  const pa = GROUP_PRIORITIES[a]?.group ?? CRD_GROUP_PRIORITY;
  const pb = GROUP_PRIORITIES[b]?.group ?? CRD_GROUP_PRIORITY;
  if (pa !== pb) return pb - pa;
  return a < b ? -1 : 1;
}
