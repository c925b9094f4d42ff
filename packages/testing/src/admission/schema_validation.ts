/**
 * The admission plugin named `schema`: custom resources are pruned, defaulted and
 * validated through their CRD version's schema, `x-kubernetes-validations` CEL rules
 * included; built-in resources pass unchanged.
 *
 * It is a mutation ({@link prepareCustomResource}): pruning, defaulting and the
 * `fieldValidation` warnings or Strict refusal, which kube-apiserver's custom resource
 * codec does when it decodes the body and again on what a mutating webhook returns. It
 * runs after the mutating webhooks, so what they return is pruned and defaulted too.
 *
 * The validation (the OpenAPI schema and the CEL rules, one 422) is the custom resource
 * strategy's Validate and ValidateUpdate (../registry/apiextensions/customresource.ts),
 * which the store runs in BeforeCreate/BeforeUpdate: after mutating admission and before
 * validating admission, with the name generated from `generateName` set.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { ResourceType } from '../registry/resource_registry.js';
import { prepareCustomResource } from '../schema/admission.js';
import type { AdmitOptions, CustomResourceSchema } from '../schema/admission.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';

/** The options the schema's halves read from a write's attributes. */
function admitOptions(attrs: AdmissionAttributes): AdmitOptions {
  const o = attrs.options;
  const patchLike = attrs.operation === 'patch' || attrs.operation === 'apply';
  const options: AdmitOptions = { subresource: attrs.subresource };
  if (o.fieldValidation !== undefined) options.fieldValidation = o.fieldValidation;
  if (o.rawBody !== undefined && !patchLike) options.rawBody = o.rawBody;
  if (patchLike) options.patch = true;
  return options;
}

/**
 * The `schema` plugin. `schemaOf` finds a resource's compiled schema at a version
 * (undefined for built-ins and for custom resources whose CRD is gone).
 */
export function schemaValidationPlugin(
  schemaOf: (type: ResourceType, version: string) => CustomResourceSchema | undefined,
): MutationInterface {
  return {
    name: 'schema',
    admit(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      // A write through /scale admits an autoscaling/v1 Scale: the schema is not its own.
      if (obj === undefined || attrs.kind !== undefined) return obj;
      const crs = schemaOf(attrs.type, attrs.version);
      if (crs === undefined) return obj;
      const prepared = prepareCustomResource(crs, obj, admitOptions(attrs));
      attrs.options.warnings?.push(...prepared.warnings);
      // metadata.generation follows the admitted object: the store sets it after admission.
      return prepared.object;
    },
  };
}
