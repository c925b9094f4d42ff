/**
 * Defaulting of built-in kinds in the test API server, as kube-apiserver defaults an
 * object when it decodes a request body (k8s.io/kubernetes `pkg/apis/<group>/v1/defaults.go`
 * and the generated `zz_generated.defaults.go`): on create, update, every patch and
 * server-side apply result, whatever the wire format (JSON, YAML, protobuf), and for
 * in-process seeding. Services also get the addresses and ports kube-apiserver's Service
 * storage allocates ({@link allocateServiceFields}).
 *
 * Each kind's strategy (../registry/<group>/<kind>.ts) runs its defaulter as its decoding
 * defaults, on every write's object before mutating admission and before the field manager
 * records an `Update` entry, so — as on kube-apiserver — a create or update owns the
 * defaulted fields too, while an apply owns only the fields it applied.
 *
 * What is not done here: admission plugins' additions (a Pod's service account, its
 * token volume, default tolerations, priority), a Job's generated selector, and defaults
 * behind feature gates that are off by default.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import type { Obj } from './fields.js';
import { jsonCopy } from '../json_copy.js';

/**
 * A kind's decoding defaults as a strategy's `decode`: a copy of the object with the
 * defaulter's defaults set (the defaulter sets them in place, on the copy).
 */
export function defaulter(
  setDefaults: (obj: Obj) => void,
): (obj: UnstructuredObject) => UnstructuredObject {
  return (obj) => {
    const copy = jsonCopy(obj);
    setDefaults(copy);
    return copy;
  };
}

export { allocateServiceFields } from './service_allocation.js';
export { child, isObj } from './fields.js';
