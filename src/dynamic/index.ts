/**
 * Resources the program has no TypeScript types for (client-go's `dynamic`,
 * `dynamicinformer` and `metadatainformer`): informer factories keyed by
 * group/version/resource that serve unstructured objects or metadata only, the
 * {@link CRDInformerManager} that starts and stops informers as CustomResourceDefinitions
 * come and go, and nested-field helpers (`nestedString`, `setNestedField`, …) that read and
 * write unstructured objects safely.
 *
 * Imported from `kube-controller-kit`. Guide: [factories](../../docs/factories.md).
 *
 * ```ts
 * import { DynamicSharedInformerFactory, Transport, nestedString } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * server.create('configmaps', {
 *   metadata: { name: 'settings', namespace: 'default' },
 *   data: { mode: 'fast' },
 * });
 * const transport = new Transport(server.kubeConfig());
 * const factory = new DynamicSharedInformerFactory(transport);
 * const informer = await factory.forGroupVersionResource({
 *   group: '',
 *   version: 'v1',
 *   resource: 'configmaps',
 * });
 *
 * const stop = new AbortController();
 * factory.start(stop.signal);
 * await factory.waitForCacheSync(stop.signal);
 * for (const obj of informer.lister().list()) {
 *   const { value, found } = nestedString(obj, 'data', 'mode');
 *   if (found) console.log(obj.metadata?.name, 'mode', value);
 * }
 *
 * await factory.shutdown();
 * transport.close();
 * await server.close();
 * ```
 *
 * @module dynamic
 */
export {
  nestedField,
  nestedString,
  nestedNumber,
  nestedBoolean,
  nestedMap,
  nestedSlice,
  nestedStringSlice,
  nestedStringMap,
  setNestedField,
  removeNestedField,
  withNestedField,
  withoutNestedField,
  jsonTypeName,
  NestedFieldTypeError,
  EmptyFieldPathError,
} from './unstructured.js';
export type { NestedResult, UnstructuredMap } from './unstructured.js';
export { DynamicSharedInformerFactory, MetadataSharedInformerFactory } from './dynamic_factory.js';
export {
  CRDInformerManager,
  crdSelector,
  crdResources,
  isCrdEstablished,
} from './crd_informer_manager.js';
export type {
  CRDInformerManagerOptions,
  CRDPredicate,
  CRDSelectorSpec,
  CustomResourceDefinition,
  CustomResourceEventHandler,
  CustomResourceHandlerOptions,
  CustomResourceHandlerRegistration,
} from './crd_informer_manager.js';
