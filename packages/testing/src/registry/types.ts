/**
 * The types of the test API server's registry, as kube-apiserver's registry has them: a
 * {@link ResourceType} (what is served: group, resource, kind, scope, subresources), the
 * {@link ResourceStrategy} of its kind (kube-apiserver's `RESTCreateStrategy`,
 * `RESTUpdateStrategy`, `RESTDeleteStrategy` and the generic store's hooks: what differs per
 * kind on a write), and a {@link KindDefinition} (one built-in kind, the whole of its file
 * under `registry/<group>/`).
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import type { BuiltinType } from '../fieldmanager/builtin_schema.js';
import type { Printer } from '../printers.js';
import type { CustomResourceSchema } from '../schema/index.js';
import type { StoredObject } from '../storage.js';

/**
 * Reads one field of an object for a field selector; `undefined` when absent.
 *
 * @group Server
 */
export type FieldGetter = (obj: UnstructuredObject) => string | undefined;

/** How names of a resource are validated. */
export type NameRule = 'subdomain' | 'label' | 'pathSegment';

/** Where the `scale` subresource reads and writes an object's replicas and selector. */
export interface ScaleSubresource {
  /** Dotted path of the desired replicas, e.g. `.spec.replicas`. */
  specReplicasPath: string;
  /** Dotted path of the observed replicas, e.g. `.status.replicas`. */
  statusReplicasPath: string;
  /**
   * Dotted path of the label selector in string form, e.g. `.status.selector`; when
   * absent, `spec.selector` (a metav1.LabelSelector) is rendered, as for Deployments.
   */
  labelSelectorPath?: string;
}

/** One resource the server serves (internal description). */
export interface ResourceType {
  /** API group ('' for core). */
  group: string;
  /** Plural resource name. */
  resource: string;
  /** Kind. */
  kind: string;
  /** Kind of lists. */
  listKind: string;
  /** Singular name. */
  singular: string;
  /** Short names (e.g. `po`). */
  shortNames: string[];
  /** Categories (e.g. `all`). */
  categories: string[];
  /** True when namespaced. */
  namespaced: boolean;
  /** Served versions, the storage version first. */
  versions: string[];
  /** Whether the status subresource is served. */
  statusSubresource: boolean;
  /** Whether strategic-merge patch applies (built-ins only). */
  strategicMerge: boolean;
  /** Field selectors beyond metadata.name and metadata.namespace. */
  fieldSelectors: Map<string, FieldGetter>;
  /** Name validation rule. */
  nameRule: NameRule;
  /** Whether metadata.generation is maintained (not for configmaps, secrets, …). */
  tracksGeneration: boolean;
  /** What differs per kind on a write (./generic.ts fills what a kind leaves out). */
  strategy: ResourceStrategy;
  /** The columns `kubectl get` shows (undefined: Name and Age; custom resources: the CRD's). */
  printers?: readonly Printer[];
  /** The list and map types server-side apply merges by (undefined: an open struct). */
  mergeType?: BuiltinType;
  /** For custom resources, the name of the defining CRD. */
  crdName?: string;
  /**
   * A built-in kind served at several versions whose objects differ between them
   * (HorizontalPodAutoscaler autoscaling/v2 and v1): an object at another version, as
   * kube-apiserver's conversion functions make it. Objects are stored at `versions[0]`.
   */
  convert?: BuiltinConverter;
  /** The verbs served when not all of them are (discovery lists these; others are 405). */
  verbs?: readonly string[];
  /** Applied to stored objects before they are sent (custom resources' read-time defaults). */
  readTransform?: (stored: StoredObject) => StoredObject;
  /** The `scale` subresource (autoscaling/v1 Scale), when served. */
  scale?: ScaleSubresource;
  /**
   * A create-only resource that is never stored (the authorization and authentication
   * reviews): a POST is answered with the object and its status, other methods get 405.
   */
  virtual?: boolean;
}

/** Delete options (the DeleteOptions body). */
export interface DeleteOpts {
  /** Preconditions that must hold. */
  preconditions?: { uid?: string; resourceVersion?: string };
  /** Grace period (pods). */
  gracePeriodSeconds?: number;
  /** Store nothing. */
  dryRun?: boolean;
  /** The deprecated `orphanDependents` (true: as `propagationPolicy: Orphan`). */
  orphanDependents?: boolean;
  /** What happens to the object's dependents (objects naming it in `ownerReferences`). */
  propagationPolicy?: PropagationPolicy;
}

/** DeleteOptions' `propagationPolicy`. */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** What a strategy may read of the stored objects. */
export interface StoreReader {
  /** The object under a group/resource key (`pods`, `deployments.apps`) and object key. */
  get(grKey: string, key: string): StoredObject | undefined;
  /** The objects of a group/resource, in one namespace or all. */
  list(grKey: string, namespace?: string): StoredObject[];
}

/**
 * What the hooks of a kind whose storage does more than the generic store (kube-apiserver's
 * REST overrides and AfterCreate/AfterDelete hooks: Namespaces, CustomResourceDefinitions)
 * act through. Strategies never hold the store itself.
 */
export interface RegistryServices {
  /** Serves a resource (a CRD's custom resources), replacing one of the same group/resource. */
  serve(type: ResourceType): void;
  /** The resource served at group/resource, if any. */
  served(group: string, resource: string): ResourceType | undefined;
  /**
   * Deletes every object of a resource (DELETED events, watches end) and stops serving it
   * when the CRD named `crdName` is what serves it.
   */
  dropResource(group: string, resource: string, crdName: string): void;
  /** Stores a changed object without admission or strategy (a REST override's own write). */
  commit(
    type: ResourceType,
    namespace: string,
    name: string,
    obj: UnstructuredObject,
  ): StoredObject;
  /** The compiled schema of a custom resource type at a version (undefined: its CRD is gone). */
  customResourceSchema(type: ResourceType, version: string): CustomResourceSchema | undefined;
  /** The namespace controller: deletes what a terminating namespace holds, then the namespace. */
  namespaceTerminating(name: string): void;
  /** The namespace controller: a terminating namespace with nothing left in it goes. */
  finishIfEmpty(name: string): void;
}

/** The request facts a strategy sees, and what it may read. */
export interface StrategyContext {
  /** The resource written. */
  readonly type: ResourceType;
  /** The request's version (the object is expressed at it). */
  readonly version: string;
  /** '' for the main resource, `status` or `scale`. */
  readonly subresource: string;
  /** The request's namespace ('' for cluster scope). */
  readonly namespace: string;
  /** The server's time, RFC 3339 to the second. */
  readonly now: string;
  /** In-process seeding (`server.create`): the status given is kept, managedFields too. */
  readonly seed: boolean;
  /** Warnings for the client (`Warning` headers): WarningsOnCreate/Update append here. */
  readonly warnings: string[];
  /** The stored objects. */
  readonly read: StoreReader;
  /** What REST overrides and after-hooks act through. */
  readonly services: RegistryServices;
}

/**
 * What differs per kind on a write: kube-apiserver's create, update and delete strategies
 * and its generic store's per-kind hooks, in the order the store calls them (see
 * ../resource_store.ts). Every hook returns the object to go on with — its input or a copy —
 * and never changes its input in place: a request body shares nested values with the
 * request, a stored object with every reader.
 */
export interface ResourceStrategy {
  /** Whether a PUT or PATCH of a missing object creates it (AllowCreateOnUpdate). */
  readonly allowCreateOnUpdate: boolean;
  /** Whether a PUT without `metadata.resourceVersion` is accepted (AllowUnconditionalUpdate). */
  readonly allowUnconditionalUpdate: boolean;
  /**
   * The kind's `SetDefaults_*`, which kube-apiserver runs whenever it decodes an object: on
   * the body of a create or update and on the result of a patch or apply, before mutating
   * admission — so a defaulted field an update drops comes back.
   */
  decode(obj: UnstructuredObject, ctx: StrategyContext): UnstructuredObject;
  /** The generic store's BeginCreate: allocations (a Service's cluster IPs and node ports). */
  beginCreate(obj: UnstructuredObject, ctx: StrategyContext): UnstructuredObject;
  /** The generic store's BeginUpdate. */
  beginUpdate(
    obj: UnstructuredObject,
    old: UnstructuredObject,
    ctx: StrategyContext,
  ): UnstructuredObject;
  /** PrepareForCreate: what a client may not set on create (status), set or cleared. */
  prepareForCreate(obj: UnstructuredObject, ctx: StrategyContext): UnstructuredObject;
  /**
   * PrepareForUpdate: a main-resource write keeps the old status, a status write keeps
   * everything but the status; metadata.generation moves on a spec change.
   */
  prepareForUpdate(
    obj: UnstructuredObject,
    old: UnstructuredObject,
    ctx: StrategyContext,
  ): UnstructuredObject;
  /** Validate: the kind's rules on create (422 causes; the generic metadata rules are the store's). */
  validate(obj: UnstructuredObject, ctx: StrategyContext): StatusCause[];
  /** ValidateUpdate: the kind's rules on update. */
  validateUpdate(
    obj: UnstructuredObject,
    old: UnstructuredObject,
    ctx: StrategyContext,
  ): StatusCause[];
  /** WarningsOnCreate (`path.to.field: message`). */
  warningsOnCreate(obj: UnstructuredObject, ctx: StrategyContext): string[];
  /** WarningsOnUpdate. */
  warningsOnUpdate(
    obj: UnstructuredObject,
    old: UnstructuredObject,
    ctx: StrategyContext,
  ): string[];
  /** Canonicalize: the object's canonical form, after validation. */
  canonicalize(obj: UnstructuredObject, ctx: StrategyContext): UnstructuredObject;
  /**
   * CheckGracefulDelete: how many seconds a delete waits before the object goes (a Pod
   * scheduled and not finished: its grace period); 0 goes at once.
   */
  gracePeriodSeconds(obj: UnstructuredObject, requested: number | undefined): number;
  /**
   * Whether an update removes the object: kube-apiserver's ShouldDeleteDuringUpdate (it is
   * being deleted and its last finalizer went).
   */
  shouldDeleteDuringUpdate(obj: UnstructuredObject, old: UnstructuredObject): boolean;
  /**
   * A delete of its own (kube-apiserver's REST overriding Delete; Namespaces are marked
   * Terminating and emptied by the namespace controller). Undefined: the generic delete.
   */
  delete?(existing: StoredObject, opts: DeleteOpts, ctx: StrategyContext): StoredObject;
  /**
   * A kind whose REST overrides Create (Binding: assigns a pod to a node, stores nothing):
   * called instead of storing the admitted object; what it returns is the answer.
   */
  create?(obj: UnstructuredObject, ctx: StrategyContext, dryRun: boolean): StoredObject;
  /** AfterCreate / AfterUpdate: run once the object is stored (not on a dry run). */
  afterWrite?(stored: StoredObject, ctx: StrategyContext): void;
  /**
   * Run when the object is about to go for good, before it is removed: what kube-apiserver
   * leaves to a finalizer's controller (a CRD's `customresourcecleanup`: its objects go
   * first).
   */
  beforeRemove?(obj: UnstructuredObject, ctx: StrategyContext): void;
}

/**
 * One built-in kind: the whole of its file under `registry/<group>/`. {@link defineKind}
 * fills what it leaves out; the list in ./index.ts serves it.
 */
export interface KindDefinition {
  /** API group ('' for core). */
  readonly group: string;
  /** Plural resource name. */
  readonly resource: string;
  /** Kind. */
  readonly kind: string;
  /** True when namespaced. */
  readonly namespaced: boolean;
  /** Served versions, the storage version first (default `['v1']`). */
  readonly versions?: readonly string[];
  /** Singular name (default: the kind in lower case). */
  readonly singular?: string;
  /** Kind of lists (default `<Kind>List`). */
  readonly listKind?: string;
  /** Short names (`kubectl get po`). */
  readonly shortNames?: readonly string[];
  /** Categories (`all`, `api-extensions`). */
  readonly categories?: readonly string[];
  /** Whether `status` is a subresource. */
  readonly statusSubresource?: boolean;
  /** The `scale` subresource. */
  readonly scale?: ScaleSubresource;
  /** Field selectors beyond metadata.name and metadata.namespace (dotted paths). */
  readonly fieldSelectors?: readonly string[];
  /** Name validation rule (default `subdomain`). */
  readonly nameRule?: NameRule;
  /** Whether metadata.generation is maintained (default false). */
  readonly tracksGeneration?: boolean;
  /** Whether strategic-merge patch applies (default true). */
  readonly strategicMerge?: boolean;
  /** A review: answered on POST, never stored. */
  readonly virtual?: boolean;
  /** The columns `kubectl get` shows (default Name and Age). */
  readonly printers?: readonly Printer[];
  /** The list and map types server-side apply merges by (default an open struct). */
  readonly mergeType?: BuiltinType;
  /** What differs from the generic strategy (./generic.ts). */
  readonly strategy?: Partial<ResourceStrategy>;
  /** Conversion between its versions when they differ (default: only apiVersion changes). */
  readonly convert?: BuiltinConverter;
  /**
   * The verbs served when not all of them are (componentstatuses: get and list); other
   * methods get go-restful's 405, and discovery lists only these.
   */
  readonly verbs?: readonly string[];
  /**
   * The objects kube-apiserver creates at start (its bootstrap post-start hooks: the system
   * PriorityClasses, the local APIServices), at `versions[0]`; cluster-scoped kinds only.
   */
  readonly bootstrap?: (kinds: readonly KindDefinition[]) => UnstructuredObject[];
}

/**
 * Converts an object of a built-in kind to `version` (its apiVersion set to it); the object
 * may be at any served version. Pure: returns a new object, never changes its input.
 */
export type BuiltinConverter = (obj: UnstructuredObject, version: string) => UnstructuredObject;
