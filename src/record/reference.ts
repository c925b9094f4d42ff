/**
 * Object references for events (client-go's `tools/reference.GetReference`).
 *
 * Objects read from a list (and so from an informer's lister) usually carry no `apiVersion`
 * and `kind`: the API server sets them on the list, not on its items. client-go fills them
 * from its scheme; here {@link getReference} takes them from the object, or else from the
 * {@link ApiResource} you name, so `recorder.event(getReference(pod, podsResource), …)`
 * works with any cached object.
 *
 * @module
 */
import type { DeepReadonly } from '../util/deep_readonly.js';
import type { ApiResource, KubeObject } from '../client/types.js';
import { KubeControllerKitError } from '../util/errors.js';
import type { ObjectReference } from './types.js';

/** The object lacks what a reference needs (apiVersion, kind or name). */
export class InvalidObjectReferenceError extends KubeControllerKitError {}

/**
 * What an event can be about: an object (read only, so a handler's or lister's cached
 * object fits), or a reference to one.
 */
export type EventSubject = DeepReadonly<KubeObject> | ObjectReference;

function isReference(subject: EventSubject): subject is ObjectReference {
  return !('metadata' in subject) && 'name' in subject;
}

/**
 * The reference to `obj` that events carry (`involvedObject` / `regarding`): apiVersion,
 * kind, name, namespace, uid and resourceVersion. `apiVersion` and `kind` come from the
 * object, else from `resource`.
 *
 * @throws InvalidObjectReferenceError when apiVersion, kind or name cannot be found.
 */
export function getReference(
  obj: EventSubject,
  resource?: Pick<ApiResource<unknown>, 'group' | 'version' | 'kind'>,
  fieldPath?: string,
): ObjectReference {
  const fromResource =
    resource === undefined
      ? {}
      : {
          apiVersion:
            resource.group === '' ? resource.version : `${resource.group}/${resource.version}`,
          kind: resource.kind,
        };
  let ref: ObjectReference;
  if (isReference(obj)) {
    ref = { ...fromResource, ...obj };
  } else {
    const meta = obj.metadata ?? {};
    ref = { ...fromResource };
    if (obj.apiVersion !== undefined && obj.apiVersion !== '') ref.apiVersion = obj.apiVersion;
    if (obj.kind !== undefined && obj.kind !== '') ref.kind = obj.kind;
    if (meta.name !== undefined) ref.name = meta.name;
    if (meta.namespace !== undefined && meta.namespace !== '') ref.namespace = meta.namespace;
    if (meta.uid !== undefined) ref.uid = meta.uid;
    if (meta.resourceVersion !== undefined) ref.resourceVersion = meta.resourceVersion;
  }
  if (fieldPath !== undefined) ref.fieldPath = fieldPath;
  const missing = [
    ref.apiVersion === undefined || ref.apiVersion === '' ? 'apiVersion' : undefined,
    ref.kind === undefined || ref.kind === '' ? 'kind' : undefined,
    ref.name === undefined || ref.name === '' ? 'name' : undefined,
  ].filter((m): m is string => m !== undefined);
  if (missing.length > 0) {
    throw new InvalidObjectReferenceError(
      `cannot reference ${ref.kind ?? 'object'} "${ref.namespace ?? ''}/${ref.name ?? ''}": it has no ${missing.join(', ')}; ` +
        `objects from a list or lister carry no apiVersion/kind — pass the ApiResource: getReference(obj, podsResource)`,
    );
  }
  return ref;
}
