/**
 * The shapes of Kubernetes API objects as they travel on the wire (plain JSON).
 *
 * Objects in this library are always plain JSON: timestamps are RFC 3339 strings, never
 * `Date`s, whether they came from a list, a get or a watch. client-node's generated `V1*`
 * types declare `Date` for timestamps; {@link Serialized} turns such a type into its wire
 * form, and the typed shortcuts (`pods()`, `deployments()`, …) use it, so that
 * `Serialized<V1Pod>` is what a pod informer hands you.
 *
 * @module
 */
import type { ListMeta } from '../apimachinery/meta.js';
import type { Status } from '../apimachinery/status.js';

export type { ListMeta, ShardInfo } from '../apimachinery/meta.js';
export type { Status, StatusCause, StatusDetails, StatusReason } from '../apimachinery/status.js';

/**
 * The JSON wire form of a type: `Date` becomes `string` at any depth; everything else keeps
 * its shape. `Serialized<V1Pod>` is a pod as the API server sends it.
 */
export type Serialized<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Serialized<U>[]
    : T extends object
      ? { [K in keyof T]: Serialized<T[K]> }
      : T;

/** An owner reference (metadata.ownerReferences[]). */
export interface OwnerReference {
  /** API version of the owner. */
  apiVersion: string;
  /** Kind of the owner. */
  kind: string;
  /** Name of the owner. */
  name: string;
  /** UID of the owner. */
  uid: string;
  /** True when the owner is the managing controller. */
  controller?: boolean;
  /** Whether the owner's foreground deletion waits for this object. */
  blockOwnerDeletion?: boolean;
}

/** The parts of ObjectMeta the library reads. Every field is optional, as on the wire. */
export interface ObjectMeta {
  /** Name, unique within a namespace. */
  name?: string;
  /** Prefix for a server-generated name. */
  generateName?: string;
  /** Namespace; empty or absent for cluster-scoped objects. */
  namespace?: string;
  /** Server-assigned unique id. */
  uid?: string;
  /** Opaque version string; compare for equality only. */
  resourceVersion?: string;
  /** Increases when the spec changes. */
  generation?: number;
  /** Creation time (RFC 3339). */
  creationTimestamp?: string;
  /** Set when deletion was requested and finalizers still hold the object (RFC 3339). */
  deletionTimestamp?: string;
  /** Grace period of a pending deletion. */
  deletionGracePeriodSeconds?: number;
  /** Labels. */
  labels?: Record<string, string>;
  /** Annotations. */
  annotations?: Record<string, string>;
  /** Owners of this object. */
  ownerReferences?: OwnerReference[];
  /** Finalizers that must be removed before the object is deleted. */
  finalizers?: string[];
  /** Server-side apply bookkeeping; often the largest part of an object. */
  managedFields?: unknown[];
}

/** Anything with the standard object envelope. Typed objects and unstructured ones both fit. */
export interface KubeObject {
  /** `group/version`, or `version` for the core group. */
  apiVersion?: string;
  /** The object's kind. */
  kind?: string;
  /** Standard object metadata. */
  metadata?: ObjectMeta;
}

/** An object of a kind the library has no type for: the envelope plus any other fields. */
export interface UnstructuredObject extends KubeObject {
  /** Any other top-level field (spec, status, data, …). */
  [field: string]: unknown;
}

/**
 * PartialObjectMetadata (meta.k8s.io/v1): only the envelope, as metadata-only requests
 * return. The server sends each object as `meta.k8s.io/v1` `PartialObjectMetadata`; the
 * metadata-only client (and so every metadata-only informer, lister and list) gives it
 * the `apiVersion` and `kind` of the resource it was read from, so that `getReference`,
 * owner references and Events name the real object.
 */
export interface PartialObjectMetadata extends KubeObject {
  /** The resource's `group/version` (e.g. `v1` for a ConfigMap), set by the client. */
  apiVersion?: string;
  /** The resource's kind (e.g. `ConfigMap`), set by the client. */
  kind?: string;
}

/** A list response. */
export interface ObjectList<T> {
  /** `group/version` of the list. */
  apiVersion?: string;
  /** `<Kind>List`. */
  kind?: string;
  /** Paging and version information. */
  metadata: ListMeta;
  /** The objects. */
  items: T[];
}

/** The kinds of watch event. */
export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

/** One event of a watch stream. An `ERROR` event carries a {@link Status}. */
export type WatchEvent<T> =
  | {
      /** What happened to the object (BOOKMARK: only its resourceVersion is meaningful). */
      type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
      /** The object after the change (for DELETED, its last state). */
      object: T;
    }
  | {
      /** The watch failed; the stream ends after this event. */
      type: 'ERROR';
      /** Why, as a Status (for example 410 Expired). */
      object: Status;
    };

/** A group, version and resource: what the API server serves at one path. */
export interface GroupVersionResource {
  /** API group; `''` for the core group. */
  group: string;
  /** API version, such as `v1`. */
  version: string;
  /** Plural resource name, such as `pods`. */
  resource: string;
}

/** A group and resource, without a version (as in error messages: `deployments.apps`). */
export interface GroupResource {
  /** API group; `''` for the core group. */
  group: string;
  /** Plural resource name. */
  resource: string;
}

/** Options of a list or watch request (query parameters). */
export interface ListOptions {
  /** Label selector in its string form, e.g. `app=web,tier!=db`. */
  labelSelector?: string;
  /** Field selector in its string form, e.g. `metadata.name=x`. */
  fieldSelector?: string;
  /** `""` = most recent (quorum), `"0"` = any, otherwise a version. */
  resourceVersion?: string;
  /** How `resourceVersion` applies to a list. */
  resourceVersionMatch?: 'NotOlderThan' | 'Exact';
  /** Page size. */
  limit?: number;
  /** Continue token from the previous page. */
  continue?: string;
  /** Server-side timeout of a watch. */
  timeoutSeconds?: number;
  /** Ask for BOOKMARK events on a watch. */
  allowWatchBookmarks?: boolean;
  /** Start a watch with synthetic ADDED events for the current state (streaming list). */
  sendInitialEvents?: boolean;
  /**
   * Server-side sharding (KEP-5866, Kubernetes 1.36 alpha, gate `ShardedListAndWatch`):
   * `shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')`, ranges
   * joined with `||`. A server without the gate ignores it (the list then has no
   * `metadata.shardInfo`). Build one with `shardSelectorFor`.
   */
  shardSelector?: string;
}

/**
 * Everything needed to address one resource: its group, version and plural name, its kind,
 * and whether it is namespaced. The type parameter carries the object type (wire form) so
 * that clients and informers built from it are typed without annotations.
 *
 * @typeParam T - the object type, e.g. `Serialized<V1Pod>` or a custom resource interface.
 */
export interface ApiResource<T = UnstructuredObject> extends GroupVersionResource {
  /** The kind, e.g. `Pod`. */
  kind: string;
  /** True for namespaced resources, false for cluster-scoped ones. */
  namespaced: boolean;
  /** Phantom field carrying the object type; never set at run time. */
  readonly __objectType?: T;
}
