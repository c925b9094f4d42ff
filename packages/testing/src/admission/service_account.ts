/**
 * kube-apiserver's `ServiceAccount` admission plugin (plugin/pkg/admission/serviceaccount),
 * the part a test sees: a Pod created over the API names a ServiceAccount
 * (`spec.serviceAccountName`, `default` when empty) that must exist in its namespace, or
 * the create is refused 403 `pods "p" is forbidden: error looking up service account
 * <ns>/<name>: serviceaccount "<name>" not found`. Mirror pods (the kubelet's static pods)
 * are not checked, nor in-process writes (`server.create`: seeding states the cluster as
 * it is). The `default` ServiceAccount of every namespace comes from the server's
 * ServiceAccount controller (../service_account_controller.ts), as kube-controller-manager's.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { statusError } from '../status.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';

/** The annotation of a mirror pod (`kubetypes.ConfigMirrorAnnotationKey`). */
const MIRROR_POD_ANNOTATION = 'kubernetes.io/config.mirror';

/** What the plugin reads. */
export interface ServiceAccountPluginDeps {
  /** Whether the ServiceAccount exists. */
  serviceAccountExists(namespace: string, name: string): boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The ServiceAccount admission plugin. */
export function serviceAccountPlugin(deps: ServiceAccountPluginDeps): MutationInterface {
  return {
    name: 'ServiceAccount',
    admit(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (
        obj === undefined ||
        attrs.inProcess ||
        attrs.old !== undefined ||
        attrs.operation === 'delete' ||
        attrs.subresource !== '' ||
        attrs.type.group !== '' ||
        attrs.type.resource !== 'pods'
      ) {
        return obj;
      }
      if (obj.metadata?.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) return obj;
      const spec = isRecord(obj.spec) ? obj.spec : {};
      const given = spec.serviceAccountName;
      const account = typeof given === 'string' && given !== '' ? given : 'default';
      const out: UnstructuredObject =
        given === account ? obj : { ...obj, spec: { ...spec, serviceAccountName: account } };
      if (deps.serviceAccountExists(attrs.namespace, account)) return out;
      // admission.NewForbidden: the object's name, else its generateName, else none.
      const name = attrs.name || (obj.metadata?.generateName ?? '');
      const why = `error looking up service account ${attrs.namespace}/${account}: serviceaccount "${account}" not found`;
      throw statusError(
        403,
        'Forbidden',
        `${name === '' ? 'pods' : `pods "${name}"`} is forbidden: ${why}`,
        { name, group: '', kind: 'pods' },
      );
    },
  };
}
