/**
 * Object lifecycle of the test API server, independent of HTTP: create, get, list, update,
 * patch, delete and deletecollection with kube-apiserver's rules (uid, creationTimestamp,
 * generation on spec changes only, generateName, finalizers and deletionTimestamp,
 * optimistic concurrency, the status subresource, namespaces that must exist) and its
 * errors as `Status` objects (thrown as {@link ApiError}).
 *
 * @module
 */
import { KubeControllerKitError, matchesShardRanges } from 'kube-controller-kit';
import type { ShardQuery } from './feature_gates.js';
import { randomUUID } from 'node:crypto';
import type {
  ApiError,
  Clock,
  FieldSelector,
  LabelSelector,
  ObjectMeta,
  StatusCause,
  UnstructuredObject,
} from 'kube-controller-kit';
import { crdResourceType, validateCrd, withCrdStatus } from './crd.js';
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
import type { ControllerStore } from './controller_store.js';
import { GarbageCollector } from './garbage_collector.js';
import { NamespaceController } from './namespace_controller.js';
import { nameErrors, validateObjectMeta } from './validation.js';
import {
  CustomResourceSchemas,
  defaultOnRead,
  scaleOf,
  validateCustomResource,
  withReplicas,
} from './schema/index.js';
import { fromScale, toScale } from './scale.js';
import { builtinDefaultsPlugin } from './admission/builtin_defaults.js';
import { podQOSClass } from './defaults/qos.js';
import { AdmissionChain, isPromise } from './admission/chain.js';
import type { AdmissionAttributes, WriteOperation, WriteOptions } from './admission/interfaces.js';
import { schemaValidationPlugin } from './admission/schema_validation.js';
import {
  isWebhookConfiguration,
  validateWebhookConfiguration,
} from './admission/webhook_validation.js';
import type { CustomResourceSchema, Scale } from './schema/index.js';
import { selectableFields } from './watch.js';
import { jsonCopy as clone } from './json_copy.js';

/** The patch content types the server accepts. */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

export type { WriteOperation, WriteOptions } from './admission/interfaces.js';

/**
 * A point of a write where admission runs: the store yields it and resumes with the
 * admitted object, so that one write path serves in-process writes (admitted
 * synchronously) and requests (whose admission may call webhooks).
 */
interface AdmissionPoint {
  readonly attrs: AdmissionAttributes;
  readonly obj: UnstructuredObject | undefined;
  /**
   * Which half of the chain runs here: a create runs `mutate` before the registry's
   * BeforeCreate and `validate` after it, as kube-apiserver does; the other writes run
   * both at one point.
   */
  readonly phase: AdmissionPhase;
}

/** The part of the admission chain an admission point runs. */
type AdmissionPhase = 'both' | 'mutate' | 'validate';

/** The kind admission sees on a write through `/scale`. */
const SCALE_KIND = { group: 'autoscaling', version: 'v1', kind: 'Scale' };

/**
 * A point of a write where its object changes version through a CRD's conversion webhook
 * (kube-apiserver admits a write at the request's version and converts it to the storage
 * version when it encodes it for storage): the store yields it and resumes with the object
 * at `version`.
 */
interface ConversionPoint {
  readonly convert: UnstructuredObject;
  readonly type: ResourceType;
  readonly version: string;
}

/** Converts custom resources between the versions of a CRD (its conversion webhook). */
export interface WriteConverter {
  /** Whether objects at `version` are converted by a webhook to be stored (and read). */
  converts(type: ResourceType, version: string): boolean;
  /** The version objects of `type` are stored at. */
  storageVersion(type: ResourceType): string;
  /** The objects at `version`, in order. */
  convert(
    type: ResourceType,
    objects: UnstructuredObject[],
    version: string,
  ): Promise<UnstructuredObject[]>;
}

/** A write's steps, suspended at its admission and conversion points. */
type WriteSteps<T> = Generator<AdmissionPoint | ConversionPoint, T, UnstructuredObject | undefined>;

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

/**
 * The object with `apiVersion` as the field manager reads it: itself when it already says
 * so (the field manager never changes the objects it is given), else a shallow copy.
 */
function atVersion(o: UnstructuredObject, apiVersion: string): { [k: string]: JsonValue } {
  const out = o.apiVersion === apiVersion ? o : { ...o, apiVersion };
  return out as unknown as { [k: string]: JsonValue };
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
  /** The garbage collector, when on. */
  readonly #collector: GarbageCollector | undefined;
  /** The namespace controller. */
  readonly #namespaces: NamespaceController;

  /**
   * @param storage - objects; @param registry - resources; @param clock - for timestamps.
   * @param watchCache - serve lists at resourceVersion "0" whole, ignoring `limit`, as
   * kube-apiserver's watch cache does (false: page them, as with `--watch-cache=false`).
   */
  /**
   * The admission chain every create, update, patch, apply and delete passes (see
   * ./admission): built-in defaults and the custom resource schema by default; the server
   * puts its full chain (policies, webhooks) here.
   */
  admission: AdmissionChain;

  /**
   * The conversion webhooks of CRDs: a write at a version they convert is admitted at that
   * version and converted to the storage version to be stored. Unset, every write is
   * stored at the version it was made at.
   */
  converter: WriteConverter | undefined;

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
    const controllerStore: ControllerStore = {
      storage,
      registry,
      delete: (type, namespace, name, opts) => this.delete(type, namespace, name, opts),
      remove: (type, namespace, obj) => this.#remove(type, namespace, obj),
    };
    this.#collector = garbageCollection
      ? new GarbageCollector(new OwnerIndex(storage), controllerStore)
      : undefined;
    this.#namespaces = new NamespaceController(controllerStore);
    this.admission = new AdmissionChain([this.builtinDefaults(), this.schemaValidation()]);
  }

  /** The `builtin-defaults` admission plugin over this store's Services. */
  builtinDefaults(): ReturnType<typeof builtinDefaultsPlugin> {
    return builtinDefaultsPlugin(() =>
      this.#storage.list(groupResourceKey('', 'services')).map((s) => s.obj),
    );
  }

  /** The `schema` admission plugin over this store's CustomResourceDefinitions. */
  schemaValidation(): ReturnType<typeof schemaValidationPlugin> {
    return schemaValidationPlugin((type, version) => this.customResourceSchema(type, version));
  }

  /** Runs a write's steps in-process: admission must answer synchronously. */
  #run<T>(steps: WriteSteps<T>): T {
    let step = steps.next();
    while (step.done !== true) {
      if ('convert' in step.value) {
        throw new KubeControllerKitError(
          `an in-process write of ${step.value.type.kind} cannot call its conversion webhook: write it at the storage version, or over HTTP`,
        );
      }
      const { attrs, obj, phase } = step.value;
      const out = this.#admitPhase(phase, { ...attrs, inProcess: true }, obj);
      if (out instanceof Promise) {
        throw new KubeControllerKitError(
          `admission of an in-process write of ${attrs.type.kind} did not answer synchronously`,
        );
      }
      step = steps.next(out);
    }
    return step.value;
  }

  /** Runs a request's write steps: admission may call out (webhooks). */
  async #runAsync<T>(steps: WriteSteps<T>): Promise<T> {
    let step = steps.next();
    while (step.done !== true) {
      if ('convert' in step.value) {
        const { convert, type, version } = step.value;
        const converter = this.converter;
        const [out] = converter ? await converter.convert(type, [convert], version) : [];
        step = steps.next(out ?? convert);
        continue;
      }
      const { attrs, obj, phase } = step.value;
      // The write points hand over request attributes already (`inProcess: false`); a
      // chain that answered synchronously is not awaited (no turn of the microtask queue).
      const out = this.#admitPhase(
        phase,
        attrs.inProcess === false ? attrs : { ...attrs, inProcess: false },
        obj,
      );
      step = steps.next(isPromise(out) ? await out : out);
    }
    return step.value;
  }

  #admitPhase(
    phase: AdmissionPhase,
    attrs: AdmissionAttributes,
    obj: UnstructuredObject | undefined,
  ): ReturnType<AdmissionChain['admit']> {
    if (phase === 'mutate') return this.admission.mutate(attrs, obj);
    if (phase === 'validate') return this.admission.validate(attrs, obj);
    return this.admission.admit(attrs, obj);
  }

  readonly #schemas = new CustomResourceSchemas();

  /**
   * The structural schema of a custom resource type at a version, by default its storage
   * version (undefined for built-ins).
   */
  customResourceSchema(
    type: ResourceType,
    version: string = type.versions[0] ?? '',
  ): CustomResourceSchema | undefined {
    if (type.crdName === undefined) return undefined;
    const crd = this.#storage.get(
      groupResourceKey('apiextensions.k8s.io', 'customresourcedefinitions'),
      objectKey('', type.crdName),
    );
    return crd ? this.#schemas.get(crd.obj, version) : undefined;
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
    return this.#run(this.#updateScaleSteps(type, version, namespace, name, body, opts));
  }

  /** {@link ResourceStore.updateScale} for a request (admission may call webhooks). */
  updateScaleAsync(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<Scale> {
    return this.#runAsync(this.#updateScaleSteps(type, version, namespace, name, body, opts));
  }

  *#updateScaleSteps(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    opts: WriteOptions,
  ): WriteSteps<Scale> {
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
    // The parent is written as stored (its scale paths are the storage version's).
    const stored = yield* this.#replace(
      type,
      this.#storageVersion(type, version),
      existing,
      next,
      'scale',
      opts,
      'update',
      next,
    );
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
    return this.#run(
      this.#patchScaleSteps(type, version, namespace, name, contentType, body, opts),
    );
  }

  /** {@link ResourceStore.patchScale} for a request (admission may call webhooks). */
  patchScaleAsync(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<Scale> {
    return this.#runAsync(
      this.#patchScaleSteps(type, version, namespace, name, contentType, body, opts),
    );
  }

  *#patchScaleSteps(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    opts: WriteOptions,
  ): WriteSteps<Scale> {
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
    return yield* this.#updateScaleSteps(type, version, namespace, name, patched, opts);
  }

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
    // A version a webhook converts stays itself until stored (the write is admitted at it);
    // others share the storage version's shape and are relabelled (strategy None).
    copy.apiVersion = ResourceStore.apiVersion(
      type,
      this.#storageVersion(type, version) !== version ? version : (type.versions[0] ?? version),
    );
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

  /**
   * An object of a write made at `from`, at `to`: converted by the CRD's conversion
   * webhook when it converts one of them, otherwise itself.
   */
  *#atVersion(
    type: ResourceType,
    obj: UnstructuredObject,
    from: string,
    to: string,
  ): WriteSteps<UnstructuredObject> {
    const c = this.converter;
    if (from === to || c === undefined || !(c.converts(type, from) || c.converts(type, to))) {
      return obj;
    }
    const out = yield { convert: obj, type, version: to };
    return out ?? obj;
  }

  /** The version objects of `type` are stored at, when a webhook converts `version`. */
  #storageVersion(type: ResourceType, version: string): string {
    const c = this.converter;
    return c !== undefined && c.converts(type, version) ? c.storageVersion(type) : version;
  }

  /** The admission point of a write: the store resumes with the admitted object. */
  *#admit(
    attrs: Omit<AdmissionAttributes, 'inProcess'>,
    obj: UnstructuredObject,
    phase: AdmissionPhase = 'both',
  ): WriteSteps<UnstructuredObject> {
    const out = yield { attrs: { ...attrs, inProcess: false }, obj, phase };
    return out ?? obj;
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
    return this.#run(this.#create(type, version, namespace, body, opts, 'create'));
  }

  /** {@link ResourceStore.create} for a request (admission may call webhooks). */
  createAsync(
    type: ResourceType,
    version: string,
    namespace: string,
    body: unknown,
    opts: WriteOptions = {},
  ): Promise<StoredObject> {
    if (type.virtual === true) return Promise.resolve(this.create(type, version, namespace, body));
    return this.#runAsync(this.#create(type, version, namespace, body, opts, 'create'));
  }

  *#create(
    type: ResourceType,
    version: string,
    namespace: string,
    body: unknown,
    opts: WriteOptions,
    operation: WriteOperation,
  ): WriteSteps<StoredObject> {
    const requested = this.#checkEnvelope(type, version, body);
    this.#bindNamespace(type, (requested.metadata ??= {}), namespace);
    const requestName = requested.metadata.name ?? '';
    if (type.namespaced) {
      // NamespaceLifecycle names the object as admission.NewForbidden does: its name, else
      // its generateName.
      this.#requireNamespace(
        type,
        namespace,
        requestName || (requested.metadata.generateName ?? ''),
      );
    }
    const attrs = {
      operation,
      type,
      version,
      subresource: '',
      namespace: type.namespaced ? namespace : '',
      old: undefined,
      options: opts,
      body,
    };
    // kube-apiserver's create handler runs mutating admission before the registry's
    // BeforeCreate (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go): the
    // object has no uid, no creationTimestamp and, under generateName, no name yet.
    // The status a client sends reaches mutating admission: PrepareForCreate, which drops
    // it, runs in BeforeCreate, after (below). A Namespace's `kubernetes.io/metadata.name`
    // label and its `status.phase: Active` are defaults webhooks see (SetDefaults_Namespace,
    // SetDefaults_NamespaceStatus): set before when the name is known, and again after;
    // its `spec.finalizers` come from PrepareForCreate, after mutating admission.
    const sent =
      !opts.seed && isNamespaces(type) && requestName !== ''
        ? namespaceDecodeDefaults(requested)
        : requested;
    const obj = yield* this.#admit({ ...attrs, name: requestName }, sent, 'mutate');
    const meta = (obj.metadata ??= {});
    // BeforeCreate (pkg/registry/rest/create.go): the generated name, then the system fields.
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
    if (isWebhookConfiguration(type.group, type.resource)) {
      causes.push(...validateWebhookConfiguration(obj));
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
    if (this.#storage.get(grKey, objectKey(type.namespaced ? namespace : '', name))) {
      throw alreadyExists(type.group, type.resource, name);
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = this.#now();
    if (type.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    // PrepareForCreate: the status sent (or set by a mutating webhook) is dropped; what the
    // built-in defaults put there is set again, as kube-apiserver's defaulting on decoding
    // the stored object does (a Pod's phase, a Service's loadBalancer, a claim's phase).
    let stored = obj;
    if (!opts.seed) stored = this.#resetStatusOnCreate(type, obj);
    // Validating admission runs after BeforeCreate (the registry's createValidation, given
    // the generated name: rest.AdmissionToValidateObjectFunc): it sees the uid and name.
    stored = yield* this.#admit({ ...attrs, name }, stored, 'validate');
    if (operation !== 'apply' && !opts.seed) {
      stored = this.#recordUpdate(type, version, '', undefined, stored, opts);
    }
    // Admitted at the request's version, converted to the storage version to be stored
    // (kube-apiserver's storage codec converts when it encodes the object).
    stored = yield* this.#atVersion(type, stored, version, this.#storageVersion(type, version));
    // Admission may have waited (webhooks): the name may have been taken meanwhile.
    if (this.#storage.get(grKey, objectKey(type.namespaced ? namespace : '', name))) {
      throw alreadyExists(type.group, type.resource, name);
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

  /**
   * A custom resource's schema and rules (its strategy's Validate) on an object admission
   * does not see as itself: the parent of a write through `/scale`.
   */
  #validateCustomResource(
    type: ResourceType,
    version: string,
    subresource: string,
    obj: UnstructuredObject,
    old: UnstructuredObject | undefined,
  ): void {
    const crs = this.customResourceSchema(type, version);
    if (crs === undefined) return;
    const causes = validateCustomResource(crs, obj, old, { subresource });
    if (causes.length > 0) throw this.#invalid(type, obj.metadata?.name ?? '', causes);
  }

  #resetStatusOnCreate(type: ResourceType, obj: UnstructuredObject): UnstructuredObject {
    if (type.group === '' && type.resource === 'namespaces') {
      const spec = isObject(obj.spec) ? obj.spec : {};
      return {
        ...obj,
        metadata: withNamespaceNameLabel(obj),
        spec: { finalizers: ['kubernetes'], ...spec },
        status: { phase: 'Active' },
      };
    }
    if (!type.statusSubresource) return obj;
    const out = { ...obj };
    delete out.status;
    if (type.group === '' && type.resource === 'pods') {
      out.status = { phase: 'Pending', qosClass: podQOSClass(out) };
    }
    if (type.group === '' && type.resource === 'services') out.status = { loadBalancer: {} };
    if (type.group === '' && type.resource === 'persistentvolumeclaims') {
      out.status = { phase: 'Pending' };
    }
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
    return this.#run(this.#update(type, version, namespace, name, body, subresource, opts));
  }

  /** {@link ResourceStore.update} for a request (admission may call webhooks). */
  updateAsync(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions = {},
  ): Promise<StoredObject> {
    return this.#runAsync(this.#update(type, version, namespace, name, body, subresource, opts));
  }

  *#update(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions,
  ): WriteSteps<StoredObject> {
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
    return yield* this.#replace(type, version, existing, obj, subresource, opts, 'update', body);
  }

  *#replace(
    type: ResourceType,
    version: string,
    existing: StoredObject,
    obj: UnstructuredObject,
    subresource: string,
    opts: WriteOptions,
    operation: WriteOperation,
    body: unknown,
    oldAtVersion?: UnstructuredObject,
  ): WriteSteps<StoredObject> {
    const meta = (obj.metadata ??= {});
    const name = existing.obj.metadata?.name ?? '';
    const rv = meta.resourceVersion;
    if (rv !== undefined && rv !== '' && rv !== existing.obj.metadata?.resourceVersion) {
      throw conflict(type.group, type.resource, name);
    }
    // A write at a version a webhook converts is made and admitted at that version: the
    // stored object (oldObject) is converted to it first, and the result back to be stored.
    const storageVersion = this.#storageVersion(type, version);
    const old =
      oldAtVersion ?? (yield* this.#atVersion(type, existing.obj, storageVersion, version));
    const oldMeta = old.metadata ?? {};
    let next: UnstructuredObject;
    // The scale subresource writes the whole object (its replicas changed): only the
    // managedFields entry and admission name `scale`.
    const statusWrite = subresource === 'status';
    if (statusWrite) {
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
    if (isWebhookConfiguration(type.group, type.resource)) {
      causes.push(...validateWebhookConfiguration(next));
    }
    if (causes.length > 0) throw this.#invalid(type, name, causes);
    // Admission: every update, patch and apply of an existing object passes here. A write
    // through `/scale` admits the autoscaling/v1 Scale, old and new, not the parent (the
    // scale REST's admission and its toScaleUpdateValidation), and writes back its replicas.
    const asScale = subresource === 'scale' && type.scale !== undefined;
    const admitAttrs = {
      operation,
      type,
      version,
      subresource,
      ...(asScale ? { kind: SCALE_KIND } : {}),
      namespace: existing.namespace,
      name,
      old: asScale ? toScale(type, old) : old,
      options: opts,
      body,
    };
    if (asScale) {
      // Mutating admission of the Scale, the parent's own validation (its strategy's
      // ValidateUpdate: a custom resource's schema and rules), then validating admission
      // of the Scale, as the scale REST's update runs them.
      const scaled = fromScale(
        type,
        next,
        yield* this.#admit(admitAttrs, toScale(type, next), 'mutate'),
      );
      this.#validateCustomResource(type, version, subresource, scaled, old);
      yield* this.#admit(admitAttrs, toScale(type, scaled), 'validate');
      next = scaled;
    } else {
      next = yield* this.#admit(admitAttrs, next);
    }
    const grKey = groupResourceKey(type.group, type.resource);
    // Admission may have waited (webhooks): the object must not have changed meanwhile.
    const now = this.#storage.get(grKey, existing.key);
    if (now === undefined) throw notFound(type.group, type.resource, name);
    if (now.obj.metadata?.resourceVersion !== oldMeta.resourceVersion) {
      throw conflict(type.group, type.resource, name);
    }
    if (!statusWrite && type.tracksGeneration) {
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
    const isCrd =
      type.resource === 'customresourcedefinitions' && type.group === 'apiextensions.k8s.io';
    if (isCrd && !statusWrite) next = withCrdStatus(next, this.#now());
    if (storageVersion !== version) {
      next = yield* this.#atVersion(type, next, version, storageVersion);
      // The conversion may have waited: the object must not have changed meanwhile.
      const again = this.#storage.get(grKey, existing.key);
      if (again === undefined) throw notFound(type.group, type.resource, name);
      if (again.obj.metadata?.resourceVersion !== oldMeta.resourceVersion) {
        throw conflict(type.group, type.resource, name);
      }
    }
    if (stable(next) === stable(existing.obj)) return existing;
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
      this.#namespaces.finishIfEmpty(name);
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
    return this.#run(this.#apply(type, version, namespace, name, body, subresource, opts));
  }

  *#apply(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions,
  ): WriteSteps<{ stored: StoredObject; created: boolean }> {
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
    // The field manager applies at the request's version: the live object converted to it.
    const curAt = cur
      ? yield* this.#atVersion(type, cur.obj, this.#storageVersion(type, version), version)
      : undefined;
    const live = curAt
      ? ({ ...curAt, apiVersion: ResourceStore.apiVersion(type, version) } as unknown as {
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
        stored: yield* this.#create(type, version, namespace, applied, opts, 'apply'),
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
      stored: yield* this.#replace(
        type,
        version,
        cur,
        obj,
        subresource,
        opts,
        'apply',
        body,
        curAt,
      ),
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
    const apiVersion = ResourceStore.apiVersion(type, version);
    const out = updateManagedFields(
      old ? atVersion(old, apiVersion) : undefined,
      atVersion(next, apiVersion),
      manager,
      this.#fieldScope(type, version, subresource),
    ) as unknown as UnstructuredObject;
    if (next.apiVersion === undefined || out.apiVersion === next.apiVersion) return out;
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
    return this.#run(
      this.#patchOrApply(type, version, namespace, name, contentType, body, subresource, opts),
    );
  }

  /**
   * {@link ResourceStore.patch} (apply included) for a request (admission may call
   * webhooks).
   */
  patchAsync(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions = {},
  ): Promise<{ stored: StoredObject; created: boolean }> {
    return this.#runAsync(
      this.#patchOrApply(type, version, namespace, name, contentType, body, subresource, opts),
    );
  }

  *#patchOrApply(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions,
  ): WriteSteps<{ stored: StoredObject; created: boolean }> {
    if (contentType === 'application/apply-patch+yaml') {
      return yield* this.#apply(type, version, namespace, name, body, subresource, opts);
    }
    validatePatchOptions(false, opts);
    return yield* this.#patch(
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

  *#patch(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    contentType: string,
    body: unknown,
    subresource: string,
    opts: WriteOptions,
    operation: WriteOperation,
  ): WriteSteps<{ stored: StoredObject; created: boolean }> {
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
        throw jsonPatchApplyError();
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
      stored: yield* this.#replace(
        type,
        version,
        existing,
        obj,
        subresource,
        opts,
        operation,
        body,
      ),
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
    // The controllers' turn: dependents are collected (an owner deleted in the foreground
    // waits for its blocking dependents, this one included); a terminating namespace goes
    // once empty.
    this.#collector?.objectRemoved(obj);
    if (type.namespaced) this.#namespaces.finishIfEmpty(namespace);
    return removed;
  }

  /**
   * Deleting a namespace, as kube-apiserver's namespace storage does: the namespace is
   * marked (`deletionTimestamp`, phase `Terminating`; a create in it is then refused); the
   * namespace controller (./namespace_controller.ts) then deletes what it holds.
   */
  #markNamespace(existing: StoredObject, opts: DeleteOpts): StoredObject {
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
    this.#namespaces.namespaceTerminating(name);
    return this.#storage.get('namespaces', name) ?? current;
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
    if (isNamespaces(type)) return this.#markNamespace(existing, opts);
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
      if (gcFinalizer === undefined || this.#collector === undefined) return marked;
      this.#collector.collectFor({ type, stored: marked });
      return this.#storage.get(grKey, marked.key) ?? marked;
    }
    return this.#commitRemove(type, existing, opts);
  }

  /**
   * {@link ResourceStore.delete} for a request: admission sees the delete first (object
   * absent, `old` the stored object), as kube-apiserver's delete validation does.
   */
  async deleteAsync(
    type: ResourceType,
    version: string,
    namespace: string,
    name: string,
    opts: DeleteOpts = {},
    writeOptions: WriteOptions = {},
  ): Promise<StoredObject> {
    const existing = this.get(type, namespace, name);
    const deleteOptions: Record<string, unknown> = { ...opts };
    if (opts.dryRun === true) deleteOptions.dryRun = ['All'];
    await this.admission.admit(
      {
        operation: 'delete',
        type,
        version,
        subresource: '',
        namespace: existing.namespace,
        name,
        old: existing.obj,
        options: { ...writeOptions, ...(opts.dryRun === true ? { dryRun: true } : {}) },
        body: undefined,
        deleteOptions,
        inProcess: false,
      },
      undefined,
    );
    return this.delete(type, namespace, name, opts);
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

/**
 * A JSON patch that does not apply (a failed `test`, a missing path): kube-apiserver
 * answers a generic 422 (`NewGenericServerResponse`) that keeps none of the cause.
 */
export function jsonPatchApplyError(): ApiError {
  return statusError(
    422,
    'Invalid',
    'the server rejected our request due to an error in our request',
    {},
  );
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

/**
 * A Namespace's decoding defaults (pkg/apis/core/v1/defaults.go): the
 * `kubernetes.io/metadata.name` label, and `status.phase: Active` when unset.
 */
function namespaceDecodeDefaults(obj: UnstructuredObject): UnstructuredObject {
  const status = isObject(obj.status) ? obj.status : {};
  return {
    ...obj,
    metadata: withNamespaceNameLabel(obj),
    status: {
      ...status,
      phase: typeof status.phase === 'string' && status.phase !== '' ? status.phase : 'Active',
    },
  };
}

/** A Namespace's metadata with its `kubernetes.io/metadata.name` label (SetDefaults_Namespace). */
function withNamespaceNameLabel(
  obj: UnstructuredObject,
): NonNullable<UnstructuredObject['metadata']> {
  const name = obj.metadata?.name ?? '';
  return {
    ...obj.metadata,
    labels: { ...obj.metadata?.labels, 'kubernetes.io/metadata.name': name },
  };
}
