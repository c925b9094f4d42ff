/**
 * Feature gates of the test API server, as kube-apiserver's `--feature-gates`: alpha
 * behaviour that is off unless asked for. One gate today, `ShardedListAndWatch`
 * (KEP-5866, alpha in Kubernetes 1.36): the `shardSelector` parameter of list, watch and
 * deletecollection.
 *
 * @module
 */
import type { ShardRange } from 'kube-controller-kit';
import {
  KubeControllerKitError,
  parseShardSelector,
  ShardSelectorParseError,
} from 'kube-controller-kit';
import { statusError } from './status.js';

/** The feature gates the test API server knows, all off by default (alpha). */
export interface TestApiServerFeatureGates {
  /**
   * Server-side sharded list and watch (KEP-5866): lists, watches and deletecollection
   * honour `shardSelector`, and a filtered list says so in `metadata.shardInfo`. Off, the
   * parameter is ignored (everything is returned, without `shardInfo`), as a server
   * without the gate does.
   */
  ShardedListAndWatch?: boolean;
}

/** The gates the server knows, for the CLI's validation. */
export const knownFeatureGates: readonly (keyof TestApiServerFeatureGates)[] = Object.freeze([
  'ShardedListAndWatch',
]);

/** A `--feature-gates` value that does not parse. */
export class FeatureGatesParseError extends KubeControllerKitError {}

/**
 * Parses `Gate=true,Other=false` as kube-apiserver's `--feature-gates` does.
 *
 * @throws {@link FeatureGatesParseError} for a malformed pair, an unknown gate or a value
 *   that is not a boolean, in kube-apiserver's words.
 */
export function parseFeatureGates(text: string): TestApiServerFeatureGates {
  const gates: TestApiServerFeatureGates = {};
  for (const pair of text.split(',')) {
    const trimmed = pair.trim();
    if (trimmed === '') continue;
    const eq = trimmed.indexOf('=');
    if (eq < 0) throw new FeatureGatesParseError(`missing bool value for ${trimmed}`);
    const key = trimmed.slice(0, eq).trim();
    const value = trimmed.slice(eq + 1).trim();
    if (!(knownFeatureGates as readonly string[]).includes(key))
      throw new FeatureGatesParseError(`unrecognized feature gate: ${key}`);
    const bool = parseGoBool(value);
    if (bool === undefined)
      throw new FeatureGatesParseError(
        `invalid value of ${key}=${value}, err: strconv.ParseBool: parsing ${JSON.stringify(value)}: invalid syntax`,
      );
    gates[key as keyof TestApiServerFeatureGates] = bool;
  }
  return gates;
}

/** Go's `strconv.ParseBool`. */
function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

/** A `shardSelector` the server applies: its text (echoed in `shardInfo`) and its ranges. */
export interface ShardQuery {
  /** The selector as sent. */
  readonly selector: string;
  /** Its parsed ranges. */
  readonly ranges: readonly ShardRange[];
}

/**
 * The `shardSelector` of a list or watch query: undefined when absent or empty, or when
 * the gate is off (the parameter is then ignored, as by a server without the gate).
 *
 * @throws a 422 Invalid Status error for a malformed selector with the gate on.
 */
export function parseShardQuery(
  q: URLSearchParams,
  gates: TestApiServerFeatureGates,
): ShardQuery | undefined {
  if (gates.ShardedListAndWatch !== true) return undefined;
  const selector = q.get('shardSelector');
  if (selector === null || selector === '') return undefined;
  try {
    return { selector, ranges: parseShardSelector(selector) };
  } catch (err) {
    if (!(err instanceof ShardSelectorParseError)) throw err;
    const cause = `Invalid value: ${JSON.stringify(selector)}: ${err.reason}`;
    throw statusError(
      422,
      'Invalid',
      `ListOptions.meta.k8s.io "" is invalid: shardSelector: ${cause}`,
      {
        group: 'meta.k8s.io',
        kind: 'ListOptions',
        name: '',
        causes: [{ reason: 'FieldValueInvalid', message: cause, field: 'shardSelector' }],
      },
    );
  }
}
