/**
 * The admission plugin named `schema`: custom resources are pruned, defaulted and
 * validated through their CRD version's schema, `x-kubernetes-validations` CEL rules
 * included ({@link admitCustomResource}); built-in resources pass unchanged. The CEL rules
 * run here, not in a plugin of their own, because kube-apiserver evaluates them in the
 * same strategy validation as the OpenAPI schema and answers both in one 422 (rules are
 * skipped, with a cause saying so, when the schema already failed).
 *
 * It is a mutation (pruning and defaulting change the object) that refuses an invalid
 * object: it runs after the mutating webhooks, so what they return is validated too.
 *
 * @module
 */
import type { UnstructuredObject } from '../../client/types.js';
import type { ResourceType } from '../registry.js';
import { admitCustomResource } from '../schema/admission.js';
import type { AdmitOptions, CustomResourceSchema } from '../schema/admission.js';
import { invalid } from '../status.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';

/**
 * The `schema` plugin. `schemaOf` finds a resource's compiled schema (undefined for
 * built-ins and for custom resources whose CRD is gone).
 */
export function schemaValidationPlugin(
  schemaOf: (type: ResourceType) => CustomResourceSchema | undefined,
): MutationInterface {
  return {
    name: 'schema',
    admit(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (obj === undefined) return obj;
      const crs = schemaOf(attrs.type);
      if (crs === undefined) return obj;
      const o = attrs.options;
      const patchLike = attrs.operation === 'patch' || attrs.operation === 'apply';
      const options: AdmitOptions = { subresource: attrs.subresource };
      if (o.fieldValidation !== undefined) options.fieldValidation = o.fieldValidation;
      if (o.rawBody !== undefined && !patchLike) options.rawBody = o.rawBody;
      if (patchLike) options.patch = true;
      const admission = admitCustomResource(crs, obj, attrs.old, options);
      o.warnings?.push(...admission.warnings);
      const name = obj.metadata?.name ?? '';
      if (admission.causes.length > 0) {
        throw invalid(attrs.type.group, attrs.type.kind, name, admission.causes);
      }
      // metadata.generation follows the admitted object: the store sets it after admission.
      return admission.object;
    },
  };
}
