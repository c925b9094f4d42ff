/**
 * The write and read steps kube-apiserver applies to a custom resource through its CRD
 * version's structural schema, as one call each for the test API server:
 *
 * - write ({@link admitCustomResource}): duplicate and unknown fields (pruned; rejected
 *   with `fieldValidation=Strict`, warned about with `Warn`, the default), defaulting,
 *   OpenAPI validation with ratcheting, the scale paths, embedded resources, list-type
 *   invariants, then `x-kubernetes-validations` rules, unless an earlier error blocks them;
 * - read ({@link defaultOnRead}): defaults for objects stored before a default existed.
 *
 * @module
 */
import type { ApiError, StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { badRequest, statusError } from '../status.js';
import { hasCelRules, validateCelRules } from './cel.js';
import { applyDefaults, hasDefaults, needsDefaults } from './defaulting.js';
import { duplicateFields } from './duplicate_fields.js';
import { pruneObject, unknownFields } from './prune.js';
import { validateScaleSpec, validateScaleStatus } from './scale.js';
import type { ScaleSubresource, StructuralSchema } from './structural.js';
import { clone, crdVersionScale, crdVersionSchema, isObject } from './structural.js';
import {
  BLOCKING_REASONS,
  validateEmbeddedResources,
  validateListTypes,
  validateSchema,
} from './validate.js';

/** The `fieldValidation` query parameter. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/** What a custom resource version enforces (compiled once per CRD resourceVersion). */
export interface CustomResourceSchema {
  /** Kind of the custom resource. */
  kind: string;
  /** The version whose schema applies. */
  version: string;
  /** The openAPIV3Schema (undefined: nothing is pruned or validated). */
  schema: StructuralSchema | undefined;
  /** The scale subresource, when served. */
  scale: ScaleSubresource | undefined;
  /** Whether reads need defaulting. */
  defaults: boolean;
  /** Whether the schema has CEL rules. */
  rules: boolean;
}

/** The schema of a CRD at a version. */
export function customResourceSchema(
  crd: UnstructuredObject,
  version: string,
): CustomResourceSchema {
  const spec = isObject(crd.spec) ? crd.spec : {};
  const names = isObject(spec.names) ? spec.names : {};
  const schema = crdVersionSchema(crd, version);
  return {
    kind: typeof names.kind === 'string' ? names.kind : '',
    version,
    schema,
    scale: crdVersionScale(crd, version),
    defaults: hasDefaults(schema),
    rules: hasCelRules(schema),
  };
}

/** Compiled schemas of CRDs, recompiled when a CRD's resourceVersion changes. */
export class CustomResourceSchemas {
  readonly #byName = new Map<string, { rv: string; version: string; s: CustomResourceSchema }>();

  /** The schema of `crd` at `version` (cached). */
  get(crd: UnstructuredObject, version: string): CustomResourceSchema {
    // Keyed by name and version: writes at several versions of one CRD each keep theirs.
    const name = `${crd.metadata?.name ?? ''}/${version}`;
    const rv = crd.metadata?.resourceVersion ?? '';
    const hit = this.#byName.get(name);
    if (hit && hit.rv === rv && hit.version === version && rv !== '') return hit.s;
    const s = customResourceSchema(crd, version);
    this.#byName.set(name, { rv, version, s });
    return s;
  }
}

/** How a write reaches {@link admitCustomResource}. */
export interface AdmitOptions {
  /** The request's `fieldValidation` (default `Warn`, as kube-apiserver). */
  fieldValidation?: FieldValidation;
  /** `status` for writes to the status subresource. */
  subresource?: string;
  /** The raw JSON body of a create or update, to find duplicate fields. */
  rawBody?: string;
  /** Set for patches: a strict-decoding failure is then a 422 naming the patch. */
  patch?: boolean;
}

/** The admitted object, or the causes that make it invalid. */
export interface Admission {
  /** The pruned and defaulted object to store. */
  object: UnstructuredObject;
  /** `Warning` header texts (`unknown field "spec.foo"`). */
  warnings: string[];
  /** 422 causes (empty when valid), after ObjectMeta's own causes. */
  causes: StatusCause[];
}

/** The cause kube-apiserver adds when CEL rules were skipped. */
export const RULES_NOT_CHECKED: StatusCause = {
  reason: 'FieldValueInvalid',
  message:
    'Invalid value: null: some validation rules were not checked because the object was invalid; correct the existing errors to complete validation',
  field: '<nil>',
};

function strictError(
  crs: CustomResourceSchema,
  problems: string[],
  patched: unknown,
  patch: boolean,
): ApiError {
  const text = `strict decoding error: ${problems.join(', ')}`;
  if (!patch) {
    return badRequest(
      `${crs.kind} in version "${crs.version}" cannot be handled as a ${crs.kind}: ${text}`,
    );
  }
  const message = `Invalid value: ${JSON.stringify(JSON.stringify(patched))}: ${text}`;
  return statusError(422, 'Invalid', ` "" is invalid: patch: ${message}`, {
    causes: [{ reason: 'FieldValueInvalid', message, field: 'patch' }],
  });
}

/**
 * Prunes, defaults and validates a custom resource about to be written. `old` is the
 * stored object on update (for ratcheting and transition rules). Throws the 400 (or, for
 * a patch, 422) of `fieldValidation=Strict` when the body has unknown or duplicate fields.
 * The two halves, {@link prepareCustomResource} and {@link validateCustomResource}, run
 * apart on the server's write path.
 */
export function admitCustomResource(
  crs: CustomResourceSchema,
  obj: UnstructuredObject,
  old: UnstructuredObject | undefined,
  options: AdmitOptions = {},
): Admission {
  const { object, warnings } = prepareCustomResource(crs, obj, options);
  return { object, warnings, causes: validateCustomResource(crs, object, old, options) };
}

/**
 * The decoding half of {@link admitCustomResource}: prunes unknown fields and applies the
 * schema's defaults (kube-apiserver's custom resource codec does both when it decodes a
 * body, and again after a mutating webhook). Throws the 400 (or, for a patch, 422) of
 * `fieldValidation=Strict` when the body has unknown or duplicate fields. The result's
 * `causes` is always empty.
 */
export function prepareCustomResource(
  crs: CustomResourceSchema,
  obj: UnstructuredObject,
  options: AdmitOptions = {},
): Admission {
  const schema = crs.schema;
  const mode = options.fieldValidation ?? 'Warn';
  const object = clone(obj);
  const problems = options.rawBody !== undefined ? duplicateFields(options.rawBody) : [];
  const texts = problems.map((p) => `duplicate field "${p}"`);
  if (schema !== undefined) {
    texts.push(...unknownFields(pruneObject(schema, object)).map((p) => `unknown field "${p}"`));
  }
  if (mode === 'Strict' && texts.length > 0) {
    throw strictError(crs, texts, obj, options.patch === true);
  }
  const warnings = mode === 'Warn' ? texts : [];
  if (schema !== undefined) applyDefaults(schema, object);
  return { object, warnings, causes: [] };
}

/**
 * The validating half of {@link admitCustomResource}: the causes that make a pruned and
 * defaulted custom resource invalid (OpenAPI schema, scale paths, embedded resources,
 * list types, then the `x-kubernetes-validations` CEL rules, skipped with a cause saying
 * so when the schema already failed). kube-apiserver runs it as the custom resource
 * strategy's Validate, inside the registry's create or update (after BeforeCreate has
 * generated the name), before validating admission. `object` is not changed.
 */
export function validateCustomResource(
  crs: CustomResourceSchema,
  object: UnstructuredObject,
  old: UnstructuredObject | undefined,
  options: AdmitOptions = {},
): StatusCause[] {
  const schema = crs.schema;
  if (schema === undefined) return [];
  let oldObj: UnstructuredObject | undefined;
  if (old !== undefined) {
    oldObj = clone(old);
    applyDefaults(schema, oldObj);
  }
  const causes: StatusCause[] = [];
  if (options.subresource === 'status') {
    const statusSchema = schema.properties?.status;
    if (statusSchema !== undefined && object.status !== undefined) {
      causes.push(
        ...validateSchema(statusSchema, object.status, {
          path: 'status',
          messageRoot: 'status',
          old: oldObj?.status,
          hasOld: oldObj !== undefined && oldObj.status !== undefined,
        }),
      );
    }
    if (crs.scale) causes.push(...validateScaleStatus(crs.scale, object));
  } else {
    causes.push(...validateSchema(schema, object, { old: oldObj, hasOld: oldObj !== undefined }));
    if (crs.scale) {
      causes.push(
        ...validateScaleSpec(crs.scale, object),
        ...validateScaleStatus(crs.scale, object),
      );
    }
  }
  causes.push(...validateEmbeddedResources(schema, object), ...validateListTypes(schema, object));
  if (crs.rules) {
    if (causes.some((c) => BLOCKING_REASONS.has(c.reason ?? ''))) causes.push(RULES_NOT_CHECKED);
    else causes.push(...validateCelRules(schema, object, oldObj ? { value: oldObj } : undefined));
  }
  return causes;
}

/**
 * The object with read-time defaults applied, or undefined when nothing changed (the
 * stored object, and its cached serialization, can then be served as they are).
 */
export function defaultOnRead(
  crs: CustomResourceSchema,
  obj: UnstructuredObject,
): UnstructuredObject | undefined {
  if (!crs.defaults || crs.schema === undefined) return undefined;
  if (!needsDefaults(crs.schema, obj)) return undefined;
  const copy = clone(obj);
  return applyDefaults(crs.schema, copy) ? copy : undefined;
}

/** The `Warning` header value of a warning text (`299 - "unknown field \"spec.foo\""`). */
export function warningHeader(text: string): string {
  return `299 - ${JSON.stringify(text)}`;
}
