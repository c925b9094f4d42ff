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
import { unknownError } from './status.js';

/**
 * The feature gates the test API server knows, all off by default (alpha).
 *
 * @group Server
 */
export interface TestApiServerFeatureGates {
  /**
   * Server-side sharded list and watch (KEP-5866): lists, watches and deletecollection
   * honour `shardSelector`, and a filtered list says so in `metadata.shardInfo`. Off, the
   * parameter is ignored (everything is returned, without `shardInfo`), as a server
   * without the gate does.
   */
  ShardedListAndWatch?: boolean;
}

/**
 * The gates the server knows, for the CLI's validation.
 *
 * @internal
 */
export const knownFeatureGates: readonly (keyof TestApiServerFeatureGates)[] = Object.freeze([
  'ShardedListAndWatch',
]);

/**
 * A `--feature-gates` value that does not parse.
 *
 * @internal
 */
export class FeatureGatesParseError extends KubeControllerKitError {}

/**
 * Parses `Gate=true,Other=false` as kube-apiserver's `--feature-gates` does.
 *
 * @throws {@link FeatureGatesParseError} for a malformed pair, an unknown gate or a value
 *   that is not a boolean, in kube-apiserver's words.
 *
 * @internal
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
 * @throws a 500 Status without a reason for a selector kube-apiserver's parser refuses,
 *   with its words (`invalid shard selector: hexStart must be a 0x-prefixed 16-digit hex
 *   value, got "0x0" (did you mean "0x0000000000000000"?)`): kube-apiserver 1.36 answers a
 *   selector error as an error that is not an API status.
 */
export function parseShardQuery(
  q: URLSearchParams,
  gates: TestApiServerFeatureGates,
): ShardQuery | undefined {
  if (gates.ShardedListAndWatch !== true) return undefined;
  const selector = q.get('shardSelector');
  if (selector === null || selector === '') return undefined;
  const refused = shardSelectorError(selector);
  if (refused !== undefined) throw unknownError(`invalid shard selector: ${refused}`);
  try {
    return { selector, ranges: parseShardSelector(selector) };
  } catch (err) {
    if (!(err instanceof ShardSelectorParseError)) throw err;
    throw unknownError(`invalid shard selector: ${err.reason}`);
  }
}

const SUPPORTED_PATHS = ['object.metadata.uid', 'object.metadata.namespace'];
const FIELD_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;
const TOP_BOUND = '0x10000000000000000';

/**
 * What kube-apiserver's shard selector parser (k8s.io/apiserver's `sharding.Parse`) says of
 * `text`, in its words, or undefined when it accepts it. Stricter than the kit's own parser,
 * which the client also uses: a bound has exactly 16 lower-case hex digits (or is 2^64),
 * every range hashes the same field, and another function or operator than `shardRange`
 * and `||` is named. A text that is not an expression at all is a `CEL parse error`, with
 * this server's words after it (cel-go's parser words it its own way).
 */
function shardSelectorError(text: string): string | undefined {
  const expr = text.trim();
  if (expr === '')
    return 'empty shard selector is not allowed; omit the parameter for unfiltered lists';
  const terms: { fn: string; args: string[] }[] = [];
  let rest = expr;
  for (;;) {
    const m = /^([A-Za-z_][A-Za-z0-9_]*)\s*\(((?:'[^']*'|[^()'])*)\)\s*/.exec(rest);
    if (m === null)
      return `CEL parse error: not a function call at ${JSON.stringify(rest.slice(0, 24))}`;
    const args = (m[2] as string).trim() === '' ? [] : splitArgs(m[2] as string);
    terms.push({ fn: m[1] as string, args });
    rest = rest.slice(m[0].length);
    if (rest === '') break;
    const op = /^(\|\||&&)\s*/.exec(rest);
    if (op === null) return `CEL parse error: unexpected ${JSON.stringify(rest.slice(0, 24))}`;
    if (op[1] === '&&') return 'unsupported function "_&&_"; only shardRange() and || are allowed';
    rest = rest.slice(op[0].length);
  }
  let key: string | undefined;
  for (const { fn, args } of terms) {
    if (fn !== 'shardRange')
      return `unsupported function ${JSON.stringify(fn)}; only shardRange() and || are allowed`;
    if (args.length !== 3) return `shardRange() requires exactly 3 arguments, got ${args.length}`;
    const [path, start, end] = args as [string, string, string];
    if (!FIELD_PATH.test(path))
      return 'shardRange() first argument: expected field path (e.g. object.metadata.uid)';
    if (!SUPPORTED_PATHS.includes(path))
      return `unsupported field path ${JSON.stringify(path)}; supported: ${SUPPORTED_PATHS.join(', ')}`;
    const hexStart = hexLiteral(start, 'hexStart');
    if (hexStart.error !== undefined) return hexStart.error;
    const hexEnd = hexLiteral(end, 'hexEnd');
    if (hexEnd.error !== undefined) return hexEnd.error;
    if (BigInt(hexStart.value) >= BigInt(hexEnd.value))
      return `shard range start ${hexStart.value} must be less than end ${hexEnd.value}`;
    if (key !== undefined && key !== path)
      return `all shard ranges must use the same field, got ${JSON.stringify(key)} and ${JSON.stringify(path)}`;
    key = path;
  }
  return undefined;
}

/** The arguments of a call, split at commas outside single quotes, trimmed. */
function splitArgs(text: string): string[] {
  const out: string[] = [];
  let quoted = false;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === "'") quoted = !quoted;
    else if (text[i] === ',' && !quoted) {
      out.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  out.push(text.slice(from).trim());
  return out;
}

/** A bound as kube-apiserver's `extractHexLiteral` checks it, in the order it checks. */
function hexLiteral(
  arg: string,
  name: string,
): { value: string; error?: undefined } | { value?: undefined; error: string } {
  const m = /^'([^']*)'$/.exec(arg);
  if (m === null) return { error: `${name} must be a string literal (e.g. '0xff')` };
  const s = m[1] as string;
  if (!s.startsWith('0x'))
    return { error: `${name} must have '0x' prefix, got ${JSON.stringify(s)}` };
  const hex = s.slice(2);
  if (hex === '') return { error: `${name}: hex value is required after '0x'` };
  if (hex.length > 17)
    return {
      error: `${name}: hex value too long (${hex.length} chars, max 17): ${JSON.stringify(hex)}`,
    };
  for (const c of hex) {
    if (!/[0-9a-f]/.test(c))
      return {
        error: `${name}: invalid hex character ${JSON.stringify(c)} in ${JSON.stringify(s)}`,
      };
  }
  if (hex.length === 17) {
    if (s !== TOP_BOUND)
      return {
        error: `${name}: 17-digit hex value must be '${TOP_BOUND}' (2^64), got ${JSON.stringify(s)}`,
      };
  } else if (hex.length !== 16) {
    const padded = `0x${hex.padStart(16, '0')}`;
    return {
      error: `${name} must be a 0x-prefixed 16-digit hex value, got ${JSON.stringify(s)} (did you mean ${JSON.stringify(padded)}?)`,
    };
  }
  return { value: s };
}
