/**
 * The resource registry of the test API server: which resources it serves, at which
 * versions, with which kind, scope, short names, subresources and field selectors.
 *
 * Built-in resources are registered at start (./index.ts); a CustomResourceDefinition adds
 * (and its deletion removes) one resource served at each of its served versions.
 *
 * @module
 */
import { groupResourceKey } from 'kube-controller-kit';
import type { ResourceType } from './types.js';

/** The storage key of a group/resource: `pods`, `deployments.apps`. */
export { groupResourceKey };
export { fieldPathGetter } from './kind.js';
export type { FieldGetter, NameRule, ResourceType, ScaleSubresource } from './types.js';

/** The set of resources a server serves, looked up by group/version/resource. */
export class ResourceRegistry {
  readonly #byKey = new Map<string, ResourceType>();
  #generation = 0;

  /** Increases whenever the set of resources changes (a cache-busting hash for clients). */
  get generation(): number {
    return this.#generation;
  }

  /** Adds or replaces a resource. */
  add(type: ResourceType): void {
    this.#byKey.set(groupResourceKey(type.group, type.resource), type);
    this.#generation++;
  }

  /** Removes a resource. */
  remove(group: string, resource: string): void {
    if (this.#byKey.delete(groupResourceKey(group, resource))) this.#generation++;
  }

  /** The resource with this group and plural name, at any version. */
  byGroupResource(group: string, resource: string): ResourceType | undefined {
    return this.#byKey.get(groupResourceKey(group, resource));
  }

  /** The resource stored under a group/resource key (`deployments.apps`, `pods`). */
  byKey(grKey: string): ResourceType | undefined {
    return this.#byKey.get(grKey);
  }

  /** The resource served at group/version/resource, if served at that version. */
  lookup(group: string, version: string, resource: string): ResourceType | undefined {
    const t = this.#byKey.get(groupResourceKey(group, resource));
    return t?.versions.includes(version) ? t : undefined;
  }

  /** Every resource. */
  all(): ResourceType[] {
    return [...this.#byKey.values()];
  }

  /** Groups and their versions, in registration order ('' = core). */
  groups(): Map<string, string[]> {
    const out = new Map<string, string[]>();
    for (const t of this.#byKey.values()) {
      const vs = out.get(t.group) ?? [];
      for (const v of t.versions) if (!vs.includes(v)) vs.push(v);
      out.set(t.group, vs);
    }
    return out;
  }

  /** The resources served at a group/version. */
  inGroupVersion(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.versions.includes(version));
  }
}
