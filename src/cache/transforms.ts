/**
 * Ready-made informer transforms.
 *
 * @module
 */
import type { KubeObject } from '../client/types.js';

/**
 * Drops `metadata.managedFields` (server-side-apply bookkeeping, often a third of a
 * pod's JSON) before the object is cached. Changes the object in place and returns it;
 * idempotent, as informer transforms must be. Use it when no handler reads managedFields.
 *
 * @example
 * ```ts
 * new SharedIndexInformer(lw, { transform: stripManagedFields });
 * ```
 */
export function stripManagedFields<T extends KubeObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta !== undefined && meta.managedFields !== undefined) delete meta.managedFields;
  return obj;
}
