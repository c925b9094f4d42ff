// Test helpers for the controller tests: a hand-driven informer and a few waiters.
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';
import type { ResourceEventHandler } from '../../src/cache/processor.js';
import type { ResourceEventHandlerRegistration } from '../../src/cache/shared_informer.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import type { ControllerInformer } from '../../src/controller/index.js';
import type { KubeObject } from '../../src/client/types.js';

/** An informer whose events and sync state the test drives by hand. */
export class FakeInformer<T extends KubeObject> implements ControllerInformer<T> {
  readonly handlers = new Map<ResourceEventHandlerRegistration, ResourceEventHandler<T>>();
  synced = true;

  addEventHandler(handler: ResourceEventHandler<T>): ResourceEventHandlerRegistration {
    const registration = { hasSynced: () => this.synced };
    this.handlers.set(registration, handler);
    return registration;
  }

  removeEventHandler(registration: ResourceEventHandlerRegistration): void {
    this.handlers.delete(registration);
  }

  // Handlers receive the cached object read-only; the fake hands them the test's object.
  add(obj: T): void {
    for (const h of this.handlers.values()) void h.onAdd?.(obj as DeepReadonly<T>, false);
  }

  /** An add from the informer's initial list (`isInInitialList` true). */
  addInitial(obj: T): void {
    for (const h of this.handlers.values()) void h.onAdd?.(obj as DeepReadonly<T>, true);
  }

  update(oldObj: T, newObj: T): void {
    for (const h of this.handlers.values()) {
      void h.onUpdate?.(oldObj as DeepReadonly<T>, newObj as DeepReadonly<T>);
    }
  }

  delete(obj: T | DeletedFinalStateUnknown<T>): void {
    const readonlyObj = obj as DeepReadonly<T> | DeletedFinalStateUnknown<DeepReadonly<T>>;
    for (const h of this.handlers.values()) void h.onDelete?.(readonlyObj);
  }

  tombstone(key: string, obj: T): void {
    this.delete(new DeletedFinalStateUnknown(key, obj));
  }
}

/** Let the event loop turn until `cond` holds; fail after `turns` turns. */
export async function until(what: string, cond: () => boolean, turns = 2000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (cond()) return;
    await new Promise<void>((r) => setImmediate(r));
  }
  throw new Error(`timed out waiting for: ${what}`);
}

/** A promise with its resolve and reject exposed. */
export function deferred<T = void>(): {
  promise: Promise<T>;
  resolve: (v: T) => void;
  reject: (e: unknown) => void;
} {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** A ConfigMap-like object. */
export function obj(
  name: string,
  meta: Partial<NonNullable<KubeObject['metadata']>> = {},
  namespace = 'default',
): KubeObject {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace, ...meta } };
}
