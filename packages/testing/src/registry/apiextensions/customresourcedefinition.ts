/**
 * CustomResourceDefinition (apiextensions.k8s.io/v1), as apiextensions-apiserver's
 * `pkg/registry/customresourcedefinition`: validated (../../crd.ts), no unconditional
 * update; the status its controllers set (NamesAccepted, Established, acceptedNames,
 * storedVersions) is set on every main-resource write; once stored, the resource it defines
 * is served (./customresource.ts), and a plural a built-in resource has is refused. Deleting
 * it deletes its objects first and stops serving them.
 *
 * @module
 */
import { validateCrd, withCrdStatus } from '../../crd.js';
import { conditions, listAtomic, open, root, scalar } from '../../fieldmanager/builtin_schema.js';
import { createdAtPrinters } from '../../printers.js';
import { defineKind } from '../kind.js';
import { customResourceNames, customResourceType } from './customresource.js';

/** CustomResourceDefinitions. */
export const customResourceDefinitions = defineKind({
  group: 'apiextensions.k8s.io',
  resource: 'customresourcedefinitions',
  kind: 'CustomResourceDefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  statusSubresource: true,
  tracksGeneration: true,
  printers: createdAtPrinters(),
  mergeType: {
    type: root({
      spec: open({
        versions: listAtomic(),
        names: open({ shortNames: listAtomic(scalar), categories: listAtomic(scalar) }),
      }),
      status: open({ conditions, storedVersions: listAtomic(scalar) }),
    }),
    implicitStructs: ['spec', 'spec.names', 'status', 'status.acceptedNames'],
  },
  strategy: {
    allowUnconditionalUpdate: false,
    validate(obj, ctx) {
      const causes = validateCrd(obj);
      if (causes.length > 0) return causes;
      const { group, resource } = customResourceNames(obj);
      const served = ctx.services.served(group, resource);
      if (served === undefined || served.crdName !== undefined) return [];
      return [
        {
          reason: 'FieldValueInvalid',
          field: 'spec.names.plural',
          message: `Invalid value: "${resource}": conflicts with a built-in resource`,
        },
      ];
    },
    validateUpdate: (obj) => validateCrd(obj),
    canonicalize: (obj, ctx) => (ctx.subresource === 'status' ? obj : withCrdStatus(obj, ctx.now)),
    afterWrite(stored, ctx) {
      ctx.services.serve(customResourceType(stored.obj, ctx.services));
    },
    beforeRemove(obj, ctx) {
      const { group, resource } = customResourceNames(obj);
      ctx.services.dropResource(group, resource, obj.metadata?.name ?? '');
    },
  },
});
