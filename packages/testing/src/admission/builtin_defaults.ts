/**
 * The admission plugin named `builtin-defaults`: built-in objects get kube-apiserver's
 * defaults (../defaults), and a new or changed Service its cluster IPs and node ports.
 * Custom resources pass unchanged (their schema defaults are the `schema` plugin's).
 * It runs first, so every later plugin and webhook sees the defaulted object, as
 * kube-apiserver defaults on decode.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { allocateServiceFields, child, isObj, withBuiltinDefaults } from '../defaults/index.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';

/**
 * The `builtin-defaults` mutation. `services` lists the stored Services, whose addresses
 * and node ports a new Service must not reuse.
 */
export function builtinDefaultsPlugin(
  services: () => Iterable<UnstructuredObject>,
): MutationInterface {
  return {
    name: 'builtin-defaults',
    admit(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      const { type } = attrs;
      if (obj === undefined || type.crdName !== undefined) return obj;
      const next = withBuiltinDefaults(type.group, type.resource, obj);
      if (type.group === '' && type.resource === 'services' && isObj(next.spec)) {
        const old = attrs.old === undefined ? undefined : child(attrs.old, 'spec');
        const selector = child(next.spec, 'selector');
        const hasSelector = selector !== undefined && Object.keys(selector).length > 0;
        allocateServiceFields(next.spec, old, hasSelector, services);
      }
      return next;
    },
  };
}
