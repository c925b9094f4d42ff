/**
 * Shard selectors of server-side sharded list and watch (KEP-5866, Kubernetes 1.36 alpha,
 * feature gate `ShardedListAndWatch`): the grammar, the hash and the range test, shared
 * by the client (which builds selectors and filters on its side when a server ignores
 * them) and the in-memory API server (which applies them).
 *
 * ```
 * shardRange(object.metadata.uid, '0x0000000000000000', '0x8000000000000000')
 * shardRange(object.metadata.uid, '0x0', '0x4000000000000000') || shardRange(object.metadata.uid, '0x8000000000000000', '0x10000000000000000')
 * ```
 *
 * The field (`object.metadata.uid` or `object.metadata.namespace`) is hashed with 64-bit
 * FNV-1a over its UTF-8 bytes; an object matches when the hash lies in `[start, end)` of
 * any range. Bounds are single-quoted hexadecimal literals with a `0x` prefix; the end may
 * be `0x10000000000000000` (2^64) so that the last range includes the top hash.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/** The fields a shard range can hash. */
export type ShardField = 'object.metadata.uid' | 'object.metadata.namespace';

/** The fields a shard range can hash, in the server's order. */
export const shardFields: readonly ShardField[] = Object.freeze([
  'object.metadata.uid',
  'object.metadata.namespace',
]);

/** One `shardRange(field, start, end)`: hashes in `[start, end)` of `field`. */
export interface ShardRange {
  /** The field hashed. */
  readonly field: ShardField;
  /** Inclusive lower bound, in [0, 2^64). */
  readonly start: bigint;
  /** Exclusive upper bound, in (start, 2^64]. */
  readonly end: bigint;
}

/** The whole hash space's size, 2^64: the largest end bound. */
export const hashSpaceSize = 1n << 64n;

/** A shard selector that does not parse; the message names the position and the problem. */
export class ShardSelectorParseError extends KubeControllerKitError {
  /** The reason alone, without the selector (the server's error quotes it separately). */
  readonly reason: string;
  /** @param selector - the text; @param reason - what is wrong. */
  constructor(
    readonly selector: string,
    reason: string,
  ) {
    super(`invalid shard selector ${JSON.stringify(selector)}: ${reason}`);
    this.reason = reason;
  }
}

const FNV_OFFSET_HI = 0xcbf29ce4;
const FNV_OFFSET_LO = 0x84222325;
const TWO_32 = 0x1_0000_0000;
const encoder = new TextEncoder();

/**
 * 64-bit FNV-1a of the UTF-8 bytes of `value` (Go's `hash/fnv.New64a`), as an unsigned
 * bigint. Computed on two 32-bit halves (prime = 2^40 + 0x1b3), so one bigint per call.
 */
export function fnv1a64(value: string): bigint {
  let hi = FNV_OFFSET_HI;
  let lo = FNV_OFFSET_LO;
  const bytes = encoder.encode(value);
  for (let i = 0; i < bytes.length; i++) {
    lo = (lo ^ (bytes[i] as number)) >>> 0;
    // (hi·2^32 + lo) · (2^40 + 0x1b3) mod 2^64
    const loProduct = lo * 0x1b3;
    const carry = Math.floor(loProduct / TWO_32);
    const newLo = loProduct % TWO_32;
    const newHi = (hi * 0x1b3 + carry + (lo & 0xffffff) * 256) % TWO_32;
    hi = newHi;
    lo = newLo;
  }
  return (BigInt(hi) << 32n) | BigInt(lo);
}

/** Formats a bound as the server writes it: `0x` and 16 hex digits (17 for 2^64). */
export function formatShardBound(value: bigint): string {
  return `0x${value.toString(16).padStart(16, '0')}`;
}

/** The selector text for `ranges`, joined with ` || ` (one range per replica range). */
export function formatShardSelector(ranges: readonly ShardRange[]): string {
  return ranges
    .map(
      (r) => `shardRange(${r.field}, '${formatShardBound(r.start)}', '${formatShardBound(r.end)}')`,
    )
    .join(' || ');
}

/**
 * Parse a shard selector.
 *
 * @throws {@link ShardSelectorParseError} for anything but `shardRange(field, 'start',
 *   'end')` terms joined with `||`, an unsupported field, a bound that is not `0x` and hex
 *   digits, a start ≥ 2^64, an end > 2^64, or a start not below its end.
 */
export function parseShardSelector(text: string): ShardRange[] {
  const p = new Parser(text);
  const ranges: ShardRange[] = [];
  p.space();
  if (p.done()) throw p.fail('empty selector');
  for (;;) {
    ranges.push(p.range());
    p.space();
    if (p.done()) return ranges;
    p.expect('||');
  }
}

class Parser {
  #pos = 0;
  constructor(readonly text: string) {}
  done(): boolean {
    return this.#pos >= this.text.length;
  }
  space(): void {
    while (!this.done() && /\s/.test(this.text[this.#pos] as string)) this.#pos++;
  }
  fail(reason: string): ShardSelectorParseError {
    return new ShardSelectorParseError(this.text, reason);
  }
  expect(token: string): void {
    this.space();
    if (!this.text.startsWith(token, this.#pos))
      throw this.fail(
        `expected ${JSON.stringify(token)} at position ${this.#pos}${this.done() ? ' (end of input)' : `, found ${JSON.stringify(this.text.slice(this.#pos, this.#pos + 12))}`}`,
      );
    this.#pos += token.length;
  }
  range(): ShardRange {
    this.expect('shardRange');
    this.expect('(');
    this.space();
    const at = this.#pos;
    const m = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(this.text.slice(this.#pos));
    const path = m?.[0] ?? '';
    this.#pos += path.length;
    if (!(shardFields as readonly string[]).includes(path))
      throw this.fail(
        `unsupported field path ${JSON.stringify(path)} at position ${at}: supported paths are ${shardFields.join(', ')}`,
      );
    this.expect(',');
    const start = this.bound('start');
    this.expect(',');
    const end = this.bound('end');
    this.expect(')');
    if (start >= hashSpaceSize)
      throw this.fail(`start bound ${formatShardBound(start)} exceeds 0xffffffffffffffff`);
    if (end > hashSpaceSize)
      throw this.fail(`end bound ${formatShardBound(end)} exceeds 0x10000000000000000`);
    if (start >= end)
      throw this.fail(
        `start bound ${formatShardBound(start)} must be less than end bound ${formatShardBound(end)}`,
      );
    return { field: path as ShardField, start, end };
  }
  bound(which: string): bigint {
    this.space();
    const at = this.#pos;
    const m = /^'(0x[0-9a-fA-F]{1,17})'/.exec(this.text.slice(this.#pos));
    if (m === null)
      throw this.fail(
        `${which} bound at position ${at} must be a single-quoted hexadecimal string with a '0x' prefix, e.g. '0x8000000000000000'`,
      );
    this.#pos += m[0].length;
    return BigInt(m[1] as string);
  }
}

/** The value of `field` on an object (`""` when absent). */
export function shardFieldValue(obj: unknown, field: ShardField): string {
  const meta = (obj as { metadata?: { uid?: unknown; namespace?: unknown } } | null)?.metadata;
  const v = field === 'object.metadata.uid' ? meta?.uid : meta?.namespace;
  return typeof v === 'string' ? v : '';
}

/** Whether `obj`'s field hash lies in any of `ranges`. */
export function matchesShardRanges(obj: unknown, ranges: readonly ShardRange[]): boolean {
  let uidHash: bigint | undefined;
  let namespaceHash: bigint | undefined;
  for (const r of ranges) {
    let h: bigint;
    if (r.field === 'object.metadata.uid')
      h = uidHash ??= fnv1a64(shardFieldValue(obj, 'object.metadata.uid'));
    else h = namespaceHash ??= fnv1a64(shardFieldValue(obj, 'object.metadata.namespace'));
    if (h >= r.start && h < r.end) return true;
  }
  return false;
}

/**
 * A predicate for a shard selector, for filtering on the client when the server did not
 * apply it.
 *
 * @throws {@link ShardSelectorParseError} when `selector` is malformed.
 */
export function shardSelectorMatcher(selector: string): (obj: unknown) => boolean {
  const ranges = parseShardSelector(selector);
  return (obj) => matchesShardRanges(obj, ranges);
}
