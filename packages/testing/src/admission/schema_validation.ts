/**
 * The admission plugin named `schema`: custom resources are pruned, defaulted and
 * validated through their CRD version's schema, `x-kubernetes-validations` CEL rules
 * included; built-in resources pass unchanged.
 *
 * It has two halves, as kube-apiserver has:
 * - a mutation ({@link prepareCustomResource}): pruning, defaulting and the
 *   `fieldValidation` warnings or Strict refusal, which kube-apiserver's custom resource
 *   codec does when it decodes the body and again on what a mutating webhook returns. It
 *   runs after the mutating webhooks, so what they return is pruned and defaulted too.
 * - a validation ({@link validateCustomResource}): the OpenAPI schema and the CEL rules,
 *   answered in one 422 (rules are skipped, with a cause saying so, when the schema already
 *   failed). kube-apiserver runs it as the custom resource strategy's Validate, inside the
 *   registry's create (after BeforeCreate: the name generated from `generateName` and the
 *   uid are set, so a rule reading `self.metadata.name` sees the name) or update, before
 *   validating admission; here it is the first validation of the chain, which a create
 *   runs after BeforeCreate.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { ResourceType } from '../registry.js';
import { prepareCustomResource, validateCustomResource } from '../schema/admission.js';
import type { AdmitOptions, CustomResourceSchema } from '../schema/admission.js';
import { invalid } from '../status.js';
import type { AdmissionAttributes, MutationInterface, ValidationInterface } from './interfaces.js';

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
): MutationInterface & ValidationInterface {
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
    validate(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (obj === undefined || attrs.kind !== undefined) return;
      const crs = schemaOf(attrs.type, attrs.version);
      if (crs === undefined) return;
      const causes = validateCustomResource(crs, obj, attrs.old, admitOptions(attrs));
      if (causes.length > 0) {
        throw invalid(attrs.type.group, attrs.type.kind, obj.metadata?.name ?? '', causes);
      }
    },
  };
}
