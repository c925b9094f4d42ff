/**
 * What the controllers of the test API server (the garbage collector and the namespace
 * controller, as kube-controller-manager runs them) see of the store: they read storage
 * and act through the store's delete, and write their own bookkeeping (finalizers,
 * owner references, a namespace's finalize) directly, as those controllers write without
 * admission. They run at once, inside the request that caused their work.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { ResourceRegistry, ResourceType } from './registry/resource_registry.js';
import type { Storage, StoredObject } from './storage.js';

/** A stored object with its resource type. */
export interface Held {
  /** Its resource. */
  readonly type: ResourceType;
  /** The stored object. */
  readonly stored: StoredObject;
}

/** The options a controller deletes with. */
export interface ControllerDeleteOptions {
  /** Grace period (0: at once). */
  gracePeriodSeconds?: number;
  /** Propagation to dependents. */
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan';
}

/** The store as the controllers use it. */
export interface ControllerStore {
  /** The objects. */
  readonly storage: Storage;
  /** The served resources. */
  readonly registry: ResourceRegistry;
  /** Deletes an object with the API's rules (finalizers hold it). */
  delete(
    type: ResourceType,
    namespace: string,
    name: string,
    opts?: ControllerDeleteOptions,
  ): StoredObject;
  /** Removes an object whose deletion is complete (no finalizers left). */
  remove(type: ResourceType, namespace: string, obj: UnstructuredObject): StoredObject;
}
