/**
 * The generic store of the test API server, as kube-apiserver's
 * `registry/generic/registry/store.go`: create, update, patch, apply, delete, list and get
 * with kube-apiserver's rules and errors (`Status` objects thrown as {@link ApiError}),
 * calling the kind's strategy (./registry) at each step where kinds differ. It names no
 * kind.
 *
 * A write's steps, in kube-apiserver's order:
 *
 * - create: decode (envelope, namespace, the kind's decoding defaults) → namespace lifecycle
 *   → mutating admission → uid, creationTimestamp, a name from `generateName` → BeforeCreate
 *   (BeginCreate, PrepareForCreate, Validate and the metadata rules, WarningsOnCreate,
 *   Canonicalize) → on a create through an update, the `create` authorization → validating
 *   admission → managedFields → conversion to the storage version → stored if the name is
 *   free (409 AlreadyExists) → AfterCreate.
 * - update, patch, apply (and a write through `/scale`): one GuaranteedUpdate loop around
 *   one attempt — read the object, make the new one from it (the body, the patch applied, the
 *   configuration applied; decoding defaults), mutating admission, the resourceVersion
 *   precondition, BeforeUpdate (BeginUpdate, PrepareForUpdate, ValidateUpdate and the
 *   metadata rules, WarningsOnUpdate, Canonicalize), validating admission, managedFields,
 *   conversion — stored if the object is still the one read, else the attempt is made again
 *   (a webhook or conversion call let another write land). Only a resourceVersion the client
 *   sent answers 409. A missing object is created when the kind allows it or by an apply.
 * - delete: admission (requests), preconditions, the kind's delete or the generic one
 *   (finalizers, the garbage collector's finalizers, a grace period).
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { ApiError, KubeControllerKitError } from 'kube-controller-kit';
import type {
  Clock,
  FieldSelector,
  ObjectMeta,
  StatusCause,
  UnstructuredObject,
} from 'kube-controller-kit';
import { AdmissionChain, isPromise } from './admission/chain.js';
import type {
  AdmissionAttributes,
  MaybePromise,
  WriteOperation,
  WriteOptions,
} from './admission/interfaces.js';
import { schemaValidationPlugin } from './admission/schema_validation.js';
import type { Authorizer } from './authorization.js';
import { alwaysAllow, forbiddenStatus } from './authorization.js';
import type { ControllerStore } from './controller_store.js';
import { openRoot } from './fieldmanager/builtin_schema.js';
import type { FieldManagerScope } from './fieldmanager/field_manager.js';
import { applyToObject, updateManagedFields } from './fieldmanager/field_manager.js';
import { managerOrUserAgent, validatePatchOptions } from './fieldmanager/options.js';
import type { JsonValue } from './fieldmanager/path.js';
import type { MapType } from './fieldmanager/schema.js';
import { customResourceType as customResourceMergeType } from './fieldmanager/schema.js';
import { GarbageCollector } from './garbage_collector.js';
import { NamespaceController } from './namespace_controller.js';
import { OwnerIndex } from './owner_index.js';
import { applyJsonPatch, applyMergePatch, PatchError, strategicMerge } from './patch.js';
import { stableJson } from './registry/generic.js';
import type { ResourceRegistry } from './registry/resource_registry.js';
import { groupResourceKey } from './registry/resource_registry.js';
import type {
  DeleteOpts,
  RegistryServices,
  ResourceType,
  StoreReader,
  StrategyContext,
} from './registry/types.js';
import { fromScale, scaleCodec, SCALE_KIND } from './scale.js';
import type { ScaleCodec } from './scale.js';
import { CustomResourceSchemas } from './schema/index.js';
import type { CustomResourceSchema, Scale } from './schema/index.js';
import {
  alreadyExists,
  badRequest,
  conflict,
  invalid,
  notFound,
  qualified,
  statusError,
} from './status.js';
import type { Storage, StoredObject } from './storage.js';
import { objectKey } from './storage.js';
import { nameErrors, validateObjectMeta } from './validation.js';
import { checkFieldSelector, listObjects } from './list.js';
import type { ListQuery, ListResult } from './list.js';
import { jsonCopy as clone } from './json_copy.js';
import { runSteps } from './write_steps.js';
import type { AdmissionPoint, ConversionPoint, WriteSteps } from './write_steps.js';

/** The patch content types the server accepts. */
export const PATCH_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
] as const;

/** The content type of server-side apply. */
const APPLY_PATCH = 'application/apply-patch+yaml';

export type { WriteOperation, WriteOptions } from './admission/interfaces.js';
export type { DeleteOpts, PropagationPolicy } from './registry/types.js';

/**
 * How many attempts a GuaranteedUpdate makes before it gives up. kube-apiserver has no
 * count: its loop ends when the write lands or the request's deadline (34 s) passes, which
 * answers 504. A count stands in for the deadline (the fake clock does not move while a
 * write waits on a webhook).
 */
export const MAX_UPDATE_ATTEMPTS = 10;

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

/** One write to the store: what a create, update, patch, apply or delete request says. */
export interface WriteRequest {
  /** create (POST), update (PUT), patch (PATCH, apply included) or delete. */
  readonly verb: 'create' | 'update' | 'patch' | 'delete';
  /** The resource written. */
  readonly type: ResourceType;
  /** The request's version. */
  readonly version: string;
  /** The request's namespace ('' for cluster scope). */
  readonly namespace: string;
  /** The name in the URL ('' for a create). */
  readonly name: string;
  /** '' for the main resource, `status` or `scale`. */
  readonly subresource: string;
  /** The decoded body (an object, a patch, an applied configuration, a Scale). */
  readonly body?: unknown;
  /** A patch's content type. */
  readonly contentType?: string;
  /** The write's options and request facts. */
  readonly options?: WriteOptions;
  /** A delete's options. */
  readonly deleteOptions?: DeleteOpts;
}

/** What a write stored. */
export interface WriteResult {
  /** The stored object (or, for a dry run, what would have been). */
  readonly stored: StoredObject;
  /** Whether the write created the object (201). */
  readonly created: boolean;
}

/** An update attempt's outcome: the object to store, and over what. */
type Attempt =
  | { readonly op: 'create'; readonly obj: UnstructuredObject; readonly version: string }
  | {
      readonly op: 'update';
      readonly obj: UnstructuredObject;
      readonly existing: StoredObject;
    };

const NAME_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The object with `apiVersion` as the field manager reads it: itself when it already says
 * so (the field manager never changes the objects it is given), else a shallow copy.
 */
function atApiVersion(o: UnstructuredObject, apiVersion: string): { [k: string]: JsonValue } {
  const out = o.apiVersion === apiVersion ? o : { ...o, apiVersion };
  return out as unknown as { [k: string]: JsonValue };
}

/** 415 for a patch type the resource does not take. */
function unsupportedPatch(accepted: readonly string[]): ApiError {
  return statusError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  );
}

/** The patched object (400 for a malformed patch, 422 for a JSON patch that does not apply). */
function applyPatch(
  type: ResourceType,
  current: UnstructuredObject,
  contentType: string,
  body: unknown,
): unknown {
  try {
    switch (contentType) {
      case 'application/merge-patch+json':
        if (!isObject(body)) throw new PatchError('merge patch must be a JSON object', 400);
        return applyMergePatch(current, body);
      case 'application/json-patch+json':
        return applyJsonPatch(current, body);
      case 'application/strategic-merge-patch+json':
        if (!type.strategicMerge) {
          throw unsupportedPatch(PATCH_TYPES.filter((t) => !t.startsWith('application/strategic')));
        }
        if (!isObject(body))
          throw new PatchError('strategic merge patch must be a JSON object', 400);
        return strategicMerge(current, body);
      default:
        throw unsupportedPatch(PATCH_TYPES);
    }
  } catch (err) {
    if (err instanceof PatchError) {
      if (err.code === 400) throw badRequest(err.message);
      throw jsonPatchApplyError();
    }
    throw err;
  }
}

/** The generic store over a {@link Storage} and a {@link ResourceRegistry}. */
export class ResourceStore {
  readonly #storage: Storage;
  readonly #registry: ResourceRegistry;
  readonly #clock: Clock;
  readonly #watchCache: boolean;
  /** The garbage collector, when on. */
  readonly #collector: GarbageCollector | undefined;
  /** The namespace controller. */
  readonly #namespaces: NamespaceController;
  /** What strategies read. */
  readonly #reader: StoreReader;
  /** What strategies' REST overrides and after-hooks act through. */
  readonly #services: RegistryServices;
  readonly #schemas = new CustomResourceSchemas();

  /**
   * The admission chain every create, update, patch, apply and delete passes (see
   * ./admission): the custom resource schema by default; the server puts its full chain
   * (policies, webhooks) here.
   */
  admission: AdmissionChain;

  /**
   * The conversion webhooks of CRDs: a write at a version they convert is admitted at that
   * version and converted to the storage version to be stored. Unset, every write is
   * stored at the version it was made at.
   */
  converter: WriteConverter | undefined;

  /**
   * Who may do what: a PUT, PATCH or apply that creates its object is authorized again as
   * `create` (kube-apiserver's create-on-update authorization). Default: everyone.
   */
  authorizer: Authorizer = alwaysAllow;

  /**
   * @param storage - objects; @param registry - resources; @param clock - for timestamps.
   * @param watchCache - serve lists at resourceVersion "0" whole, ignoring `limit`, as
   * kube-apiserver's watch cache does (false: page them, as with `--watch-cache=false`).
   * @param garbageCollection - run the garbage collector.
   */
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
      delete: (type, namespace, name, opts) =>
        this.writeNow({
          verb: 'delete',
          type,
          version: type.versions[0] ?? 'v1',
          namespace,
          name,
          subresource: '',
          deleteOptions: opts ?? {},
        }).stored,
      remove: (type, namespace, obj) => this.#remove(type, namespace, obj),
    };
    this.#collector = garbageCollection
      ? new GarbageCollector(new OwnerIndex(storage), controllerStore)
      : undefined;
    const namespaces = new NamespaceController(controllerStore);
    this.#namespaces = namespaces;
    this.#reader = {
      get: (grKey, key) => storage.get(grKey, key),
      list: (grKey, namespace) => storage.list(grKey, namespace),
    };
    this.#services = {
      serve: (type) => registry.add(type),
      served: (group, resource) => registry.byGroupResource(group, resource),
      dropResource: (group, resource, crdName) => this.#dropResource(group, resource, crdName),
      commit: (type, namespace, name, obj) =>
        storage.commit(
          'MODIFIED',
          groupResourceKey(type.group, type.resource),
          namespace,
          name,
          obj,
        ),
      customResourceSchema: (type, version) => this.customResourceSchema(type, version),
      namespaceTerminating: (name) => namespaces.namespaceTerminating(name),
      finishIfEmpty: (name) => namespaces.finishIfEmpty(name),
    };
    this.admission = new AdmissionChain([this.schemaValidation()]);
  }

  /** The `schema` admission plugin over this store's CustomResourceDefinitions. */
  schemaValidation(): ReturnType<typeof schemaValidationPlugin> {
    return schemaValidationPlugin((type, version) => this.customResourceSchema(type, version));
  }

  // ---------------------------------------------------------------- the one write path

  /** Makes a request's write: admission may call out (webhooks), conversion webhooks too. */
  async write(req: WriteRequest): Promise<WriteResult> {
    return runSteps(this.#write(req, false), (p) => this.#answer(p, false));
  }

  /**
   * Makes an in-process write (seeding, the server's own controllers): admission must answer
   * at once (webhooks and policies skip in-process writes), and no conversion webhook is
   * called.
   */
  writeNow(req: WriteRequest): WriteResult {
    const out = runSteps(this.#write(req, true), (p) => this.#answer(p, true));
    if (isPromise(out)) {
      throw new KubeControllerKitError(
        `an in-process write of ${req.type.kind} did not complete synchronously`,
      );
    }
    return out;
  }

  /** Answers a write's admission or conversion point. */
  #answer(
    point: AdmissionPoint | ConversionPoint,
    inProcess: boolean,
  ): MaybePromise<UnstructuredObject | undefined> {
    if ('convert' in point) {
      const { convert, type, version } = point;
      if (inProcess) {
        throw new KubeControllerKitError(
          `an in-process write of ${type.kind} cannot call its conversion webhook: write it at the storage version, or over HTTP`,
        );
      }
      const converter = this.converter;
      if (converter === undefined) return convert;
      return converter.convert(type, [convert], version).then(([out]) => out ?? convert);
    }
    const { attrs, obj, phase } = point;
    const out =
      phase === 'mutate'
        ? this.admission.mutate(attrs, obj)
        : phase === 'validate'
          ? this.admission.validate(attrs, obj)
          : this.admission.admit(attrs, obj);
    if (inProcess && isPromise(out)) {
      throw new KubeControllerKitError(
        `admission of an in-process write of ${attrs.type.kind} did not answer synchronously`,
      );
    }
    return out;
  }

  *#write(req: WriteRequest, inProcess: boolean): WriteSteps<WriteResult> {
    const { type } = req;
    if (type.virtual === true) {
      throw badRequest(
        `${type.kind} is a review: it is answered, never stored (POST it over HTTP)`,
      );
    }
    const opts = req.options ?? {};
    switch (req.verb) {
      case 'create':
        return { stored: yield* this.#create(req, opts, inProcess), created: true };
      case 'delete':
        return { stored: yield* this.#delete(req, opts, inProcess), created: false };
      case 'patch':
      case 'update':
        return yield* this.#guaranteedUpdate(req, opts, inProcess);
    }
  }

  // ---------------------------------------------------------------- create

  *#create(req: WriteRequest, opts: WriteOptions, inProcess: boolean): WriteSteps<StoredObject> {
    const { type, version, namespace } = req;
    const obj = this.#decode(type, version, namespace, req.body, opts);
    const ready = yield* this.#createSteps(req, obj, opts, inProcess, 'create', false);
    // Admission may have waited (webhooks): the name may have been taken meanwhile.
    const name = ready.metadata?.name ?? '';
    const grKey = groupResourceKey(type.group, type.resource);
    if (this.#storage.get(grKey, objectKey(type.namespaced ? namespace : '', name))) {
      throw alreadyExists(type.group, type.resource, name);
    }
    return this.#commitCreate(type, namespace, ready, opts, req.version);
  }

  /**
   * The steps of a create from the decoded object to the object to store (at the storage
   * version): a POST's, and an update's that creates (`createOnUpdate`: authorized again as
   * `create`).
   */
  *#createSteps(
    req: WriteRequest,
    requested: UnstructuredObject,
    opts: WriteOptions,
    inProcess: boolean,
    operation: WriteOperation,
    createOnUpdate: boolean,
  ): WriteSteps<UnstructuredObject> {
    const { type, version, namespace } = req;
    const requestName = requested.metadata?.name ?? '';
    if (type.namespaced) {
      // NamespaceLifecycle names the object as admission.NewForbidden does: its name, else
      // its generateName.
      this.#requireNamespace(
        type,
        namespace,
        requestName || (requested.metadata?.generateName ?? ''),
      );
    }
    const base = {
      operation,
      type,
      version,
      subresource: '',
      namespace: type.namespaced ? namespace : '',
      old: undefined,
      options: opts,
      body: req.body,
      inProcess,
    };
    // kube-apiserver's create handler runs mutating admission before the registry's
    // BeforeCreate (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/create.go): the
    // object has no uid, no creationTimestamp and, under generateName, no name yet. The
    // status a client sends reaches it: PrepareForCreate, which drops it, runs after.
    const mutated =
      (yield { attrs: { ...base, name: requestName }, obj: requested, phase: 'mutate' }) ??
      requested;
    let obj: UnstructuredObject = { ...mutated, metadata: { ...mutated.metadata } };
    const meta = obj.metadata as ObjectMeta;
    // The system fields and the name generated from generateName (store.create).
    if ((meta.name ?? '') === '' && meta.generateName) {
      const grKey = groupResourceKey(type.group, type.resource);
      for (let i = 0; i < 8; i++) {
        meta.name = this.#generateName(meta.generateName);
        if (!this.#storage.get(grKey, objectKey(namespace, meta.name))) break;
      }
    }
    const name = meta.name ?? '';
    if (createOnUpdate) {
      // GuaranteedUpdate prepares the object for storage, which clears the resourceVersion.
      delete meta.resourceVersion;
    } else if (meta.resourceVersion !== undefined && meta.resourceVersion !== '') {
      throw statusError(
        500,
        'InternalError',
        'resourceVersion should not be set on objects to be created',
      );
    }
    meta.uid = randomUUID();
    meta.creationTimestamp = this.#now();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    // BeforeCreate (pkg/registry/rest/create.go).
    const ctx = this.#context(type, version, '', namespace, opts);
    const { strategy } = type;
    obj = strategy.beginCreate(obj, ctx);
    obj = strategy.prepareForCreate(obj, ctx);
    const causes = validateObjectMeta(obj, type.nameRule);
    causes.push(...strategy.validate(obj, ctx));
    if (causes.length > 0) throw this.#invalid(type, name, causes);
    ctx.warnings.push(...strategy.warningsOnCreate(obj, ctx));
    obj = strategy.canonicalize(obj, ctx);
    // A PUT, PATCH or apply that creates is authorized again, as `create`, with the
    // request's attributes (endpoints/handlers withAuthorization), before validating
    // admission.
    if (createOnUpdate && opts.user !== undefined) {
      const attributes = {
        user: opts.user,
        verb: 'create',
        resourceRequest: true,
        path: '',
        group: type.group,
        version,
        resource: type.resource,
        subresource: req.subresource,
        namespace: type.namespaced ? namespace : '',
        name: req.name,
      };
      const decision = this.authorizer.authorize(attributes);
      if (!decision.allowed) {
        throw new ApiError(forbiddenStatus(attributes, decision.reason));
      }
    }
    // Validating admission runs after BeforeCreate (the registry's createValidation, given
    // the generated name: rest.AdmissionToValidateObjectFunc): it sees the uid and name.
    obj = (yield { attrs: { ...base, name }, obj, phase: 'validate' }) ?? obj;
    if (operation !== 'apply' && !ctx.seed) {
      obj = this.#recordUpdate(type, version, '', undefined, obj, opts);
    }
    // Admitted at the request's version, converted to the storage version to be stored
    // (kube-apiserver's storage codec converts when it encodes the object).
    return yield* this.#atVersion(type, obj, version, this.#storageVersion(type, version));
  }

  /** Stores a created object (or, for a dry run, shows it) and runs AfterCreate. */
  #commitCreate(
    type: ResourceType,
    namespace: string,
    obj: UnstructuredObject,
    opts: WriteOptions,
    version: string,
  ): StoredObject {
    const name = obj.metadata?.name ?? '';
    const ns = type.namespaced ? namespace : '';
    if (type.strategy.create !== undefined) {
      const ctx = this.#context(type, version, '', ns, opts);
      return type.strategy.create(obj, ctx, opts.dryRun === true);
    }
    if (opts.dryRun === true) {
      return { obj, json: JSON.stringify(obj), rv: 0, namespace: ns, key: objectKey(ns, name) };
    }
    const grKey = groupResourceKey(type.group, type.resource);
    const stored = this.#storage.commit('ADDED', grKey, ns, name, obj);
    if (type.strategy.afterWrite === undefined) return stored;
    type.strategy.afterWrite(stored, this.#context(type, version, '', ns, opts));
    return this.#storage.get(grKey, stored.key) ?? stored;
  }

  // ---------------------------------------------------------------- GuaranteedUpdate

  /**
   * kube-apiserver's GuaranteedUpdate around one update attempt: the object is read, the
   * change made on it (admission and conversion may wait on webhooks), and the result stored
   * only if the object is still the one read; otherwise the attempt is made again on what is
   * there now. Webhooks are called again on each attempt, as on kube-apiserver. What the
   * request sent is checked and decoded once, before the first attempt.
   */
  *#guaranteedUpdate(
    req: WriteRequest,
    opts: WriteOptions,
    inProcess: boolean,
  ): WriteSteps<WriteResult> {
    const { type, namespace, name } = req;
    const change = this.#change(req, opts);
    const grKey = groupResourceKey(type.group, type.resource);
    const key = objectKey(type.namespaced ? namespace : '', name);
    for (let attempt = 0; attempt < MAX_UPDATE_ATTEMPTS; attempt++) {
      const existing = this.#storage.get(grKey, key);
      const next = yield* this.#attempt(req, change, existing, opts, inProcess);
      const now = this.#storage.get(grKey, key);
      // Stored only over the object the attempt read (an absent one for a create).
      if (now?.obj.metadata?.resourceVersion !== existing?.obj.metadata?.resourceVersion) {
        continue;
      }
      if (next.op === 'create') {
        return {
          stored: this.#commitCreate(type, namespace, next.obj, opts, next.version),
          created: true,
        };
      }
      return { stored: this.#commitUpdate(req, next.existing, next.obj, opts), created: false };
    }
    throw statusError(
      504,
      'Timeout',
      'Timeout: request did not complete within requested timeout - context deadline exceeded',
      {},
    );
  }

  /**
   * What an update changes, checked once: a PUT's body decoded (400s for its envelope, its
   * name and namespace), an apply's configuration, a patch as sent.
   */
  #change(req: WriteRequest, opts: WriteOptions): Change {
    const { type, version, namespace, name, subresource } = req;
    if (subresource === 'scale') {
      return { kind: 'scale', codec: scaleCodec(type, this.customResourceSchema(type)) };
    }
    if (req.verb === 'update') {
      const obj = this.#checkEnvelope(type, version, req.body);
      const meta = (obj.metadata ??= {});
      if ((meta.name ?? '') === '') meta.name = name;
      if (meta.name !== name) {
        throw badRequest(
          `the name of the object (${meta.name}) does not match the name on the URL (${name})`,
        );
      }
      this.#bindNamespace(type, meta, namespace);
      return { kind: 'update', obj };
    }
    if (req.contentType === APPLY_PATCH) {
      validatePatchOptions(true, opts);
      const body = req.body;
      if (!isObject(body)) {
        throw badRequest('error decoding YAML: the applied configuration must be an object');
      }
      const config = { ...body } as { [k: string]: JsonValue };
      const configMeta = isObject(config.metadata) ? { ...config.metadata } : {};
      if (configMeta.name === undefined || configMeta.name === '') configMeta.name = name;
      config.metadata = configMeta;
      return { kind: 'apply', config };
    }
    validatePatchOptions(false, opts);
    return { kind: 'patch' };
  }

  /** One attempt of an update over `existing` (absent: a create, where allowed). */
  *#attempt(
    req: WriteRequest,
    change: Change,
    existing: StoredObject | undefined,
    opts: WriteOptions,
    inProcess: boolean,
  ): WriteSteps<Attempt> {
    const { type, namespace, name, subresource } = req;
    // A write through /scale writes the object as stored (its scale paths are the storage
    // version's); others are made at the request's version.
    const version = change.kind === 'scale' ? this.#storageVersion(type, req.version) : req.version;
    if (existing === undefined) {
      // A PUT of a kind that allows it creates, and an apply does, through the main resource
      // only; other patches find nothing to patch.
      const creates =
        subresource === '' &&
        (change.kind === 'apply' ||
          (change.kind === 'update' && type.strategy.allowCreateOnUpdate));
      if (!creates) throw notFound(type.group, type.resource, name);
      const obj =
        change.kind === 'apply'
          ? this.#decode(
              type,
              version,
              namespace,
              this.#applied(req, change.config, undefined, opts),
              opts,
              true,
            )
          : this.#decodeObject(
              type,
              version,
              namespace,
              change.kind === 'update'
                ? { ...change.obj, metadata: { ...change.obj.metadata } }
                : {},
              opts,
            );
      const created = yield* this.#createSteps(
        req,
        obj,
        opts,
        inProcess,
        change.kind === 'apply' ? 'apply' : 'update',
        true,
      );
      return { op: 'create', obj: created, version };
    }
    // A write at a version a webhook converts is made and admitted at that version: the
    // stored object (oldObject) is converted to it first, and the result back to be stored.
    const storageVersion = this.#storageVersion(type, version);
    const old = yield* this.#atVersion(type, existing.obj, storageVersion, version);
    // The new object, decoded (the kind's decoding defaults).
    let obj: UnstructuredObject;
    let appliedFields: ObjectMeta['managedFields'] | null = null;
    switch (change.kind) {
      case 'scale': {
        // The Scale sent, or the stored one patched, written into the object.
        const scale =
          req.verb === 'patch'
            ? change.codec.patch(change.codec.read(existing.obj), req.contentType ?? '', req.body)
            : req.body;
        obj = change.codec.write(existing.obj, scale);
        break;
      }
      case 'update':
        obj = this.#decodeObject(
          type,
          version,
          namespace,
          {
            ...change.obj,
            metadata: { ...change.obj.metadata },
          },
          opts,
        );
        break;
      case 'apply': {
        const applied = this.#applied(req, change.config, old, opts);
        obj = this.#decode(type, version, namespace, applied, opts, false);
        appliedFields = obj.metadata?.managedFields;
        break;
      }
      case 'patch': {
        const current = { ...old, apiVersion: ResourceStore.apiVersion(type, version) };
        const patched = applyPatch(type, current, req.contentType ?? '', req.body);
        if (!isObject(patched)) throw badRequest('the patch did not produce an object');
        obj = this.#decode(type, version, namespace, patched, opts, false);
        break;
      }
    }
    if ((change.kind === 'patch' || change.kind === 'apply') && obj.metadata?.name !== name) {
      throw this.#invalid(type, name, [
        {
          reason: 'FieldValueInvalid',
          field: 'metadata.name',
          message: 'Invalid value: field is immutable',
        },
      ]);
    }
    const codec = change.kind === 'scale' ? change.codec : undefined;
    const attrs: AdmissionAttributes = {
      operation: change.kind === 'apply' ? 'apply' : change.kind === 'patch' ? 'patch' : 'update',
      type,
      version,
      subresource,
      ...(codec !== undefined ? { kind: SCALE_KIND } : {}),
      namespace: existing.namespace,
      name,
      old: codec !== undefined ? codec.admitted(old) : old,
      options: opts,
      body: req.body,
      inProcess,
    };
    // Mutating admission (objInfo.UpdatedObject's transformers). A write through /scale
    // admits the autoscaling/v1 Scale, old and new, not the parent (the scale REST's
    // admission), and writes back its replicas.
    if (codec !== undefined) {
      const scale = codec.admitted(obj);
      obj = fromScale(type, obj, (yield { attrs, obj: scale, phase: 'mutate' }) ?? scale);
    } else {
      obj = (yield { attrs, obj, phase: 'mutate' }) ?? obj;
    }
    obj = { ...obj, metadata: { ...obj.metadata } };
    const m = obj.metadata as ObjectMeta;
    const oldMeta = old.metadata ?? {};
    // The resourceVersion the client sent is a precondition (409 when the object moved on);
    // none takes the stored one where the kind allows an unconditional update (422 elsewhere).
    const rv = m.resourceVersion;
    if (rv !== undefined && rv !== '') {
      if (rv !== existing.obj.metadata?.resourceVersion) {
        throw conflict(type.group, type.resource, name);
      }
    } else if (change.kind === 'update' && !type.strategy.allowUnconditionalUpdate && !opts.seed) {
      // kube-apiserver names the resource (not the kind) in this one.
      throw invalid(type.group, type.resource, name, [
        {
          reason: 'FieldValueInvalid',
          message: 'Invalid value: 0: must be specified for an update',
          field: 'metadata.resourceVersion',
        },
      ]);
    }
    m.resourceVersion = oldMeta.resourceVersion ?? '';
    // BeforeUpdate (pkg/registry/rest/update.go): the system fields stay the stored ones.
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
    const ctx = this.#context(type, version, subresource, existing.namespace, opts);
    const { strategy } = type;
    obj = strategy.beginUpdate(obj, old, ctx);
    obj = strategy.prepareForUpdate(obj, old, ctx);
    const causes = validateObjectMeta(obj, type.nameRule);
    causes.push(...strategy.validateUpdate(obj, old, ctx));
    if (causes.length > 0) throw this.#invalid(type, name, causes);
    ctx.warnings.push(...strategy.warningsOnUpdate(obj, old, ctx));
    obj = strategy.canonicalize(obj, ctx);
    // Validating admission (the registry's updateValidation).
    if (codec !== undefined) {
      yield { attrs, obj: codec.admitted(obj), phase: 'validate' };
    } else {
      obj = (yield { attrs, obj, phase: 'validate' }) ?? obj;
    }
    if (appliedFields !== null) {
      // An apply stores its own managedFields (its Apply entry).
      const meta = { ...obj.metadata };
      if (appliedFields === undefined) delete meta.managedFields;
      else meta.managedFields = appliedFields;
      obj = { ...obj, metadata: meta };
    } else if (!ctx.seed) {
      obj = this.#recordUpdate(type, version, subresource, old, obj, opts);
    }
    if (storageVersion !== version) {
      obj = yield* this.#atVersion(type, obj, version, storageVersion);
    }
    return { op: 'update', obj, existing };
  }

  /** Stores an updated object (unless unchanged, or a dry run), or removes it. */
  #commitUpdate(
    req: WriteRequest,
    existing: StoredObject,
    obj: UnstructuredObject,
    opts: WriteOptions,
  ): StoredObject {
    const { type } = req;
    if (stableJson(obj) === stableJson(existing.obj)) return existing;
    if (opts.dryRun === true) return { ...existing, obj, json: JSON.stringify(obj) };
    if (type.strategy.shouldDeleteDuringUpdate(obj, existing.obj)) {
      return this.#remove(type, existing.namespace, obj);
    }
    const grKey = groupResourceKey(type.group, type.resource);
    const name = obj.metadata?.name ?? '';
    const stored = this.#storage.commit('MODIFIED', grKey, existing.namespace, name, obj);
    if (type.strategy.afterWrite === undefined) return stored;
    type.strategy.afterWrite(
      stored,
      this.#context(type, req.version, req.subresource, existing.namespace, opts),
    );
    return this.#storage.get(grKey, stored.key) ?? stored;
  }

  /** An apply's result: the configuration applied to the live object at the request's version. */
  #applied(
    req: WriteRequest,
    config: { [k: string]: JsonValue },
    live: UnstructuredObject | undefined,
    opts: WriteOptions,
  ): UnstructuredObject {
    const { type, version } = req;
    const at =
      live === undefined
        ? undefined
        : ({ ...live, apiVersion: ResourceStore.apiVersion(type, version) } as unknown as {
            [k: string]: JsonValue;
          });
    return applyToObject(
      at,
      config,
      opts.fieldManager ?? '',
      opts.force === true,
      this.#fieldScope(type, version, live === undefined ? '' : req.subresource),
    );
  }

  // ---------------------------------------------------------------- decoding

  /**
   * Checks a body's envelope and decodes it as kube-apiserver's decoder does: the 400s of a
   * wrong body, the request's namespace (a create or PUT may not name another: 400; a patch
   * or apply result is moved into it), then the kind's decoding defaults.
   */
  #decode(
    type: ResourceType,
    version: string,
    namespace: string,
    body: unknown,
    opts: WriteOptions,
    strictNamespace = true,
  ): UnstructuredObject {
    const obj = this.#checkEnvelope(type, version, body);
    const meta = (obj.metadata ??= {});
    if (strictNamespace) this.#bindNamespace(type, meta, namespace);
    else if (type.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    return this.#decodeObject(type, version, namespace, obj, opts);
  }

  /** The kind's decoding defaults on a checked object. */
  #decodeObject(
    type: ResourceType,
    version: string,
    namespace: string,
    obj: UnstructuredObject,
    opts: WriteOptions,
  ): UnstructuredObject {
    return type.strategy.decode(obj, this.#context(type, version, '', namespace, opts));
  }

  /** What a strategy sees of a write. */
  #context(
    type: ResourceType,
    version: string,
    subresource: string,
    namespace: string,
    opts: WriteOptions,
  ): StrategyContext {
    return {
      type,
      version,
      subresource,
      namespace: type.namespaced ? namespace : '',
      now: this.#now(),
      seed: opts.seed === true,
      warnings: opts.warnings ?? [],
      read: this.#reader,
      services: this.#services,
    };
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

  /**
   * Checks a request body's envelope (an object, of the resource's apiVersion and kind,
   * with object metadata) and returns a shallow copy: the 400s kube-apiserver's decoder
   * answers a wrong body with.
   */
  checkEnvelope(type: ResourceType, version: string, body: unknown): UnstructuredObject {
    return this.#checkEnvelope(type, version, body);
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

  // ---------------------------------------------------------------- versions

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
    // A built-in kind whose versions differ converts in process (no webhook, no wait).
    if (type.convert !== undefined) return from === to ? obj : type.convert(obj, to);
    const c = this.converter;
    if (from === to || c === undefined || !(c.converts(type, from) || c.converts(type, to))) {
      return obj;
    }
    const out = yield { convert: obj, type, version: to };
    return out ?? obj;
  }

  /** The version objects of `type` are stored at, when a webhook converts `version`. */
  #storageVersion(type: ResourceType, version: string): string {
    if (type.convert !== undefined) return type.versions[0] ?? version;
    const c = this.converter;
    return c !== undefined && c.converts(type, version) ? c.storageVersion(type) : version;
  }

  // ---------------------------------------------------------------- custom resources

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

  /** The autoscaling/v1 Scale of an object, as GET `…/scale` answers it. */
  scaleOf(type: ResourceType, stored: StoredObject): Scale {
    return scaleCodec(type, this.customResourceSchema(type)).read(stored.obj) as unknown as Scale;
  }

  // ---------------------------------------------------------------- managedFields

  /** The schema and request facts the field manager needs. */
  #fieldScope(type: ResourceType, version: string, subresource: string): FieldManagerScope {
    let root: MapType;
    let implicitStructs: readonly string[] = [];
    if (type.crdName !== undefined) {
      root = this.#customResourceMergeType(type.crdName, version);
    } else {
      const b = type.mergeType ?? openRoot;
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

  #customResourceMergeType(crdName: string, version: string): MapType {
    const crd = this.#storage.get('customresourcedefinitions.apiextensions.k8s.io', crdName);
    const rv = crd?.obj.metadata?.resourceVersion ?? '';
    const key = `${crdName}/${version}`;
    const cached = this.#crTypes.get(key);
    if (cached && cached.rv === rv) return cached.type;
    const spec = isObject(crd?.obj.spec) ? crd.obj.spec : {};
    const versions = Array.isArray(spec.versions) ? (spec.versions as unknown[]) : [];
    const v = versions.find((x) => isObject(x) && x.name === version);
    const schema = isObject(v) && isObject(v.schema) ? v.schema.openAPIV3Schema : undefined;
    const type = customResourceMergeType(schema);
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
      old ? atApiVersion(old, apiVersion) : undefined,
      atApiVersion(next, apiVersion),
      manager,
      this.#fieldScope(type, version, subresource),
    ) as unknown as UnstructuredObject;
    if (next.apiVersion === undefined || out.apiVersion === next.apiVersion) return out;
    return { ...out, apiVersion: next.apiVersion };
  }

  // ---------------------------------------------------------------- delete

  /**
   * A delete: admission sees it first (object absent, `old` the stored object), as
   * kube-apiserver's delete validation does; in-process deletes (the controllers') are not
   * admitted.
   */
  *#delete(req: WriteRequest, opts: WriteOptions, inProcess: boolean): WriteSteps<StoredObject> {
    const { type, namespace, name } = req;
    const del = req.deleteOptions ?? {};
    if (!inProcess) {
      const existing = this.get(type, namespace, name);
      const deleteOptions: Record<string, unknown> = { ...del };
      if (del.dryRun === true) deleteOptions.dryRun = ['All'];
      yield {
        attrs: {
          operation: 'delete',
          type,
          version: req.version,
          subresource: '',
          namespace: existing.namespace,
          name,
          old: existing.obj,
          options: { ...opts, ...(del.dryRun === true ? { dryRun: true } : {}) },
          body: undefined,
          deleteOptions,
          inProcess,
        },
        obj: undefined,
        phase: 'both',
      };
    }
    return this.#deleteNow(type, namespace, name, del);
  }

  /** Deletes an object (or marks it, when finalizers or a grace period hold it). */
  #deleteNow(type: ResourceType, namespace: string, name: string, opts: DeleteOpts): StoredObject {
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
    const { strategy } = type;
    if (strategy.delete !== undefined) {
      return strategy.delete(
        existing,
        opts,
        this.#context(type, type.versions[0] ?? 'v1', '', existing.namespace, {}),
      );
    }
    const grKey = groupResourceKey(type.group, type.resource);
    // As kube-apiserver's registry: Foreground and Orphan deletes hold the object with the
    // garbage collector's finalizer (which the collector, when on, then works off).
    const gcFinalizer = gcFinalizerFor(opts);
    const held = meta.finalizers ?? [];
    const addGcFinalizer = gcFinalizer !== undefined && !held.includes(gcFinalizer);
    const finalizers = addGcFinalizer ? [...held, gcFinalizer] : held;
    const grace = strategy.gracePeriodSeconds(existing.obj, opts.gracePeriodSeconds);
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

  #commitRemove(type: ResourceType, existing: StoredObject, opts: DeleteOpts): StoredObject {
    if (opts.dryRun) return existing;
    return this.#remove(type, existing.namespace, existing.obj);
  }

  #remove(type: ResourceType, namespace: string, obj: UnstructuredObject): StoredObject {
    const grKey = groupResourceKey(type.group, type.resource);
    const name = obj.metadata?.name ?? '';
    type.strategy.beforeRemove?.(
      obj,
      this.#context(type, type.versions[0] ?? 'v1', '', namespace, {}),
    );
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

  /** Deletes every object of a resource and stops serving it when `crdName` serves it. */
  #dropResource(group: string, resource: string, crdName: string): void {
    const grKey = groupResourceKey(group, resource);
    for (const o of this.#storage.list(grKey)) {
      this.#storage.commit('DELETED', grKey, o.namespace, o.obj.metadata?.name ?? '', {
        ...o.obj,
        metadata: { ...o.obj.metadata },
      });
    }
    this.#storage.dropTable(grKey);
    const served = this.#registry.byGroupResource(group, resource);
    if (served?.crdName === crdName) this.#registry.remove(group, resource);
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
        out.push(this.#deleteNow(type, o.namespace, o.obj.metadata?.name ?? '', opts));
      } catch {
        // deleted concurrently (e.g. by a namespace cascade): skip
      }
    }
    return out;
  }

  // ---------------------------------------------------------------- reads

  /** Gets an object. */
  get(type: ResourceType, namespace: string, name: string): StoredObject {
    const o = this.#storage.get(
      groupResourceKey(type.group, type.resource),
      objectKey(type.namespaced ? namespace : '', name),
    );
    if (!o) throw notFound(type.group, type.resource, name);
    return o;
  }

  /** Validates a field selector against the resource's selectable fields (400 otherwise). */
  checkFieldSelector(type: ResourceType, field: FieldSelector | undefined): void {
    checkFieldSelector(type, field);
  }

  /** Lists (one page of) a resource (./list.ts). */
  list(type: ResourceType, q: ListQuery): ListResult {
    return listObjects(this.#storage, type, q, this.#watchCache);
  }

  /** Resolves a name rule check for names in URLs (used by the HTTP layer). */
  static validPathName(name: string): boolean {
    return nameErrors(name, 'pathSegment').length === 0;
  }
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

/** What an update changes, checked once before its attempts. */
type Change =
  | { readonly kind: 'update'; readonly obj: UnstructuredObject }
  | { readonly kind: 'patch' }
  | { readonly kind: 'apply'; readonly config: { [k: string]: JsonValue } }
  | { readonly kind: 'scale'; readonly codec: ScaleCodec };
