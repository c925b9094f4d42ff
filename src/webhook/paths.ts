/**
 * controller-runtime's webhook paths and kubebuilder's default webhook names.
 *
 * @module
 */

/** The object type a typed webhook is for: its group, version, kind and plural resource. */
export interface WebhookTarget {
  /** API group (`''` for the core group). */
  group: string;
  /** API version, e.g. `v1`. */
  version: string;
  /** Kind, e.g. `Application`. */
  kind: string;
  /** Plural resource name, e.g. `applications`. */
  resource: string;
  /** Scope for the rule (default `*`: namespaced and cluster-scoped). */
  scope?: 'Namespaced' | 'Cluster' | '*';
}

function suffix(target: Pick<WebhookTarget, 'group' | 'version' | 'kind'>): string {
  return `${target.group.replaceAll('.', '-')}-${target.version}-${target.kind.toLowerCase()}`;
}

/** `/mutate-<group, dots as dashes>-<version>-<lowercase kind>` (controller-runtime's `generateMutatePath`). */
export function mutatePath(target: Pick<WebhookTarget, 'group' | 'version' | 'kind'>): string {
  return `/mutate-${suffix(target)}`;
}

/** `/validate-<group, dots as dashes>-<version>-<lowercase kind>` (controller-runtime's `generateValidatePath`). */
export function validatePath(target: Pick<WebhookTarget, 'group' | 'version' | 'kind'>): string {
  return `/validate-${suffix(target)}`;
}

/** The conversion webhook's path. */
export const CONVERT_PATH = '/convert';

/** kubebuilder's default webhook name: `m<kind>-<version>.kb.io` or `v<kind>-<version>.kb.io`. */
export function defaultWebhookName(
  type: 'mutating' | 'validating',
  target: Pick<WebhookTarget, 'version' | 'kind'>,
): string {
  return `${type === 'mutating' ? 'm' : 'v'}${target.kind.toLowerCase()}-${target.version}.kb.io`;
}
