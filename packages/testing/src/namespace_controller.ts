/**
 * The namespace controller of the test API server, as kube-controller-manager's: once a
 * namespace is marked for deletion (the store does that, as kube-apiserver's namespace
 * storage), everything in it is deleted through the store — objects with finalizers stay,
 * marked, until their finalizers are removed — and once it is empty its `kubernetes`
 * finalizer is dropped and the namespace goes. Pods are deleted without a grace period
 * (there is no kubelet to end them). It runs at once, inside the request that caused it.
 *
 * @module
 */
import { KubeControllerKitError } from 'kube-controller-kit';
import type { ControllerStore } from './controller_store.js';
import { groupResourceKey } from './registry/resource_registry.js';
import type { ResourceType } from './registry/resource_registry.js';
import { jsonCopy as clone } from './json_copy.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Deletes the contents of terminating namespaces, then the namespaces. */
export class NamespaceController {
  readonly #store: ControllerStore;
  /** The namespace whose contents are being deleted right now. */
  #sweeping: string | undefined;

  /** @param store - what it acts through. */
  constructor(store: ControllerStore) {
    this.#store = store;
  }

  /** Deletes what a terminating namespace holds; the namespace goes once empty. */
  namespaceTerminating(name: string): void {
    this.#sweeping = name;
    try {
      for (const t of this.#store.registry.all()) {
        if (!t.namespaced) continue;
        const grKey = groupResourceKey(t.group, t.resource);
        for (const o of this.#store.storage.list(grKey, name)) {
          if (o.obj.metadata?.deletionTimestamp !== undefined) continue;
          this.#store.delete(t, name, o.obj.metadata?.name ?? '', { gracePeriodSeconds: 0 });
        }
      }
    } finally {
      this.#sweeping = undefined;
    }
    this.finishIfEmpty(name);
  }

  /** A terminating namespace with nothing left in it loses its `kubernetes` finalizer and, with no other finalizer, goes. */
  finishIfEmpty(namespace: string): void {
    if (this.#sweeping === namespace) return;
    const ns = this.#store.storage.get('namespaces', namespace);
    if (ns === undefined || ns.obj.metadata?.deletionTimestamp === undefined) return;
    for (const t of this.#store.registry.all()) {
      if (
        t.namespaced &&
        this.#store.storage.hasAnyIn(groupResourceKey(t.group, t.resource), namespace)
      )
        return;
    }
    const spec = isObject(ns.obj.spec) ? ns.obj.spec : {};
    const specFinalizers = Array.isArray(spec.finalizers) ? (spec.finalizers as unknown[]) : [];
    const left = specFinalizers.filter((f) => f !== 'kubernetes');
    let current = ns;
    if (left.length !== specFinalizers.length) {
      // The namespace controller's `finalize`, then its final delete: MODIFIED, DELETED.
      const next = clone(ns.obj);
      next.spec = { ...spec, finalizers: left };
      current = this.#store.storage.commit('MODIFIED', 'namespaces', '', namespace, next);
    }
    if (left.length === 0 && (current.obj.metadata?.finalizers ?? []).length === 0) {
      this.#store.remove(this.#namespacesType(), '', current.obj);
    }
  }

  #namespacesType(): ResourceType {
    const t = this.#store.registry.byGroupResource('', 'namespaces');
    if (t === undefined) throw new KubeControllerKitError('namespaces are not served');
    return t;
  }
}
