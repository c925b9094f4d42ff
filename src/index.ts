/**
 * kube-controller-kit: client-go's controller machinery for TypeScript.
 *
 * The in-memory API server lives at `@kube-controller-kit/testing`, the Prometheus adapter at
 * `kube-controller-kit/metrics`, and the CRD type generator at `kube-controller-kit/codegen`.
 *
 * @packageDocumentation
 */
export * from './util/index.js';
export * from './client/index.js';
export * from './cache/index.js';
export * from './dynamic/index.js';
export * from './workqueue/index.js';
export * from './leaderelection/index.js';
export * from './controller/index.js';
export * from './record/index.js';
export * from './manager/index.js';
export * from './sharding/index.js';
export * from './multicluster/index.js';
export * from './webhook/index.js';
export * from './program/index.js';
export { failureStatus, groupResourceKey } from './apimachinery/index.js';
export type {
  FieldsV1,
  ManagedFieldsEntry,
  ManagedFieldsOperationType,
} from './apimachinery/index.js';
