import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  everything,
  labelRequirement,
  labelSelectorFromLabelSelector,
  labelSelectorFromSet,
  nothing,
  parseLabelSelector,
} from '../../src/apimachinery/labels.js';
import { SelectorParseError } from '../../src/apimachinery/selector_error.js';
import { KubeControllerKitError } from '../../src/util/errors.js';

function parseError(text: string): SelectorParseError {
  try {
    parseLabelSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorParseError, `expected SelectorParseError, got ${String(err)}`);
    assert.ok(err instanceof KubeControllerKitError);
    return err;
  }
  assert.fail(`parsing ${JSON.stringify(text)} should have failed`);
}

const web = { app: 'web', tier: 'front' };

describe('parseLabelSelector: operators', () => {
  test('a=b and a==b require the label with that value', () => {
    for (const text of ['app=web', 'app==web']) {
      const s = parseLabelSelector(text);
      assert.equal(s.matches(web), true, text);
      assert.equal(s.matches({ app: 'db' }), false, text);
      assert.equal(s.matches({}), false, text);
      assert.equal(s.matches(undefined), false, text);
    }
  });

  test('a!=b matches other values and objects without the label', () => {
    const s = parseLabelSelector('app!=web');
    assert.equal(s.matches({ app: 'db' }), true);
    assert.equal(s.matches({}), true);
    assert.equal(s.matches(undefined), true);
    assert.equal(s.matches(web), false);
  });

  test('a in (x,y) requires one of the values', () => {
    const s = parseLabelSelector('app in (db, web)');
    assert.equal(s.matches(web), true);
    assert.equal(s.matches({ app: 'db' }), true);
    assert.equal(s.matches({ app: 'cache' }), false);
    assert.equal(s.matches({}), false);
  });

  test('a notin (x) matches other values and objects without the label', () => {
    const s = parseLabelSelector('app notin (web)');
    assert.equal(s.matches({ app: 'db' }), true);
    assert.equal(s.matches({}), true);
    assert.equal(s.matches(web), false);
  });

  test('a bare key requires the label to exist, !key requires it to be absent', () => {
    assert.equal(parseLabelSelector('tier').matches(web), true);
    assert.equal(parseLabelSelector('tier').matches({ app: 'x' }), false);
    assert.equal(parseLabelSelector('!tier').matches(web), false);
    assert.equal(parseLabelSelector('!tier').matches({ app: 'x' }), true);
    assert.equal(parseLabelSelector('!tier').matches(undefined), true);
  });

  test('a>n and a<n compare integers and fail on non-integer labels', () => {
    assert.equal(parseLabelSelector('rev>3').matches({ rev: '10' }), true);
    assert.equal(parseLabelSelector('rev>3').matches({ rev: '3' }), false);
    assert.equal(parseLabelSelector('rev<3').matches({ rev: '-1' }), true);
    assert.equal(parseLabelSelector('rev<3').matches({ rev: 'x' }), false);
    assert.equal(parseLabelSelector('rev<3').matches({}), false);
  });

  test('a= and a== mean the label equals the empty string', () => {
    const s = parseLabelSelector('app=');
    assert.equal(s.matches({ app: '' }), true);
    assert.equal(s.matches({ app: 'x' }), false);
    assert.equal(s.matches({}), false);
  });

  test('empty set values count: a in () means a in ("")', () => {
    assert.deepEqual(parseLabelSelector('a in ()').requirements[0]?.values, ['']);
    assert.deepEqual(parseLabelSelector('a in (x,)').requirements[0]?.values, ['', 'x']);
  });

  test('comma-joined requirements must all hold', () => {
    const s = parseLabelSelector('app=web,tier in (front),!canary');
    assert.equal(s.matches(web), true);
    assert.equal(s.matches({ ...web, canary: 'true' }), false);
    assert.equal(s.matches({ app: 'web', tier: 'back' }), false);
  });

  test('whitespace around tokens is ignored', () => {
    const s = parseLabelSelector('  app =  web ,\ttier\nin ( front , back ) ');
    assert.equal(s.toString(), 'app=web,tier in (back,front)');
  });

  test('a key with a DNS prefix is accepted', () => {
    const s = parseLabelSelector('app.kubernetes.io/name=web');
    assert.equal(s.matches({ 'app.kubernetes.io/name': 'web' }), true);
  });

  test('in and notin are keys where a key is expected', () => {
    assert.equal(parseLabelSelector('in=1').matches({ in: '1' }), true);
  });
});

describe('parseLabelSelector: empty, rendering', () => {
  test('the empty string selects everything', () => {
    const s = parseLabelSelector('');
    assert.equal(s.isEmpty(), true);
    assert.equal(s.matches(undefined), true);
    assert.equal(s.toString(), '');
    assert.equal(parseLabelSelector('   ').isEmpty(), true);
  });

  test('requirements are sorted by key and set values sorted when rendered', () => {
    const s = parseLabelSelector('z notin (b,a),a,!m,k>1,c!=d,e==f');
    assert.equal(s.toString(), 'a,c!=d,e==f,k>1,!m,z notin (a,b)');
    assert.deepEqual(
      s.requirements.map((r) => r.key),
      ['a', 'c', 'e', 'k', 'm', 'z'],
    );
  });

  test('rendering then parsing gives the same selector', () => {
    for (const text of ['a in (x,y),b!=c,!d,e', 'a=', 'x in ()', 'k<5', 'p.io/q==r']) {
      const s = parseLabelSelector(text);
      assert.equal(parseLabelSelector(s.toString()).toString(), s.toString(), text);
    }
  });
});

describe('parseLabelSelector: errors name the position and the problem', () => {
  test('a second operator after a value fails at that operator', () => {
    const err = parseError('a=b=c');
    assert.equal(err.position, 3);
    assert.equal(err.input, 'a=b=c');
    assert.match(err.message, /at position 3: found '=', expected: ',' or 'end of string'/);
  });

  test('in without parentheses fails at the value', () => {
    const err = parseError('a in x');
    assert.equal(err.position, 5);
    assert.match(err.message, /expected: '\('/);
  });

  test('an unclosed set fails at the end of the string', () => {
    const err = parseError('a in (x');
    assert.equal(err.position, 7);
    assert.match(err.message, /'end of string'/);
  });

  test('an empty requirement between commas fails', () => {
    assert.equal(parseError('a,,b').position, 2);
    assert.equal(parseError('a,').position, 2);
    assert.equal(parseError(',a').position, 0);
  });

  test('an unknown operator fails naming the valid ones', () => {
    const err = parseError('a!b');
    assert.equal(err.position, 1);
    assert.match(err.message, /expected one of: in, notin, =, ==, !=, >, </);
  });

  test('!key followed by an operator fails', () => {
    assert.equal(parseError('!a=b').position, 2);
  });

  test('a label value over 63 characters fails with the limit in the message', () => {
    const err = parseError(`a=${'v'.repeat(64)}`);
    assert.equal(err.position, 2);
    assert.match(err.message, /longer than 63 characters/);
    parseLabelSelector(`a=${'v'.repeat(63)}`);
  });

  test('a value with invalid characters or edges fails', () => {
    assert.match(parseError('a=-x').message, /start and end with an alphanumeric/);
    assert.match(parseError('a in (ok,b@d)').message, /label value "b@d"/);
  });

  test('a key name over 63 characters fails', () => {
    assert.match(parseError(`${'k'.repeat(64)}=v`).message, /name part .* longer than 63/);
  });

  test('a key with more than one slash or a bad prefix fails', () => {
    assert.match(parseError('a/b/c=1').message, /more than one '\/'/);
    assert.match(parseError('Bad_Prefix/x=1').message, /DNS-1123 subdomain/);
    assert.match(parseError('/x=1').message, /empty prefix/);
    assert.match(parseError('p.io/=1').message, /empty name part/);
  });

  test('> and < need an integer', () => {
    assert.match(parseError('a>x').message, /needs an integer value/);
  });
});

describe('everything and nothing', () => {
  test('everything selects every label set and renders empty', () => {
    assert.equal(everything().matches(undefined), true);
    assert.equal(everything().isEmpty(), true);
    assert.equal(everything().matchesNothing(), false);
  });

  test('nothing selects no label set, is not empty, and says it matches nothing', () => {
    assert.equal(nothing().matches({}), false);
    assert.equal(nothing().matches(undefined), false);
    assert.equal(nothing().isEmpty(), false);
    assert.equal(nothing().matchesNothing(), true);
    assert.equal(nothing().toString(), '');
  });
});

describe('labelSelectorFromSet', () => {
  test('requires every key=value of the set, sorted by key', () => {
    const s = labelSelectorFromSet({ tier: 'front', app: 'web' });
    assert.equal(s.toString(), 'app=web,tier=front');
    assert.equal(s.matches(web), true);
    assert.equal(s.matches({ app: 'web' }), false);
  });

  test('an empty or absent set selects everything', () => {
    assert.equal(labelSelectorFromSet({}).isEmpty(), true);
    assert.equal(labelSelectorFromSet(undefined).isEmpty(), true);
  });

  test('an invalid value is rejected with a typed error', () => {
    assert.throws(() => labelSelectorFromSet({ a: 'x'.repeat(64) }), SelectorParseError);
  });
});

describe('labelSelectorFromLabelSelector (metav1.LabelSelector)', () => {
  test('matchLabels and matchExpressions combine with AND', () => {
    const s = labelSelectorFromLabelSelector({
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'In', values: ['front', 'back'] },
        { key: 'env', operator: 'NotIn', values: ['dev'] },
        { key: 'team', operator: 'Exists' },
        { key: 'canary', operator: 'DoesNotExist' },
      ],
    });
    assert.equal(s.toString(), 'app=web,!canary,env notin (dev),team,tier in (back,front)');
    assert.equal(s.matches({ ...web, team: 'a' }), true);
    assert.equal(s.matches({ ...web, team: 'a', env: 'dev' }), false);
    assert.equal(s.matches({ ...web, team: 'a', canary: '1' }), false);
    assert.equal(s.matches(web), false);
  });

  test('null or undefined selects nothing; an empty selector selects everything', () => {
    assert.equal(labelSelectorFromLabelSelector(null).matchesNothing(), true);
    assert.equal(labelSelectorFromLabelSelector(undefined).matches({}), false);
    assert.equal(labelSelectorFromLabelSelector({}).isEmpty(), true);
    assert.equal(
      labelSelectorFromLabelSelector({ matchLabels: {}, matchExpressions: [] }).isEmpty(),
      true,
    );
  });

  test('an unknown operator is rejected with a typed error naming it', () => {
    assert.throws(
      () =>
        labelSelectorFromLabelSelector({
          matchExpressions: [{ key: 'a', operator: 'Gt', values: ['1'] }],
        }),
      (err: unknown) =>
        err instanceof SelectorParseError &&
        /"Gt" is not a valid label selector operator/.test(err.message),
    );
  });

  test('In without values and Exists with values are rejected', () => {
    assert.throws(
      () =>
        labelSelectorFromLabelSelector({
          matchExpressions: [{ key: 'a', operator: 'In', values: [] }],
        }),
      /'in' needs at least one value/,
    );
    assert.throws(
      () =>
        labelSelectorFromLabelSelector({
          matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }],
        }),
      /take no values/,
    );
  });
});

describe('labelRequirement', () => {
  test('validates its key and values', () => {
    assert.equal(labelRequirement('a', 'in', ['x', 'y']).toString(), 'a in (x,y)');
    assert.throws(() => labelRequirement('a b', 'exists'), SelectorParseError);
    assert.throws(() => labelRequirement('a', '=', ['x', 'y']), /exactly one value/);
  });
});
