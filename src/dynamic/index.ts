/**
 * Working with resources the library has no types for: nested-field helpers for
 * unstructured objects, dynamic and metadata-only informer factories keyed by
 * group/version/resource, and the CRD-driven informer manager.
 *
 * @module
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
