/**
 * Object lifecycle of the test API server, independent of HTTP: create, get, list, update,
 * patch, delete and deletecollection with kube-apiserver's rules (uid, creationTimestamp,
 * generation on spec changes only, generateName, finalizers and deletionTimestamp,
 * optimistic concurrency, the status subresource, namespaces that must exist) and its
 * errors as `Status` objects (thrown as {@link ApiError}).
 *
 * @module
 */
import { matchesShardRanges } from '../apimachinery/shard_selector.js';
import type { ShardQuery } from './feature_gates.js';
import { randomUUID } from 'node:crypto';
import type { FieldSelector } from '../apimachinery/fields.js';
import type { LabelSelector } from '../apimachinery/labels.js';
import type { ApiError } from '../client/errors.js';
import type {
  ObjectMeta,
  OwnerReference,
  StatusCause,
  UnstructuredObject,
} from '../client/types.js';
import type { Clock } from '../util/clock.js';
import { KubeControllerKitError } from '../util/errors.js';
import { crdResourceType, validateCrd, withCrdStatus } from './crd.js';
import { builtinDefaultsWriteHook } from './defaults/index.js';
import { builtinType } from './fieldmanager/builtin_schema.js';
import type { FieldManagerScope } from './fieldmanager/field_manager.js';
import { applyToObject, updateManagedFields } from './fieldmanager/field_manager.js';
import { managerOrUserAgent, validatePatchOptions } from './fieldmanager/options.js';
import type { JsonValue } from './fieldmanager/path.js';
import type { MapType } from './fieldmanager/schema.js';
import { customResourceType } from './fieldmanager/schema.js';
import { applyJsonPatch, applyMergePatch, PatchError, strategicMerge } from './patch.js';
import type { ResourceRegistry, ResourceType } from './registry.js';
import { groupResourceKey } from './registry.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  pathNotFound,
  qualified,
  statusError,
  tooOld,
} from './status.js';
import type { Storage, StoredObject } from './storage.js';
import { objectKey } from './storage.js';
import { OwnerIndex } from './owner_index.js';
import { nameErrors, validateObjectMeta } from './validation.js';
import {
  CustomResourceSchemas,
  defaultOnRead,
  scaleOf,
  schemaWriteHook,
  withReplicas,
} from './schema/index.js';
import type { CustomResourceSchema, Scale } from './schema/index.js';
import { selectableFields } from './watch.js';

/** The patch content types the server accepts. */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** Where a write comes from: over HTTP (status is reset on create) or seeded in-process. */
export interface WriteOptions {
  /** Keep `status` on create and allow status changes on main-resource writes. */
  seed?: boolean;
  /** Validate and compute, but store nothing (`dryRun=All`). */
  dryRun?: boolean;
  /** The `fieldManager` query parameter. */
  fieldManager?: string;
  /** The `force` query parameter (only an apply may set it). */
  force?: boolean;
  /** The request's User-Agent: the default field manager (`kubectl/v1.34` → `kubectl`). */
  userAgent?: string;
  /** The `fieldValidation` query parameter. */
  fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
  /** The raw JSON body of a create or update (custom resources: duplicate fields). */
  rawBody?: string;
  /** Warnings for the client (sent as `Warning` headers); write hooks append to it. */
  warnings?: string[];
}

/** The kind of write a hook sees. */
export type WriteOperation = 'create' | 'update' | 'patch' | 'apply';

/** What a {@link WriteHook} is told about the write it admits. */
export interface WriteContext {
  /** create (POST or apply of a new object), update (PUT), patch, or apply (SSA). */
  operation: WriteOperation;
  /** The resource written. */
  type: ResourceType;
  /** The version of the request (the object is expressed at it). */
  version: string;
  /** '' for the main resource, `status` for the status subresource. */
  subresource: string;
  /** The stored object before the write; undefined on create. */
  old: UnstructuredObject | undefined;
  /** The request's options (fieldManager, force, fieldValidation, dryRun, warnings). */
  options: WriteOptions;
  /** For apply and patch: the request body as the client sent it (after decoding). */
  body: unknown;
}

/**
 * A step of the write path, run on every create, update, patch and apply after the
 * server has set its fields (uid, creationTimestamp, resourceVersion, status rules; the
 * generation is settled after the hooks, from the admitted object) and checked metadata
 * (names, labels, annotations), before the no-op check and the commit (or the dry-run
 * answer). It returns the object to store (the same one, changed, or a new one) or throws
 * an `ApiError` (e.g. 422 Invalid) to refuse the write. Hooks run in the order they were added. In-process seeding
 * (`server.create`/`update`) runs them too, with `options.seed` set.
 */
export interface WriteHook {
  /** A name for logs and ordering (e.g. `schema`, `managed-fields`). */
  readonly name: string;
  /** Admits (and possibly rewrites) the object about to be stored. */
  admit(ctx: WriteContext, obj: UnstructuredObject): UnstructuredObject;
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

/** A stored object with its resource type (what the garbage collector works on). */
interface Held {
  readonly type: ResourceType;
  readonly stored: StoredObject;
}

/** DeleteOptions' `propagationPolicy`. */
export type PropagationPolicy = 'Foreground' | 'Background' | 'Orphan';

/** A list result before rendering. */
export interface ListResult {
  /** The snapshot version. */
  rv: number;
  /** The selected items of this page. */
  items: StoredObject[];
  /** Continue token, '' on the last page. */
  continueToken: string;
  /** Items after this page, when known. */
  remaining: number | undefined;
}

/** Query of a list. */
export interface ListQuery {
  /** Namespace, or undefined for all. */
  namespace: string | undefined;
  /** Label selector. */
  label: LabelSelector | undefined;
  /** Field selector. */
  field: FieldSelector | undefined;
  /** resourceVersion parameter. */
  resourceVersion: string | undefined;
  /** resourceVersionMatch parameter. */
  resourceVersionMatch: string | undefined;
  /** Page size (0 = all). */
  limit: number;
  /** Continue token. */
  continueToken: string | undefined;
  /** Shard selector applied (feature gate ShardedListAndWatch), if any. */
  shard?: ShardQuery;
}

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

function stable(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(stable).join(',')}]`;
  if (isObject(v)) {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${stable(v[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function specPart(obj: UnstructuredObject, withStatus: boolean): string {
  const rest: Record<string, unknown> = { ...obj };
  delete rest.metadata;
  delete rest.apiVersion;
  delete rest.kind;
  if (!withStatus) delete rest.status;
  return stable(rest);
}

/** Encodes a continue token (the same shape kube-apiserver uses). */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const d = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as unknown;
    if (isObject(d) && typeof d.rv === 'number' && typeof d.start === 'string') {
      return { rv: d.rv, start: d.start };
    }
  } catch {
    // fall through
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

/** The lifecycle logic over a {@link Storage} and a {@link ResourceRegistry}. */
export class ResourceStore {
  readonly #storage: Storage;
  readonly #registry: ResourceRegistry;
  readonly #clock: Clock;
  readonly #watchCache: boolean;
  /** The owner graph, when the garbage collector is on. */
  readonly #owners: OwnerIndex | undefined;

  /**
   * @param storage - objects; @param registry - resources; @param clock - for timestamps.
   * @param watchCache - serve lists at resourceVersion "0" whole, ignoring `limit`, as
   * kube-apiserver's watch cache does (false: page them, as with `--watch-cache=false`).
   */
  /**
   * The write path's hook points (see {@link WriteHook}): schema validation, pruning and
   * defaulting, and managedFields bookkeeping plug in here.
   */
  readonly writeHooks: WriteHook[] = [];

  constructor(
    storage: Storage,
    registry: ResourceRegistry,
    clock: Clock,
    watchCache = true,
    garbageCollection = true,
  ) {
    this.#storage = storage;
    this.#registry = registry;
    this.#clock = clock;
    this.#watchCache = watchCache;
    this.#owners = garbageCollection ? new OwnerIndex(storage) : undefined;
    // First hooks: later ones see the defaulted (built-ins) or pruned and defaulted
    // (custom resources) object, as kube-apiserver defaults on decode.
    this.writeHooks.push(
      builtinDefaultsWriteHook(() =>
        this.#storage.list(groupResourceKey('', 'services')).map((s) => s.obj),
      ),
      schemaWriteHook((type) => this.customResourceSchema(type)),
    );
  }

  readonly #schemas = new CustomResourceSchemas();

  /** The structural schema of a custom resource type (undefined for built-ins). */
  customResourceSchema(type: ResourceType): CustomResourceSchema | undefined {
    if (type.crdName === undefined) return undefined;
    const crd = this.#storage.get(
      groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions'),
      objectKey('', type.crdName),
    );
    return crd ? this.#schemas.get(crd.obj, type.versions[0] ?? '') : undefined;
  }

  /** A stored custom resource with read-time defaults (itself when none apply). */
  readDefaults(type: ResourceType, stored: StoredObject): StoredObject {
    const crs = this.customResourceSchema(type);
    const obj = crs === undefined ? undefined : defaultOnRead(crs, stored.obj);
    return obj === undefined ? stored : { ...stored, obj, json: JSON.stringify(obj) };
  }

  /** A CRD's resource type, reading through {@link ResourceStore.readDefaults}. */
  #withReadDefaults(t: ResourceType): ResourceType {
    return { ...t, readTransform: (stored) => this.readDefaults(t, stored) };
  }

  #scaleOf(type: ResourceType): NonNullable<CustomResourceSchema['scale']> {
    const scale = this.customResourceSchema(type)?.scale;
    if (scale === undefined) throw pathNotFound();
    return scale;
  }

  /** The autoscaling/v1 Scale of a custom resource (GET `.../scale`). */
  getScale(type: ResourceType, namespace: string, name: string): Scale {
    const scale = this.#scaleOf(type);
    return scaleOf(scale, this.readDefaults(type, this.get(type, namespace, name)).obj);
  }

  /**
   * Writes a Scale (PUT `.../scale`): sets the replicas at `specReplicasPath` and updates
   * the object through the usual write path (its hooks, a resourceVersion precondition).
   */
  updateScale(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Scale {
    const scale = this.#scaleOf(type);
    if (!isObject(body) || (body.kind !== undefined && body.kind !== 'Scale')) {
      throw badRequest(
        `the object provided is unrecognized (must be of type Scale): couldn't get version/kind; json parse error: expected a Scale`,
      );
    }
    const spec = isObject(body.spec) ? body.spec : {};
    const replicas = spec.replicas ?? 0;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas)) {
      throw badRequest(
        `Scale in version "v1" cannot be handled as a Scale: json: cannot unmarshal ${typeof replicas} into Go struct field ScaleSpec.spec.replicas of type int32`,
      );
    }
    const meta = isObject(body.metadata) ? body.metadata : {};
    const existing = this.get(type, namespace, name);
    const rv = typeof meta.resourceVersion === 'string' ? meta.resourceVersion : undefined;
    const next = withReplicas(scale, existing.obj, replicas, rv);
    const stored = this.#replace(type, version, existing, next, '', opts, 'update', next);
    return scaleOf(scale, this.readDefaults(type, stored).obj);
  }

  /** Patches a Scale (PATCH `.../scale`: JSON, merge or apply patch) and writes it. */
  patchScale(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Scale {
    const current = this.getScale(type, namespace, name);
    let patched: unknown;
    try {
      if (contentType === 'application/json-patch+json') patched = applyJsonPatch(current, body);
      else if (
        contentType === 'application/merge-patch+json' ||
        contentType === 'application/apply-patch+yaml'
      ) {
        if (!isObject(body)) throw new PatchError('merge patch must be a JSON object', 400);
        patched = applyMergePatch(current, body);
      } else {
        throw statusError(
          415,
          'UnsupportedMediaType',
          `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
        );
      }
    } catch (err) {
      if (err instanceof PatchError) throw badRequest(err.message);
      throw err;
    }
    return this.updateScale(type, version, namespace, name, patched, opts);
  }

  /** The namespace whose contents a namespace deletion is deleting right now. */
  #sweeping: string | undefined;
  #nowSecond = -1;
  #nowText = '';

  #now(): string {
    const second = Math.floor(this.#clock.now() / 1000);
    if (second !== this.#nowSecond) {
      this.#nowSecond = second;
      this.#nowText = new Date(second * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    }
    return this.#nowText;
  }

  /** The apiVersion string of a resource at a version. */
  static apiVersion(type: ResourceType, version: string): string {
    return type.group === '' ? version : `${type.group}/${version}`;
  }

  #checkEnvelope(type: ResourceType, version: string, body: unknown): UnstructuredObject {
    if (!isObject(body)) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: expected an object`,
      );
    }
    const obj = body as UnstructuredObject;
    const expected = ResourceStore.apiVersion(type, version);
    if (obj.apiVersion !== undefined && obj.apiVersion !== expected) {
      if (
        typeof obj.apiVersion !== 'string' ||
        !type.versions.some((v) => ResourceStore.apiVersion(type, v) === obj.apiVersion)
      ) {
        throw badRequest(
          `the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${expected})`,
        );
      }
    }
    if (obj.kind !== undefined && obj.kind !== type.kind) {
      throw badRequest(
        `the kind in the data (${String(obj.kind)}) does not match the expected kind (${type.kind}) for ${expected}`,
      );
    }
    if (obj.metadata !== undefined && !isObject(obj.metadata)) {
      throw badRequest(
        `the object provided is unrecognized (must be of type ${type.kind}): metadata must be an object`,
      );
    }
    // Bodies are fresh from JSON.parse (HTTP) or copied by the in-process helpers: a
    // shallow copy of the envelope is enough, nested values are never mutated in place.
    const copy: UnstructuredObject = { ...obj, metadata: { ...obj.metadata } };
    copy.apiVersion = ResourceStore.apiVersion(type, type.versions[0] ?? version);
    copy.kind = type.kind;
    copy.metadata ??= {};
    return copy;
  }

  #invalid(type: ResourceType, name: string, causes: StatusCause[]): ApiError {
    return invalid(type.group, type.kind, name, causes);
  }

  /**
   * kube-apiserver's NamespaceLifecycle admission for a create: the namespace must exist
   * (404) and not be terminating (403 with a `NamespaceTerminating` cause).
   */
  #requireNamespace(type: ResourceType, namespace: string, name: string): void {
    const ns = this.#storage.get('namespaces', namespace);
    if (ns === undefined) throw notFound('', 'namespaces', namespace);
    if (ns.obj.metadata?.deletionTimestamp === undefined) return;
    const what = qualified(type.group, type.resource);
    throw statusError(
      403,
      'Forbidden',
      `${name === '' ? what : `${what} "${name}"`} is forbidden: unable to create new content in namespace ${namespace} because it is being terminated`,
      {
        ...(name === '' ? {} : { name }),
        group: type.group,
        kind: type.resource,
        causes: [
          {
            reason: 'NamespaceTerminating',
            message: `namespace ${namespace} is being terminated`,
            field: 'metadata.namespace',
          },
        ],
      },
    );
  }

  /**
   * Puts the request's namespace on a written object, as kube-apiserver does: a namespaced
   * object may omit it but must not name another; a cluster-scoped object has none.
   */
  #bindNamespace(type: ResourceType, meta: ObjectMeta, namespace: string): void {
    if (type.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
        throw badRequest(
          'the namespace of the provided object does not match the namespace sent on the request',
        );
      }
      meta.namespace = namespace;
    } else {
      delete meta.namespace;
    }
  }

  #generateName(prefix: string): string {
    let s = '';
    for (let i = 0; i < 5; i++) s += NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)];
    return prefix + s;
  }

  /** Runs the write hooks in order. */
  #admit(ctx: WriteContext, obj: UnstructuredObject): UnstructuredObject {
    let out = obj;
    for (const hook of this.writeHooks) out = hook.admit(ctx, out);
    return out;
  }

  /**
   * Checks a request body's envelope (an object, of the resource's apiVersion and kind,
   * with object metadata) and returns a shallow copy: the 400s kube-apiserver's decoder
   * answers a wrong body with.
   */
  checkEnvelope(type: ResourceType, version: string, body: unknown): UnstructuredObject {
    return this.#checkEnvelope(type, version, body);
  }

  /** Creates an object. */
  create(
    type: ResourceType,
    version: string,
    namespace: string,
    body: unknown,
    opts: WriteOptions = {},
  ): StoredObject {
    if (type.virtual === true) {
      throw badRequest(
        `${type.kind} is a review: it is answered, never stored (POST it over HTTP)`,
      );
    }
    return this.#create(type, version, namespace, body, opts, 'create');
  }

  #create(
    type: ResourceType,
    version: string,
    namespace: string,
    body: unknown,
    opts: WriteOptions,
    operation: WriteOperation,
  ): StoredObject {
    const obj = this.#checkEnvelope(type, version, body);
    const meta = (obj.metadata ??= {});
    this.#bindNamespace(type, meta, namespace);
    if ((meta.name ?? '') === '' && meta.generateName) {
      for (let i = 0; i < 8; i++) {
        meta.name = this.#generateName(meta.generateName);
        if (
          !this.#storage.get(
            groupResourceKey(type.group, type.resource),
            objectKey(namespace, meta.name),
          )
        )
          break;
      }
    }
    const name = meta.name ?? '';
    const causes = validateObjectMeta(obj, type.nameRule);
    if (type.crdName === undefined && type.resource === 'customresourcedefinitions') {
      causes.push(...validateCrd(obj));
    }
    if (causes.length > 0) throw this.#invalid(type, name, causes);
    if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
      throw statusError(
        500,
        'InternalError',
        'resourceVersion should not be set on objects to be created',
      );
    }
    const grKey = groupResourceKey(type.group, type.resource);
    if (type.namespaced) this.#requireNamespace(type, namespace, name);
    if (this.#storage.get(grKey, objectKey(type.namespaced ? namespace : '', name))) {
      throw alreadyExists(type.group, type.resource, name);
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = this.#now();
    if (type.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    let stored = obj;
    if (!opts.seed) stored = this.#resetStatusOnCreate(type, obj);
    // Hook point: every create (POST, apply or patch-create, seeding) passes here.
    stored = this.#admit(
      { operation, type, version, subresource: '', old: undefined, options: opts, body },
      stored,
    );
    if (operation !== 'apply' && !opts.seed) {
      stored = this.#recordUpdate(type, version, '', undefined, stored, opts);
    }
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') {
      stored = withCrdStatus(stored, this.#now());
      const crType = crdResourceType(stored);
      const existing = this.#registry.byGroupResource(crType.group, crType.resource);
      if (existing && existing.crdName === undefined) {
        throw this.#invalid(type, name, [
          {
            reason: 'FieldValueInvalid',
            field: 'spec.names.plural',
            message: `Invalid value: "${crType.resource}": conflicts with a built-in resource`,
          },
        ]);
      }
    }
    if (opts.dryRun) {
      return {
        obj: stored,
        json: JSON.stringify(stored),
        rv: 0,
        namespace,
        key: objectKey(namespace, name),
      };
    }
    const result = this.#storage.commit(
      'ADDED',
      grKey,
      type.namespaced ? namespace : '',
      name,
      stored,
    );
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') {
      this.#registry.add(this.#withReadDefaults(crdResourceType(result.obj)));
    }
    return result;
  }

  #resetStatusOnCreate(type: ResourceType, obj: UnstructuredObject): UnstructuredObject {
    if (type.group === '' && type.resource === 'namespaces') {
      const spec = isObject(obj.spec) ? obj.spec : {};
      const name = obj.metadata?.name ?? '';
      const metadata = {
        ...obj.metadata,
        labels: { ...obj.metadata?.labels, 'kubernetes.io/metadata.name': name },
      };
      return {
        ...obj,
        metadata,
        spec: { finalizers: ['kubernetes'], ...spec },
        status: { phase: 'Active' },
      };
    }
    if (!type.statusSubresource) return obj;
    const out = { ...obj };
    delete out.status;
    if (type.group === '' && type.resource === 'pods') {
      out.status = { phase: 'Pending', qosClass: 'BestEffort' };
    }
    if (type.group === '' && type.resource === 'services') out.status = { loadBalancer: {} };
    return out;
  }

  /** Gets an object. */
  get(type: ResourceType, namespace: string, name: string): StoredObject {
    const o = this.#storage.get(
      groupResourceKey(type.group, type.resource),
      objectKey(type.namespaced ? namespace : '', name),
    );
    if (!o) throw notFound(type.group, type.resource, name);
    return o;
  }

  /**
   * Replaces an object (PUT), or its status when `subresource` is `status`.
   */
  update(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions = {},
  ): StoredObject {
    const obj = this.#checkEnvelope(type, version, body);
    const meta = (obj.metadata ??= {});
    if ((meta.name ?? '') === '') meta.name = name;
    if (meta.name !== name) {
      throw badRequest(
        `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
      );
    }
    this.#bindNamespace(type, meta, namespace);
    const existing = this.get(type, namespace, name);
    // Custom resources and CRDs do not allow an unconditional update (their strategies say
    // so); built-in kinds do. A PUT without metadata.resourceVersion is then a 422.
    if (!opts.seed && (meta.resourceVersion ?? '') === '' && !allowsUnconditionalUpdate(type)) {
      // kube-apiserver names the resource (not the kind) in this one.
      throw invalid(type.group, type.resource, name, [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ]);
    }
    return this.#replace(type, version, existing, obj, subresource, opts, 'update', body);
  }

  #replace(
    type: ResourceType,
    version: string,
    existing: StoredObject,
    obj: UnstructuredObject,
    subresource: string,
    opts: WriteOptions,
    operation: WriteOperation,
    body: unknown,
  ): StoredObject {
    const meta = (obj.metadata ??= {});
    const name = existing.obj.metadata?.name ?? '';
    const rv = meta.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== existing.obj.metadata?.resourceVersion) {
      throw conflict(type.group, type.resource, name);
    }
    const old = existing.obj;
    const oldMeta = old.metadata ?? {};
    let next: UnstructuredObject;
    if (subresource === 'status') {
      next = { ...old, metadata: { ...oldMeta } };
      if (obj.status === undefined) delete next.status;
      else next.status = obj.status;
    } else {
      next = obj;
      if (type.statusSubresource && !opts.seed) {
        if (old.status === undefined) delete next.status;
        else next.status = old.status;
      }
      const m = (next.metadata ??= {});
      if (oldMeta.uid !== undefined) m.uid = oldMeta.uid;
      if (oldMeta.creationTimestamp !== undefined) m.creationTimestamp = oldMeta.creationTimestamp;
      if (oldMeta.deletionTimestamp !== undefined) m.deletionTimestamp = oldMeta.deletionTimestamp;
      else delete m.deletionTimestamp;
      if (oldMeta.deletionGracePeriodSeconds !== undefined) {
        m.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
      } else delete m.deletionGracePeriodSeconds;
      if (oldMeta.generateName !== undefined && m.generateName === undefined) {
        m.generateName = oldMeta.generateName;
      }
      // metadata.generation follows the admitted object (below), not the body as sent.
      if (type.tracksGeneration) m.generation = oldMeta.generation ?? 1;
      else delete m.generation;
    }
    const nm = (next.metadata ??= {});
    nm.resourceVersion = oldMeta.resourceVersion ?? '';
    const causes = validateObjectMeta(next, type.nameRule);
    if (type.resource === 'customresourcedefinitions' && type.crdName === undefined) {
      causes.push(...validateCrd(next));
    }
    if (causes.length > 0) throw this.#invalid(type, name, causes);
    // Hook point: every update, patch and apply of an existing object passes here.
    next = this.#admit({ operation, type, version, subresource, old, options: opts, body }, next);
    if (subresource !== 'status' && type.tracksGeneration) {
      // Defaulting and pruning change what counts as a spec change.
      const withStatus = !type.statusSubresource;
      const gen = oldMeta.generation ?? 1;
      const changed = specPart(next, withStatus) !== specPart(old, withStatus);
      next = { ...next, metadata: { ...next.metadata, generation: changed ? gen + 1 : gen } };
    }
    if (operation === 'apply') {
      const applied = obj.metadata?.managedFields;
      const nm2 = (next.metadata = { ...next.metadata });
      if (applied === undefined) delete nm2.managedFields;
      else nm2.managedFields = applied;
    } else if (!opts.seed) {
      next = this.#recordUpdate(type, version, subresource, old, next, opts);
    }
    const grKey = groupResourceKey(type.group, type.resource);
    const isCrd =
      type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io';
    if (isCrd && subresource !== 'status') next = withCrdStatus(next, this.#now());
    if (stable(next) === stable(old)) return existing;
    if (opts.dryRun) return { ...existing, obj: next, json: JSON.stringify(next) };
    if (
      nm.deletionTimestamp !== undefined &&
      (nm.finalizers ?? []).length === 0 &&
      !isNamespaces(type)
    ) {
      return this.#remove(type, existing.namespace, next);
    }
    const result = this.#storage.commit('MODIFIED', grKey, existing.namespace, name, next);
    if (isNamespaces(type) && nm.deletionTimestamp !== undefined) {
      // Its last metadata finalizer may have gone: a terminating namespace goes once empty.
      this.#finishNamespaceIfEmpty(name);
      return this.#storage.get('namespaces', name) ?? result;
    }
    if (isCrd) this.#registry.add(this.#withReadDefaults(crdResourceType(result.obj)));
    return result;
  }

  /**
   * Server-side apply (`application/apply-patch+yaml`): creates the object when absent,
   * otherwise merges the applied configuration into it. This is the one entry point of
   * apply; field ownership (managedFields, conflicts, force, removal of dropped fields)
   * belongs here.
   */
  apply(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions = {},
  ): { stored: StoredObject; created: boolean } {
    validatePatchOptions(true, opts);
    if (!isObject(body)) {
      throw badRequest('error decoding YAML: the applied configuration must be an object');
    }
    const cur = this.#storage.get(
      groupResourceKey(type.group, type.resource),
      objectKey(type.namespaced ? namespace : '', name),
    );
    const config = { ...body } as { [k: string]: JsonValue };
    const configMeta = isObject(config.metadata) ? { ...config.metadata } : {};
    if (configMeta.name === undefined || configMeta.name === '') configMeta.name = name;
    config.metadata = configMeta;
    const live = cur
      ? ({ ...cur.obj, apiVersion: ResourceStore.apiVersion(type, version) } as unknown as {
          [k: string]: JsonValue;
        })
      : undefined;
    const applied = applyToObject(
      live,
      config,
      opts.fieldManager ?? '',
      opts.force === true,
      this.#fieldScope(type, version, cur ? subresource : ''),
    ) as unknown as UnstructuredObject;
    if (!cur) {
      return {
        stored: this.#create(type, version, namespace, applied, opts, 'apply'),
        created: true,
      };
    }
    const obj = this.#checkEnvelope(type, version, applied);
    const meta = (obj.metadata ??= {});
    if (meta.name !== name) {
      throw this.#invalid(type, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: 'Invalid value: field is immutable',
        },
      ]);
    }
    if (type.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    return {
      stored: this.#replace(type, version, cur, obj, subresource, opts, 'apply', body),
      created: false,
    };
  }

  /** The schema and request facts the field manager needs. */
  #fieldScope(type: ResourceType, version: string, subresource: string): FieldManagerScope {
    const grKey = groupResourceKey(type.group, type.resource);
    let root: MapType;
    let implicitStructs: readonly string[] = [];
    if (type.crdName !== undefined) {
      root = this.#customResourceType(type.crdName, version);
    } else {
      const b = builtinType(grKey);
      root = b.type;
      implicitStructs = b.implicitStructs;
    }
    return {
      type: root,
      implicitStructs,
      apiVersion: ResourceStore.apiVersion(type, version),
      kind: type.kind,
      subresource,
      statusSubresource: type.statusSubresource,
      now: this.#now(),
    };
  }

  readonly #crTypes = new Map<string, { rv: string; type: MapType }>();

  #customResourceType(crdName: string, version: string): MapType {
    const crd = this.#storage.get('customresourcedefinitions.apiextensions.k8s.io', crdName);
    const rv = crd?.obj.metadata?.resourceVersion ?? '';
    const key = `${crdName}/${version}`;
    const cached = this.#crTypes.get(key);
    if (cached && cached.rv === rv) return cached.type;
    const spec = isObject(crd?.obj.spec) ? crd.obj.spec : {};
    const versions = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
    const v = versions.find((x) => isObject(x) && x.name === version);
    const schema = isObject(v) && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    const type = customResourceType(schema);
    this.#crTypes.set(key, { rv, type });
    return type;
  }

  /** Records the writer's `Update` entry in managedFields (creates, updates, patches). */
  #recordUpdate(
    type: ResourceType,
    version: string,
    subresource: string,
    old: UnstructuredObject | undefined,
    next: UnstructuredObject,
    opts: WriteOptions,
  ): UnstructuredObject {
    const manager = managerOrUserAgent(opts.fieldManager, opts.userAgent);
    const withVersion = (o: UnstructuredObject): { [k: string]: JsonValue } =>
      ({ ...o, apiVersion: ResourceStore.apiVersion(type, version) }) as unknown as {
        [k: string]: JsonValue;
      };
    const out = updateManagedFields(
      old ? withVersion(old) : undefined,
      withVersion(next),
      manager,
      this.#fieldScope(type, version, subresource),
    ) as unknown as UnstructuredObject;
    if (next.apiVersion === undefined) return out;
    return { ...out, apiVersion: next.apiVersion };
  }

  /** Applies a patch of a given content type (apply patches go to {@link apply}). */
  patch(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions = {},
  ): { stored: StoredObject; created: boolean } {
    if (contentType === 'application/apply-patch+yaml') {
      return this.apply(type, version, namespace, name, body, subresource, opts);
    }
    validatePatchOptions(false, opts);
    return this.#patch(
      type,
      version,
      namespace,
      name,
      contentType,
      body,
      subresource,
      opts,
      'patch',
    );
  }

  #patch(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions,
    operation: WriteOperation,
  ): { stored: StoredObject; created: boolean } {
    const existing = this.get(type, namespace, name);
    const current = {
      ...existing.obj,
      apiVersion: ResourceStore.apiVersion(type, version),
    };
    let patched: unknown;
    try {
      switch (contentType) {
        case 'application/merge-patch+json':
        case 'application/apply-patch+yaml':
          if (!isObject(body)) throw new PatchError('merge patch must be a JSON object', 400);
          patched = applyMergePatch(current, body);
          break;
        case 'application/json-patch+json':
          patched = applyJsonPatch(current, body);
          break;
        case 'application/strategic-merge-patch+json':
          if (!type.strategicMerge) {
            throw statusError(
              415,
              'UnsupportedMediaType',
              `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`,
            );
          }
          if (!isObject(body))
            throw new PatchError('strategic merge patch must be a JSON object', 400);
          patched = strategicMerge(current, body);
          break;
        default:
          throw statusError(
            415,
            'UnsupportedMediaType',
            `the body of the request was in an unknown format - accepted media types include: ${PATCH_TYPES.join(', ')}`,
          );
      }
    } catch (err) {
      if (err instanceof PatchError) {
        if (err.code === 400) throw badRequest(err.message);
        throw statusError(
          422,
          'Invalid',
          `the server rejected our request due to an error in our request: ${err.message}`,
          {
            name,
            group: type.group,
            kind: type.kind,
          },
        );
      }
      throw err;
    }
    if (!isObject(patched)) throw badRequest('the patch did not produce an object');
    const obj = this.#checkEnvelope(type, version, patched);
    const meta = (obj.metadata ??= {});
    if (meta.name !== name) {
      throw this.#invalid(type, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: 'Invalid value: field is immutable',
        },
      ]);
    }
    if (type.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    return {
      stored: this.#replace(type, version, existing, obj, subresource, opts, operation, body),
      created: false,
    };
  }

  #remove(type: ResourceType, namespace: string, obj: UnstructuredObject): StoredObject {
    const grKey = groupResourceKey(type.group, type.resource);
    const name = obj.metadata?.name ?? '';
    if (type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io') {
      this.#deleteCrdObjects(obj);
    }
    const removed = this.#storage.commit('DELETED', grKey, namespace, name, {
      ...obj,
      metadata: { ...obj.metadata },
    });
    if (this.#owners !== undefined) {
      const uid = obj.metadata?.uid;
      if (uid !== undefined) this.#collectDependentsOf(uid);
      // An owner deleted in the foreground waits for its blocking dependents, this one included.
      for (const ref of obj.metadata?.ownerReferences ?? []) {
        const owner = this.#held(ref.uid);
        if (owner?.stored.obj.metadata?.finalizers?.includes('foregroundDeletion') === true)
          this.#collectFor(owner);
      }
    }
    if (type.namespaced) this.#finishNamespaceIfEmpty(namespace);
    return removed;
  }

  // ---------------------------------------------------------------- garbage collection

  /**
   * The garbage collector's work for an object held by its finalizer (`orphan`: its
   * dependents lose their reference to it; `foregroundDeletion`: its dependents are deleted,
   * and once none that blocks it is left it goes), as kube-controller-manager's collector
   * does — here at once, inside the request that caused it.
   */
  #collectFor(owner: Held): void {
    const owners = this.#owners;
    const uid = owner.stored.obj.metadata?.uid;
    if (owners === undefined || uid === undefined) return;
    const finalizers = owner.stored.obj.metadata?.finalizers ?? [];
    if (finalizers.includes('orphan')) {
      for (const dep of this.#dependents(uid)) this.#dropOwnerRefs(dep, (r) => r.uid === uid);
      this.#dropFinalizer(owner, 'orphan');
      return;
    }
    if (!finalizers.includes('foregroundDeletion')) return;
    for (const dep of this.#dependents(uid)) {
      const meta = dep.stored.obj.metadata;
      if (meta?.deletionTimestamp !== undefined) continue;
      // In the foreground only where there is something below to wait for, as the collector.
      const below = meta?.uid !== undefined && owners.dependentsOf(meta.uid).length > 0;
      this.delete(
        dep.type,
        dep.stored.namespace,
        meta?.name ?? '',
        below ? { propagationPolicy: 'Foreground' } : {},
      );
    }
    const current = this.#held(uid);
    if (current === undefined) return;
    const blocked = this.#dependents(uid).some((d) =>
      (d.stored.obj.metadata?.ownerReferences ?? []).some(
        (r) => r.uid === uid && r.blockOwnerDeletion === true,
      ),
    );
    if (!blocked) this.#dropFinalizer(current, 'foregroundDeletion');
  }

  /**
   * After an object is gone: each dependent that has no other owner left is deleted (in the
   * background); one that still has an owner only loses its references to the missing ones.
   */
  #collectDependentsOf(uid: string): void {
    const owners = this.#owners;
    if (owners === undefined) return;
    for (const dep of this.#dependents(uid)) {
      const refs = dep.stored.obj.metadata?.ownerReferences ?? [];
      const alive = refs.some((r) => r.uid !== uid && owners.get(r.uid) !== undefined);
      if (alive) {
        this.#dropOwnerRefs(dep, (r) => owners.get(r.uid) === undefined);
      } else if (dep.stored.obj.metadata?.deletionTimestamp === undefined) {
        this.delete(dep.type, dep.stored.namespace, dep.stored.obj.metadata?.name ?? '');
      }
    }
  }

  /** The stored object with this uid, with its resource type. */
  #held(uid: string): Held | undefined {
    const found = this.#owners?.get(uid);
    const type = found === undefined ? undefined : this.#registry.byKey(found.grKey);
    return type === undefined || found === undefined ? undefined : { type, stored: found.stored };
  }

  /** The stored dependents of an owner, with their resource types. */
  #dependents(uid: string): Held[] {
    const out: Held[] = [];
    for (const at of this.#owners?.dependentsOf(uid) ?? []) {
      const type = this.#registry.byKey(at.grKey);
      const stored = this.#storage.get(at.grKey, at.key);
      if (type !== undefined && stored !== undefined) out.push({ type, stored });
    }
    return out;
  }

  #dropOwnerRefs(dep: Held, drop: (ref: OwnerReference) => boolean): void {
    const refs = dep.stored.obj.metadata?.ownerReferences ?? [];
    const kept = refs.filter((r) => !drop(r));
    if (kept.length === refs.length) return;
    const next = clone(dep.stored.obj);
    const m = (next.metadata ??= {});
    if (kept.length === 0) delete m.ownerReferences;
    else m.ownerReferences = kept;
    this.#commitModified(dep, next);
  }

  /** Removes one of the collector's finalizers; an object marked for deletion with none left goes. */
  #dropFinalizer(held: Held, finalizer: string): void {
    const next = clone(held.stored.obj);
    const m = (next.metadata ??= {});
    const left = (m.finalizers ?? []).filter((f) => f !== finalizer);
    if (left.length === 0) delete m.finalizers;
    else m.finalizers = left;
    if (m.deletionTimestamp !== undefined && left.length === 0) {
      this.#remove(held.type, held.stored.namespace, next);
      return;
    }
    this.#commitModified(held, next);
  }

  /** Stores the collector's change to an object (no field manager: it writes directly). */
  #commitModified(held: Held, next: UnstructuredObject): void {
    const { type, stored } = held;
    this.#storage.commit(
      'MODIFIED',
      groupResourceKey(type.group, type.resource),
      stored.namespace,
      next.metadata?.name ?? '',
      next,
    );
  }

  /**
   * Deleting a namespace, as kube-apiserver's namespace storage and the namespace controller
   * do it together: the namespace is marked (`deletionTimestamp`, phase `Terminating`; a
   * create in it is then refused), everything in it is deleted — objects with finalizers
   * stay, marked, until their finalizers are removed — and once it is empty the
   * `kubernetes` finalizer is dropped and the namespace goes. Pods are deleted without a
   * grace period (there is no kubelet to end them).
   */
  #deleteNamespace(existing: StoredObject, opts: DeleteOpts): StoredObject {
    const name = existing.obj.metadata?.name ?? '';
    let current = existing;
    if (existing.obj.metadata?.deletionTimestamp === undefined) {
      const next = clone(existing.obj);
      const m = (next.metadata ??= {});
      m.deletionTimestamp = this.#now();
      m.deletionGracePeriodSeconds = 0;
      next.status = { ...(isObject(next.status) ? next.status : {}), phase: 'Terminating' };
      if (opts.dryRun) return { ...existing, obj: next, json: JSON.stringify(next) };
      current = this.#storage.commit('MODIFIED', 'namespaces', '', name, next);
    } else if (opts.dryRun) {
      return existing;
    }
    this.#sweeping = name;
    try {
      for (const t of this.#registry.all()) {
        if (!t.namespaced) continue;
        const grKey = groupResourceKey(t.group, t.resource);
        for (const o of this.#storage.list(grKey, name)) {
          if (o.obj.metadata?.deletionTimestamp !== undefined) continue;
          this.delete(t, name, o.obj.metadata?.name ?? '', { gracePeriodSeconds: 0 });
        }
      }
    } finally {
      this.#sweeping = undefined;
    }
    this.#finishNamespaceIfEmpty(name);
    return this.#storage.get('namespaces', name) ?? current;
  }

  /** A terminating namespace with nothing left in it loses its `kubernetes` finalizer and, with no other finalizer, goes. */
  #finishNamespaceIfEmpty(namespace: string): void {
    if (this.#sweeping === namespace) return;
    const ns = this.#storage.get('namespaces', namespace);
    if (ns === undefined || ns.obj.metadata?.deletionTimestamp === undefined) return;
    for (const t of this.#registry.all()) {
      if (t.namespaced && this.#storage.hasAnyIn(groupResourceKey(t.group, t.resource), namespace))
        return;
    }
    const spec = isObject(ns.obj.spec) ? ns.obj.spec : {};
    const specFinalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    const left = specFinalizers.filter((f) => f !== 'kubernetes');
    let current = ns;
    if (left.length !== specFinalizers.length) {
      // The namespace controller's `finalize`, then its final delete: MODIFIED, DELETED.
      const next = clone(ns.obj);
      next.spec = { ...spec, finalizers: left };
      current = this.#storage.commit('MODIFIED', 'namespaces', '', namespace, next);
    }
    if (left.length === 0 && (current.obj.metadata?.finalizers ?? []).length === 0) {
      this.#remove(this.#namespacesType(), '', current.obj);
    }
  }

  #namespacesType(): ResourceType {
    const t = this.#registry.byGroupResource('', 'namespaces');
    if (t === undefined) throw new KubeControllerKitError('namespaces are not served');
    return t;
  }

  #deleteCrdObjects(crd: UnstructuredObject): void {
    const t = crdResourceType(crd);
    const grKey = groupResourceKey(t.group, t.resource);
    for (const o of this.#storage.list(grKey)) {
      this.#storage.commit('DELETED', grKey, o.namespace, o.obj.metadata?.name ?? '', {
        ...o.obj,
        metadata: { ...o.obj.metadata },
      });
    }
    this.#storage.dropTable(grKey);
    const served = this.#registry.byGroupResource(t.group, t.resource);
    if (served?.crdName === crd.metadata?.name) this.#registry.remove(t.group, t.resource);
  }

  /** Deletes an object (or marks it, when finalizers or a pod's grace period hold it). */
  delete(type: ResourceType, namespace: string, name: string, opts: DeleteOpts = {}): StoredObject {
    const existing = this.get(type, namespace, name);
    const meta = existing.obj.metadata ?? {};
    const pre = opts.preconditions;
    // kube-apiserver checks delete preconditions before deleting (rest.BeforeDelete), and
    // that check names the object by its Kind, not its resource: `Widget.example.com "x"`.
    if (pre?.uid !== undefined && pre.uid !== meta.uid) {
      throw conflict(
        type.group,
        type.kind,
        name,
        `the UID in the precondition (${pre.uid}) does not match the UID in record (${meta.uid ?? ''}). The object might have been deleted and then recreated`,
      );
    }
    if (pre?.resourceVersion !== undefined && pre.resourceVersion !== meta.resourceVersion) {
      throw conflict(
        type.group,
        type.kind,
        name,
        `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${meta.resourceVersion ?? ''}). The object might have been modified`,
      );
    }
    const grKey = groupResourceKey(type.group, type.resource);
    if (isNamespaces(type)) return this.#deleteNamespace(existing, opts);
    // As kube-apiserver's registry: Foreground and Orphan deletes hold the object with the
    // garbage collector's finalizer (which the collector, when on, then works off).
    const gcFinalizer = gcFinalizerFor(opts);
    const held = meta.finalizers ?? [];
    const addGcFinalizer = gcFinalizer !== undefined && !held.includes(gcFinalizer);
    const finalizers = addGcFinalizer ? [...held, gcFinalizer] : held;
    let grace = 0;
    if (type.group === '' && type.resource === 'pods') {
      const spec = isObject(existing.obj.spec) ? existing.obj.spec : {};
      const status = isObject(existing.obj.status) ? existing.obj.status : {};
      const scheduled = typeof spec.nodeName === 'string' && spec.nodeName !== '';
      const done = status.phase === 'Succeeded' || status.phase === 'Failed';
      if (scheduled && !done) {
        const dflt =
          typeof spec.terminationGracePeriodSeconds === 'number'
            ? spec.terminationGracePeriodSeconds
            : 30;
        grace = opts.gracePeriodSeconds ?? dflt;
      }
    }
    if (finalizers.length > 0 || grace > 0) {
      const next = clone(existing.obj);
      const m = (next.metadata ??= {});
      if (addGcFinalizer) m.finalizers = finalizers;
      if (
        meta.deletionTimestamp !== undefined &&
        (grace === 0 || (meta.deletionGracePeriodSeconds ?? 0) <= grace)
      ) {
        if (grace === 0 && finalizers.length === 0) return this.#commitRemove(type, existing, opts);
        if (!addGcFinalizer) return existing;
      } else {
        m.deletionTimestamp = new Date(this.#clock.now() + grace * 1000)
          .toISOString()
          .replace(/\.\d{3}Z$/, 'Z');
        m.deletionGracePeriodSeconds = grace;
        // kube-apiserver counts the start of a graceful deletion as a change of generation.
        if (typeof m.generation === 'number' && m.generation > 0) m.generation++;
      }
      if (opts.dryRun) return { ...existing, obj: next, json: JSON.stringify(next) };
      const marked = this.#storage.commit('MODIFIED', grKey, existing.namespace, name, next);
      if (gcFinalizer === undefined || this.#owners === undefined) return marked;
      this.#collectFor({ type, stored: marked });
      return this.#storage.get(grKey, marked.key) ?? marked;
    }
    return this.#commitRemove(type, existing, opts);
  }

  #commitRemove(type: ResourceType, existing: StoredObject, opts: DeleteOpts): StoredObject {
    if (opts.dryRun) return existing;
    return this.#remove(type, existing.namespace, existing.obj);
  }

  /** Deletes every selected object; returns what was deleted or marked. */
  deleteCollection(type: ResourceType, query: ListQuery, opts: DeleteOpts = {}): StoredObject[] {
    const { items } = this.list(type, {
      ...query,
      limit: 0,
      continueToken: undefined,
      resourceVersion: undefined,
    });
    const out: StoredObject[] = [];
    for (const o of items) {
      try {
        out.push(this.delete(type, o.namespace, o.obj.metadata?.name ?? '', opts));
      } catch {
        // deleted concurrently (e.g. by a namespace cascade): skip
      }
    }
    return out;
  }

  /** Validates a field selector against the resource's selectable fields. */
  checkFieldSelector(type: ResourceType, field: FieldSelector | undefined): void {
    if (!field) return;
    for (const r of field.requirements) {
      const ok =
        r.field === 'metadata.name' ||
        (r.field === 'metadata.namespace' && type.namespaced) ||
        type.fieldSelectors.has(r.field);
      if (!ok) {
        if (type.crdName !== undefined) {
          throw badRequest(
            `"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
          );
        }
        throw badRequest(`field label not supported: ${r.field}`);
      }
    }
  }

  /** Whether an object matches a list/watch query. */
  selected(
    type: ResourceType,
    o: StoredObject,
    q: Pick<ListQuery, 'label' | 'field' | 'shard'>,
  ): boolean {
    if (q.label && !q.label.matches(o.obj.metadata?.labels)) return false;
    if (q.field && !q.field.matches(selectableFields(o.obj, type))) return false;
    if (q.shard && !matchesShardRanges(o.obj, q.shard.ranges)) return false;
    return true;
  }

  /**
   * Lists (one page of) a resource. A resourceVersion newer than the store's is reported
   * by returning `{ tooNew: rv }` so that the HTTP layer can wait for it.
   */
  list(type: ResourceType, q: ListQuery): ListResult {
    const grKey = groupResourceKey(type.group, type.resource);
    const current = this.#storage.resourceVersion;
    let rv = current;
    let start = '';
    let limit = q.limit;
    if (q.continueToken) {
      const c = decodeContinue(q.continueToken);
      if (c.rv < this.#storage.compactedResourceVersion) {
        throw statusError(
          410,
          'Expired',
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
      }
      rv = c.rv;
      start = c.start;
    } else if (q.resourceVersion !== undefined && q.resourceVersion !== '') {
      const asked = Number(q.resourceVersion);
      if (!Number.isInteger(asked) || asked < 0) {
        throw badRequest(
          `resourceVersion: Invalid value: "${q.resourceVersion}": must be a valid resource version`,
        );
      }
      const exact =
        q.resourceVersionMatch === 'Exact' ||
        (q.resourceVersionMatch === undefined && limit > 0 && asked !== 0);
      if (asked === 0) {
        if (q.resourceVersionMatch === undefined && this.#watchCache) limit = 0;
      } else if (asked > current) {
        throw new TooLargeResourceVersion(asked, current);
      } else if (exact) {
        if (asked < this.#storage.compactedResourceVersion) {
          throw tooOld(q.resourceVersion, this.#storage.compactedResourceVersion + 1);
        }
        rv = asked;
      }
    } else if (q.resourceVersionMatch !== undefined) {
      throw badRequest(
        `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
      );
    }
    const ns = type.namespaced ? q.namespace : undefined;
    const all =
      rv === current ? this.#storage.list(grKey, ns) : this.#storage.listAt(grKey, rv, ns);
    const items: StoredObject[] = [];
    let i = 0;
    if (start !== '') {
      // Binary search past the start key.
      let lo = 0;
      let hi = all.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((all[mid]?.key ?? '') <= start) lo = mid + 1;
        else hi = mid;
      }
      i = lo;
    }
    const filtered = q.label !== undefined || q.field !== undefined || q.shard !== undefined;
    for (; i < all.length; i++) {
      const o = all[i];
      if (!o) continue;
      if (filtered && !this.selected(type, o, q)) continue;
      if (limit > 0 && items.length === limit) break;
      items.push(o);
    }
    let continueToken = '';
    let remaining: number | undefined;
    if (limit > 0 && i < all.length) {
      const last = items[items.length - 1];
      if (last) {
        // Is anything selected left?
        let more = !filtered;
        for (let j = i; !more && j < all.length; j++) {
          const o = all[j];
          if (o && this.selected(type, o, q)) more = true;
        }
        if (more) {
          continueToken = encodeContinue(rv, last.key);
          if (!filtered) remaining = all.length - i;
        }
      }
    }
    return { rv, items, continueToken, remaining };
  }

  /** Resolves a name rule check for names in URLs (used by the HTTP layer). */
  static validPathName(name: string): boolean {
    return nameErrors(name, 'pathSegment').length === 0;
  }
}

/** A list or watch asked for a resourceVersion newer than the store's. */
export class TooLargeResourceVersion extends KubeControllerKitError {
  /** The version asked for. */
  readonly asked: number;
  /** The current version. */
  readonly current: number;
  /** @param asked - asked; @param current - current. */
  constructor(asked: number, current: number) {
    super(`Too large resource version: ${asked}, current: ${current}`);
    this.asked = asked;
    this.current = current;
  }
}

/**
 * Whether a PUT without `metadata.resourceVersion` is accepted: true for built-in kinds,
 * false for custom resources and for CustomResourceDefinitions, as on kube-apiserver.
 */
function allowsUnconditionalUpdate(type: ResourceType): boolean {
  if (type.crdName !== undefined) return false;
  return !(type.group === 'apiextensions.k8s.io' && type.resource === 'customresourcedefinitions');
}

/** The garbage collector's finalizer a delete's propagation policy asks for. */
function gcFinalizerFor(opts: DeleteOpts): string | undefined {
  const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : undefined);
  if (policy === 'Foreground') return 'foregroundDeletion';
  if (policy === 'Orphan') return 'orphan';
  return undefined;
}

function isNamespaces(type: ResourceType): boolean {
  return type.group === '' && type.resource === 'namespaces';
}
