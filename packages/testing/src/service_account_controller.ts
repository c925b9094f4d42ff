/**
 * The `default` ServiceAccount of every namespace, as kube-controller-manager's
 * serviceaccounts controller keeps it (pkg/controller/serviceaccount): each active
 * namespace has one, made when the namespace appears and made again when deleted;
 * a terminating namespace gets none. It runs after the change that calls for it (a
 * microtask), so a namespace created over the API has its account before the next
 * request is served.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';

/** The accounts the controller keeps in every namespace. */
export const DEFAULT_SERVICE_ACCOUNTS: readonly string[] = ['default'];

/** What the controller reads and writes. */
export interface ServiceAccountControllerDeps {
  /** Every namespace. */
  namespaces(): UnstructuredObject[];
  /** Whether a ServiceAccount exists. */
  exists(namespace: string, name: string): boolean;
  /** Creates a ServiceAccount (an in-process write). */
  create(namespace: string, name: string): void;
}

/** The serviceaccounts controller. */
export class ServiceAccountController {
  readonly #deps: ServiceAccountControllerDeps;
  #scheduled = false;

  constructor(deps: ServiceAccountControllerDeps) {
    this.#deps = deps;
  }

  /** Makes every missing account of every active namespace now. */
  sync(): void {
    for (const ns of this.#deps.namespaces()) {
      const name = ns.metadata?.name ?? '';
      if (name === '' || ns.metadata?.deletionTimestamp !== undefined) continue;
      const phase = (ns.status as { phase?: unknown } | undefined)?.phase;
      if (phase !== undefined && phase !== 'Active') continue;
      for (const account of DEFAULT_SERVICE_ACCOUNTS) {
        if (this.#deps.exists(name, account)) continue;
        try {
          this.#deps.create(name, account);
        } catch {
          // The namespace began terminating, or the account appeared meanwhile: the next
          // change that calls for it syncs again.
        }
      }
    }
  }

  /** Syncs once after the current change (several changes, one sync). */
  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.sync();
    });
  }
}
