/**
 * The open watch streams of the test API server, by group/resource: change events fan out
 * to them, fault injection selects among them, and tests wait for them to open.
 *
 * @module
 */
import type { WatchSelector } from './faults.js';
import { groupResourceKey } from './registry/resource_registry.js';
import type { ResourceType } from './registry/resource_registry.js';
import type { ChangeEvent } from './storage.js';
import type { WatchConnection } from './watch.js';

/** Open watches by group/resource key. */
export class OpenWatches {
  readonly #byResource = new Map<string, Set<WatchConnection>>();
  readonly #waiters = new Set<() => void>();

  /** Sends a change to every watch of its resource. */
  dispatch(e: ChangeEvent): void {
    const set = this.#byResource.get(e.grKey);
    if (set) for (const w of set) w.send(e);
  }

  /** Registers a watch that went live and wakes anyone waiting for it. */
  add(grKey: string, w: WatchConnection): void {
    let set = this.#byResource.get(grKey);
    if (!set) {
      set = new Set();
      this.#byResource.set(grKey, set);
    }
    set.add(w);
    for (const waiter of [...this.#waiters]) waiter();
  }

  /** Forgets a watch that ended. */
  remove(grKey: string, w: WatchConnection): void {
    this.#byResource.get(grKey)?.delete(w);
  }

  /**
   * Ends every watch of a resource cleanly (pending events are written first), as
   * kube-apiserver ends the watches of a custom resource whose definition was deleted.
   */
  endAll(grKey: string): void {
    const set = this.#byResource.get(grKey);
    if (!set) return;
    for (const w of [...set]) w.end();
    this.#byResource.delete(grKey);
  }

  /**
   * Number of open watches, of one group/resource or of all; a resource that is not (or
   * no longer) served has none.
   */
  count(type?: Pick<ResourceType, 'group' | 'resource'>): number {
    if (type !== undefined) {
      return this.#byResource.get(groupResourceKey(type.group, type.resource))?.size ?? 0;
    }
    let n = 0;
    for (const s of this.#byResource.values()) n += s.size;
    return n;
  }

  /** The open watches a fault selector names (all of them without one). */
  select(selector: WatchSelector | undefined): WatchConnection[] {
    const out: WatchConnection[] = [];
    for (const set of this.#byResource.values()) {
      for (const w of set) {
        const f = w.filter;
        if (selector?.resource !== undefined && selector.resource !== f.type.resource) continue;
        if (selector?.group !== undefined && selector.group !== f.type.group) continue;
        if (selector?.namespace !== undefined && selector.namespace !== f.namespace) continue;
        out.push(w);
      }
    }
    return out;
  }

  /** Resolves when `satisfied()` holds, checked now and whenever a watch opens. */
  waitFor(satisfied: () => boolean, signal?: AbortSignal): Promise<void> {
    if (satisfied()) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (satisfied()) {
          cleanup();
          resolve();
        }
      };
      const onAbort = (): void => {
        cleanup();
        reject(signal?.reason as Error);
      };
      const cleanup = (): void => {
        this.#waiters.delete(check);
        signal?.removeEventListener('abort', onAbort);
      };
      if (signal?.aborted) {
        onAbort();
        return;
      }
      this.#waiters.add(check);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}
