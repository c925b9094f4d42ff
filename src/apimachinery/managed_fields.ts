/**
 * The types of server-side apply bookkeeping (`metadata.managedFields`), as meta/v1 defines
 * them: one entry per manager, operation and subresource, naming the fields it owns in the
 * `FieldsV1` trie format.
 *
 * @module
 */

/**
 * How a manager came to own its fields: by server-side apply, or by any other write.
 *
 * Exported for `@kube-controller-kit/testing`, not part of the API.
 *
 * @internal
 */
export type ManagedFieldsOperationType = 'Apply' | 'Update';

/**
 * The set of fields a manager owns, as a trie in meta/v1's `FieldsV1` format: keys are
 * `f:<field>`, `k:<list-map key as JSON>`, `v:<set value as JSON>` or `i:<index>`; a `.`
 * key marks the node itself as owned; leaves are `{}`.
 *
 * Exported for `@kube-controller-kit/testing`, not part of the API.
 *
 * @internal
 */
export interface FieldsV1 {
  /** One child of the trie (`f:spec`, `k:{"name":"app"}`, `.`). */
  [path: string]: FieldsV1;
}

/**
 * One entry of `metadata.managedFields`.
 *
 * Exported for `@kube-controller-kit/testing`, not part of the API.
 *
 * @internal
 */
export interface ManagedFieldsEntry {
  /** The field manager (`kubectl`, `my-controller`, …). */
  manager?: string;
  /** `Apply` for server-side apply, `Update` for every other write. */
  operation?: ManagedFieldsOperationType;
  /** The `apiVersion` the fields are expressed in. */
  apiVersion?: string;
  /** When the manager last changed a field it owns (RFC 3339). */
  time?: string;
  /** Always `FieldsV1`. */
  fieldsType?: 'FieldsV1';
  /** The owned fields. */
  fieldsV1?: FieldsV1;
  /** The subresource written (`status`, `scale`), or absent for the main resource. */
  subresource?: string;
}
