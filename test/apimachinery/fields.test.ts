import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  escapeFieldValue,
  fieldSelectorFromSet,
  parseFieldSelector,
} from '../../src/apimachinery/fields.js';
import { SelectorParseError } from '../../src/apimachinery/selector_error.js';

function parseError(text: string): SelectorParseError {
  try {
    parseFieldSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorParseError, `expected SelectorParseError, got ${String(err)}`);
    return err;
  }
  assert.fail(`parsing ${JSON.stringify(text)} should have failed`);
}

describe('parseFieldSelector', () => {
  test('field=value matches only that value', () => {
    const s = parseFieldSelector('metadata.name=web');
    assert.equal(s.matches({ 'metadata.name': 'web' }), true);
    assert.equal(s.matches({ 'metadata.name': 'db' }), false);
  });

  test('== means the same as = and renders as =', () => {
    const s = parseFieldSelector('a==b');
    assert.deepEqual(s.requirements, [{ field: 'a', operator: '=', value: 'b' }]);
    assert.equal(s.toString(), 'a=b');
  });

  test('!= matches other values and missing fields', () => {
    const s = parseFieldSelector('status.phase!=Running');
    assert.equal(s.matches({ 'status.phase': 'Pending' }), true);
    assert.equal(s.matches({}), true);
    assert.equal(s.matches({ 'status.phase': 'Running' }), false);
  });

  test('a missing field reads as the empty string, so a= matches it', () => {
    assert.equal(parseFieldSelector('a=').matches({}), true);
    assert.equal(parseFieldSelector('a=').matches({ a: 'x' }), false);
  });

  test('comma-joined terms must all hold', () => {
    const s = parseFieldSelector('a=1,b!=2');
    assert.equal(s.matches({ a: '1', b: '3' }), true);
    assert.equal(s.matches({ a: '1', b: '2' }), false);
    assert.equal(s.matches({ a: '0', b: '3' }), false);
  });

  test('terms are sorted when rendered, as client-go sorts them', () => {
    assert.equal(parseFieldSelector('b=2,a=1').toString(), 'a=1,b=2');
  });

  test('the empty string and empty terms select everything', () => {
    assert.equal(parseFieldSelector('').isEmpty(), true);
    assert.equal(parseFieldSelector('').matches({ a: 'b' }), true);
    assert.equal(parseFieldSelector('a=b,,').requirements.length, 1);
  });

  test('backslash escapes comma, equals and backslash in values', () => {
    const s = parseFieldSelector('a=x\\,y\\=z\\\\,b=2');
    assert.deepEqual(s.requirements[0], { field: 'a', operator: '=', value: 'x,y=z\\' });
    assert.equal(s.matches({ a: 'x,y=z\\', b: '2' }), true);
    assert.equal(s.toString(), 'a=x\\,y\\=z\\\\,b=2');
  });

  test('rendering then parsing gives the same selector', () => {
    const s = parseFieldSelector('x!=a\\=b,metadata.namespace=n\\,s');
    assert.deepEqual(parseFieldSelector(s.toString()).requirements, s.requirements);
  });

  test('an unknown escape sequence fails with its position', () => {
    const err = parseError('a=b\\q');
    assert.equal(err.position, 3);
    assert.match(err.message, /invalid escape sequence '\\q'/);
  });

  test('a trailing lone backslash fails', () => {
    assert.match(parseError('a=x\\').message, /lone backslash/);
  });

  test('an unescaped = in a value fails with its position', () => {
    const err = parseError('a=b=c');
    assert.equal(err.position, 3);
    assert.equal(err.input, 'a=b=c');
  });

  test('a term without an operator fails', () => {
    const err = parseError('a=b,c');
    assert.equal(err.position, 4);
    assert.match(err.message, /can't understand "c"/);
  });

  test('an empty field name fails', () => {
    assert.match(parseError('=x').message, /field name .* is empty/);
  });
});

describe('fieldSelectorFromSet', () => {
  test('requires every field=value of the set', () => {
    const s = fieldSelectorFromSet({ 'metadata.name': 'a,b', 'metadata.namespace': 'ns' });
    assert.equal(s.matches({ 'metadata.name': 'a,b', 'metadata.namespace': 'ns' }), true);
    assert.equal(s.matches({ 'metadata.name': 'a,b' }), false);
    assert.equal(s.toString(), 'metadata.name=a\\,b,metadata.namespace=ns');
  });

  test('an empty set selects everything', () => {
    assert.equal(fieldSelectorFromSet({}).isEmpty(), true);
  });

  test('escapeFieldValue escapes the three special characters', () => {
    assert.equal(escapeFieldValue('a\\b,c=d'), 'a\\\\b\\,c\\=d');
  });
});
