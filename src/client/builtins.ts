/**
 * Typed shortcuts for the built-in resources controllers use most, carrying client-node's
 * `V1*` types in their wire form ({@link Serialized}).
 *
 * ```ts
 * const pod = await pods(kc).namespace('default').get('web-0'); // Serialized<V1Pod>
 * const leases = new ResourceClient(transport, leasesResource);
 * ```
 *
 * @module
 */
import type {
  CoreV1Event,
  V1ConfigMap,
  V1CustomResourceDefinition,
  V1Deployment,
  V1Lease,
  V1Namespace,
  V1Pod,
  V1Secret,
  V1Service,
} from '@kubernetes/client-node';
import { ResourceClient } from './resource_client.js';
import type { ResourceClientOptions } from './resource_client.js';
import type { KubeConfigLike, Transport } from './transport.js';
import type { ApiResource, Serialized } from './types.js';

/** Pods (`v1`, namespaced). */
export const podsResource: ApiResource<Serialized<V1Pod>> = {
  group: '',
  version: 'v1',
  resource: 'pods',
  kind: 'Pod',
  namespaced: true,
};
/** ConfigMaps (`v1`, namespaced). */
export const configMapsResource: ApiResource<Serialized<V1ConfigMap>> = {
  group: '',
  version: 'v1',
  resource: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
/** Secrets (`v1`, namespaced). */
export const secretsResource: ApiResource<Serialized<V1Secret>> = {
  group: '',
  version: 'v1',
  resource: 'secrets',
  kind: 'Secret',
  namespaced: true,
};
/** Services (`v1`, namespaced). */
export const servicesResource: ApiResource<Serialized<V1Service>> = {
  group: '',
  version: 'v1',
  resource: 'services',
  kind: 'Service',
  namespaced: true,
};
/** Namespaces (`v1`, cluster-scoped). */
export const namespacesResource: ApiResource<Serialized<V1Namespace>> = {
  group: '',
  version: 'v1',
  resource: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
/** Events (core `v1`, namespaced). */
export const eventsResource: ApiResource<Serialized<CoreV1Event>> = {
  group: '',
  version: 'v1',
  resource: 'events',
  kind: 'Event',
  namespaced: true,
};
/** Deployments (`apps/v1`, namespaced). */
export const deploymentsResource: ApiResource<Serialized<V1Deployment>> = {
  group: 'apps',
  version: 'v1',
  resource: 'deployments',
  kind: 'Deployment',
  namespaced: true,
};
/** Leases (`coordination.k8s.io/v1`, namespaced): the leader-election lock. */
export const leasesResource: ApiResource<Serialized<V1Lease>> = {
  group: 'coordination.k8s.io',
  version: 'v1',
  resource: 'leases',
  kind: 'Lease',
  namespaced: true,
};
/** CustomResourceDefinitions (`apiextensions.k8s.io/v1`, cluster-scoped). */
export const customResourceDefinitionsResource: ApiResource<
  Serialized<V1CustomResourceDefinition>
> = {
  group: 'apiextensions.k8s.io',
  version: 'v1',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
};

/** A pods client. */
export function pods(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1Pod>> {
  return new ResourceClient(source, podsResource, options);
}
/** A configmaps client. */
export function configMaps(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1ConfigMap>> {
  return new ResourceClient(source, configMapsResource, options);
}
/** A secrets client. */
export function secrets(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1Secret>> {
  return new ResourceClient(source, secretsResource, options);
}
/** A services client. */
export function services(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1Service>> {
  return new ResourceClient(source, servicesResource, options);
}
/** A namespaces client. */
export function namespaces(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1Namespace>> {
  return new ResourceClient(source, namespacesResource, options);
}
/** A core/v1 events client. */
export function events(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<CoreV1Event>> {
  return new ResourceClient(source, eventsResource, options);
}
/** A deployments client. */
export function deployments(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1Deployment>> {
  return new ResourceClient(source, deploymentsResource, options);
}
/** A leases client. */
export function leases(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1Lease>> {
  return new ResourceClient(source, leasesResource, options);
}
/** A customresourcedefinitions client. */
export function customResourceDefinitions(
  source: Transport | KubeConfigLike,
  options?: ResourceClientOptions,
): ResourceClient<Serialized<V1CustomResourceDefinition>> {
  return new ResourceClient(source, customResourceDefinitionsResource, options);
}
