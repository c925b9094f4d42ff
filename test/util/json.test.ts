// The bounded JSON decode of every server body (src/util/json.ts): Go's encoding/json refuses
// input nested past its limit (10,000) as a decode error; the kit refuses past MAX_JSON_DEPTH
// (1,000), which leaves room for JSON.stringify and structuredClone (they overflow V8's stack
// a few thousand levels down), with a typed JsonDecodeError naming the limit and the offset.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  JsonDecodeError,
  MAX_JSON_DEPTH,
  jsonDepthExceededAt,
  parseJson,
} from '../../src/util/json.js';

const arrays = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
const objects = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);

describe('parseJson', () => {
  test('100,000-deep arrays and objects are a JsonDecodeError naming the limit, not a stack overflow', () => {
    for (const text of [arrays(100_000), objects(100_000)]) {
      assert.throws(
        () => parseJson(text),
        (err: unknown) =>
          err instanceof JsonDecodeError &&
          err.offset !== undefined &&
          /nested deeper than 1000 levels at offset \d+/.test(err.message),
      );
    }
  });

  test('exactly MAX_JSON_DEPTH levels parse, and what parses survives JSON.stringify and structuredClone', () => {
    assert.equal(MAX_JSON_DEPTH, 1000);
    for (const text of [arrays(MAX_JSON_DEPTH), objects(MAX_JSON_DEPTH)]) {
      const value = parseJson(text);
      assert.equal(JSON.stringify(value), text);
      structuredClone(value);
    }
    assert.throws(() => parseJson(arrays(MAX_JSON_DEPTH + 1)), JsonDecodeError);
  });

  test('the offset is that of the first bracket past the limit; brackets inside strings do not count', () => {
    assert.equal(jsonDepthExceededAt('[[[]]]', 2), 2);
    assert.equal(jsonDepthExceededAt('{"a":{"b":{}}}', 2), 10);
    assert.equal(jsonDepthExceededAt('["[[[[", "\\"[[[["]', 1), -1);
    // An escaped backslash ends before the quote: the string closes there.
    assert.equal(jsonDepthExceededAt('{"k\\\\":[[1]]}', 2), 8);
    assert.deepEqual(parseJson('{"a":"[[[[[","b":"\\"{{{{"}', { maxDepth: 1 }), {
      a: '[[[[[',
      b: '"{{{{',
    });
  });

  test('text that is not JSON is a JsonDecodeError with the parser message as cause', () => {
    for (const text of ['', '{', '{"a":}', 'nul', '[1,]', '"\\x"']) {
      assert.throws(
        () => parseJson(text),
        (err: unknown) => err instanceof JsonDecodeError && err.cause instanceof SyntaxError,
      );
    }
  });
});
