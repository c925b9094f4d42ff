/**
 * The names a ring writes into the cluster: the label that assigns an object to a shard,
 * the label that asks a shard to let an object go, and the labels of the shard Leases.
 *
 * For a ring `R` under the domain `D` (default {@link DEFAULT_SHARDING_DOMAIN}):
 *
 * | label | on | value |
 * | --- | --- | --- |
 * | `shard.D/R` | sharded objects | the shard that owns the object |
 * | `drain.D/R` | sharded objects | present while the object moves away from its shard |
 * | `sharding.D/ring` | shard Leases | `R` |
 * | `sharding.D/shard` | shard Leases | the shard's name |
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/** The label domain used when none is given. */
export const DEFAULT_SHARDING_DOMAIN = 'kube-controller-kit.dev';

/** A ring, shard or domain name cannot be used in a label. */
export class ShardingNameError extends KubeControllerKitError {}

/** The label keys of one ring. */
export interface RingLabels {
  /** The ring's name. */
  readonly ring: string;
  /** `shard.<domain>/<ring>`: which shard owns an object. */
  readonly shard: string;
  /** `drain.<domain>/<ring>`: the object is being moved away from its shard. */
  readonly drain: string;
  /** `sharding.<domain>/ring`: on each shard Lease, the ring it belongs to. */
  readonly leaseRing: string;
  /** `sharding.<domain>/shard`: on each shard Lease, the shard's name. */
  readonly leaseShard: string;
}

const LABEL_NAME = /^[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/**
 * Checks that `value` can be a label value and a label-key name (at most 63 characters of
 * alphanumerics, `-`, `_` and `.`, starting and ending alphanumeric).
 *
 * @throws {@link ShardingNameError} naming `what` and the rule.
 *
 * @internal
 */
export function checkLabelName(what: string, value: string): void {
  if (value.length === 0 || value.length > 63 || !LABEL_NAME.test(value)) {
    throw new ShardingNameError(
      `${what} "${value}" cannot be used in a label: use 1-63 characters of letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
    );
  }
}

/**
 * The label keys of ring `ring` under `domain`.
 *
 * @throws {@link ShardingNameError} when the ring name or the domain cannot form a label key.
 */
export function ringLabels(ring: string, domain: string = DEFAULT_SHARDING_DOMAIN): RingLabels {
  checkLabelName('ring name', ring);
  const longest = `sharding.${domain}`;
  if (!DNS_SUBDOMAIN.test(domain) || longest.length > 253) {
    throw new ShardingNameError(
      `sharding domain "${domain}" is not a DNS subdomain (lower-case letters, digits, '-' and '.'), so it cannot prefix a label key`,
    );
  }
  return {
    ring,
    shard: `shard.${domain}/${ring}`,
    drain: `drain.${domain}/${ring}`,
    leaseRing: `sharding.${domain}/ring`,
    leaseShard: `sharding.${domain}/shard`,
  };
}
