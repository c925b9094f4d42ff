/**
 * JSON from the network, decoded with a nesting limit: what every server of the kit parses
 * a request body with.
 *
 * `JSON.parse` itself takes any depth, but what follows it does not: `JSON.stringify`,
 * `structuredClone` and every recursive walk overflow V8's stack a few thousand levels down
 * (`JSON.stringify` near 4,100 and `structuredClone` near 3,300 arrays deep on Node's
 * default stack), and a `RangeError` from there surfaces as a 500 ("panic: Maximum call
 * stack size exceeded") for what is bad input. Go's `encoding/json` (and so kube-apiserver
 * and controller-runtime) refuses input nested deeper than 10,000; the kit refuses deeper
 * than {@link MAX_JSON_DEPTH} (1,000), which leaves a handler's own recursion room to run.
 * No Kubernetes object comes near either.
 *
 * @module
 */
import { KubeControllerKitError } from './errors.js';

/**
 * The deepest nesting of arrays and objects a body may have: 1,000 (Go's `encoding/json`
 * allows 10,000, more than V8's stack survives in `JSON.stringify`).
 */
export const MAX_JSON_DEPTH = 1000;

/** A body that is not JSON, or is nested deeper than the limit. */
export class JsonDecodeError extends KubeControllerKitError {
  /** The character offset the problem was found at, when known. */
  readonly offset: number | undefined;

  /**
   * @param message - what was wrong.
   * @param offset - where, as a character offset.
   */
  constructor(message: string, offset?: number, options?: ErrorOptions) {
    super(message, options);
    this.offset = offset;
  }
}

/** Options of {@link parseJson}. */
export interface ParseJsonOptions {
  /** The deepest nesting allowed (default {@link MAX_JSON_DEPTH}). */
  maxDepth?: number;
}

/**
 * Offset of the first `[` or `{` past `maxDepth` levels, outside strings; -1 when the text
 * stays within it. One pass over the characters (about a tenth of `JSON.parse`'s time);
 * malformed text is left to `JSON.parse`.
 */
export function jsonDepthExceededAt(text: string, maxDepth: number): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string: up to the next quote not escaped by a backslash.
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return -1;
}

/**
 * `JSON.parse` with a nesting limit.
 *
 * @throws {@link JsonDecodeError} when `text` is not JSON (the parser's message) or nests
 * deeper than `maxDepth` (the message names the limit and the offset).
 */
export function parseJson(text: string, options: ParseJsonOptions = {}): unknown {
  const maxDepth = options.maxDepth ?? MAX_JSON_DEPTH;
  const at = jsonDepthExceededAt(text, maxDepth);
  if (at !== -1) {
    throw new JsonDecodeError(`JSON nested deeper than ${maxDepth} levels at offset ${at}`, at);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new JsonDecodeError((err as Error).message, undefined, { cause: err });
  }
}
