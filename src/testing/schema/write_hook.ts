/**
 * The schema step of the test API server's write path, as a {@link WriteHook}: custom
 * resources are pruned, defaulted and validated through their CRD version's schema
 * ({@link admitCustomResource}); built-in resources pass unchanged.
 *
 * @module
 */
import type { UnstructuredObject } from '../../client/types.js';
import type { ResourceType } from '../registry.js';
import type { WriteContext, WriteHook } from '../resource_store.js';
import { invalid } from '../status.js';
import { admitCustomResource } from './admission.js';
import type { AdmitOptions, CustomResourceSchema } from './admission.js';

/**
 * The write hook named `schema`. `schemaOf` finds a resource's compiled schema (undefined
 * for built-ins and for custom resources whose CRD is gone).
 */
export function schemaWriteHook(
  schemaOf: (type: ResourceType) => CustomResourceSchema | undefined,
): WriteHook {
  return {
    name: 'schema',
    admit(ctx: WriteContext, obj: UnstructuredObject): UnstructuredObject {
      const crs = schemaOf(ctx.type);
      if (crs === undefined) return obj;
      const o = ctx.options;
      const options: AdmitOptions = { subresource: ctx.subresource };
      if (o.fieldValidation !== undefined) options.fieldValidation = o.fieldValidation;
      if (o.rawBody !== undefined && ctx.operation !== 'patch' && ctx.operation !== 'apply') {
        options.rawBody = o.rawBody;
      }
      if (ctx.operation === 'patch' || ctx.operation === 'apply') options.patch = true;
      const admission = admitCustomResource(crs, obj, ctx.old, options);
      o.warnings?.push(...admission.warnings);
      const name = obj.metadata?.name ?? '';
      if (admission.causes.length > 0) {
        throw invalid(ctx.type.group, ctx.type.kind, name, admission.causes);
      }
      // metadata.generation follows the admitted object: the store sets it after the hooks.
      return admission.object;
    },
  };
}
