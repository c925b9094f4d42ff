/**
 * The clusterrole-aggregation controller, as kube-controller-manager runs it: a
 * ClusterRole with an `aggregationRule` has, as its rules, the rules of every other
 * ClusterRole its `clusterRoleSelectors` select (in name order, each distinct rule once),
 * kept up to date as ClusterRoles come, change and go. It acts through the store, as the
 * real controller acts through the API, after the change that triggered it (the rules are
 * eventually consistent, settled before the server reads the next request).
 *
 * @module
 */
import { labelSelectorFromLabelSelector } from 'kube-controller-kit';
import type { LabelSelector, LabelSelectorSpec } from 'kube-controller-kit';
import type { PolicyRule, Role } from './rbac.js';

/** What the controller reads and writes. */
export interface AggregationTarget {
  /** Every ClusterRole. */
  clusterRoles(): Role[];
  /** Replaces the rules of a ClusterRole. */
  setRules(name: string, rules: PolicyRule[]): void;
}

function selectors(role: Role): LabelSelector[] {
  const out: LabelSelector[] = [];
  for (const s of role.aggregationRule?.clusterRoleSelectors ?? []) {
    try {
      out.push(labelSelectorFromLabelSelector(s as LabelSelectorSpec));
    } catch {
      // A selector that does not parse selects nothing (validation refuses it on write).
    }
  }
  return out;
}

/** The rules an aggregated ClusterRole should have, from the others. */
export function aggregatedRules(role: Role, all: readonly Role[]): PolicyRule[] {
  const sel = selectors(role);
  const name = role.metadata?.name;
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  const sorted = [...all].sort((a, b) =>
    (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
  );
  for (const other of sorted) {
    if (other.metadata?.name === name) continue;
    if (!sel.some((s) => s.matches(other.metadata?.labels))) continue;
    for (const r of other.rules ?? []) {
      const key = JSON.stringify(r);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(structuredClone(r));
    }
  }
  return rules;
}

/** Keeps aggregated ClusterRoles' rules up to date. */
export class ClusterRoleAggregator {
  readonly #target: AggregationTarget;
  #scheduled = false;

  constructor(target: AggregationTarget) {
    this.#target = target;
  }

  /** Brings every aggregated ClusterRole up to date now (until nothing changes). */
  sync(): void {
    for (let pass = 0; pass < 16; pass++) {
      let changed = false;
      const all = this.#target.clusterRoles();
      for (const role of all) {
        if (role.aggregationRule === undefined || role.aggregationRule === null) continue;
        const rules = aggregatedRules(role, all);
        if (JSON.stringify(rules) === JSON.stringify(role.rules ?? [])) continue;
        this.#target.setRules(role.metadata?.name ?? '', rules);
        changed = true;
      }
      if (!changed) return;
    }
  }

  /** Syncs after the current change has been committed (coalesced). */
  schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    queueMicrotask(() => {
      this.#scheduled = false;
      this.sync();
    });
  }
}
