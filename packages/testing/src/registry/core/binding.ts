/**
 * Binding (core/v1): create-only. A POST of a Binding to `namespaces/<ns>/bindings` assigns
 * the pod it names to the node it targets (BindingREST / assignPod): the pod's
 * `spec.nodeName` is set and a `PodScheduled: True` condition added, nothing else is
 * stored, and the answer is a Success Status (201). A pod already on a node is a 409; a
 * missing pod a 404. Validation (ValidatePodBinding): target kind Node (or empty), a
 * target name.
 *
 * Not served: the `pods/<name>/binding` subresource (the same write by the pod's path).
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';
import { jsonCopy } from '../../json_copy.js';
import { arr, rec, str } from '../../printers.js';
import { conflict, notFound } from '../../status.js';
import type { StoredObject } from '../../storage.js';
import { notSupported, required } from '../field_errors.js';
import { defineKind } from '../kind.js';

function validate(obj: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const target = rec(obj.target);
  const kind = str(target.kind, '');
  if (kind !== '' && kind !== 'Node')
    causes.push(notSupported('target.kind', kind, ['Node', '<empty>']));
  if (str(target.name, '') === '') causes.push(required('target.name'));
  return causes;
}

/** Bindings. */
export const bindings = defineKind({
  group: '',
  resource: 'bindings',
  kind: 'Binding',
  namespaced: true,
  verbs: ['create'],
  strategy: {
    validate: (obj) => validate(obj),
    create(obj, ctx, dryRun): StoredObject {
      const name = obj.metadata?.name ?? '';
      const node = str(rec(obj.target).name, '');
      const key = `${ctx.namespace}/${name}`;
      const pods = ctx.services.served('', 'pods');
      const pod = ctx.read.get('pods', key);
      if (pods === undefined || pod === undefined) throw notFound('', 'pods', name);
      const current = str(rec(pod.obj.spec).nodeName, '');
      if (current !== '') {
        throw conflict(
          '',
          'pods/binding',
          name,
          `pod ${name} is already assigned to node "${current}"`,
        );
      }
      if (!dryRun) {
        const next = jsonCopy(pod.obj);
        next.spec = { ...rec(next.spec), nodeName: node };
        const status = rec(next.status);
        const conditions = arr(status.conditions).filter((c) => c.type !== 'PodScheduled');
        conditions.push({
          type: 'PodScheduled',
          status: 'True',
          lastProbeTime: null,
          lastTransitionTime: ctx.now,
        });
        next.status = { ...status, conditions };
        ctx.services.commit(pods, ctx.namespace, name, next);
      }
      const answer = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        code: 201,
      };
      return { obj: answer, json: JSON.stringify(answer), rv: 0, namespace: ctx.namespace, key };
    },
  },
});
