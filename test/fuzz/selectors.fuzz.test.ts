// Fuzzing the label and field selector parsers (src/cache/labels.ts, src/cache/fields.ts):
// random text parses or fails with a SelectorParseError pointing into the input; rendered
// selectors parse back to the same selector; matching agrees with a small reference model.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { escapeFieldValue, parseFieldSelector } from '../../src/apimachinery/fields.js';
import type { FieldSelector } from '../../src/apimachinery/fields.js';
import {
  labelRequirement,
  labelSelectorFromRequirements,
  parseLabelSelector,
} from '../../src/apimachinery/labels.js';
import type { LabelOperator, LabelSelector } from '../../src/apimachinery/labels.js';
import { SelectorParseError } from '../../src/apimachinery/selector_error.js';

const RUNS = 1000;

/** Parses with `parse`; any failure must be a SelectorParseError with a position in the input. */
function parseOrTypedError<S>(parse: (s: string) => S, input: string): S | SelectorParseError {
  try {
    return parse(input);
  } catch (err) {
    assert.ok(
      err instanceof SelectorParseError,
      `${JSON.stringify(input)} threw ${String(err)}, not a SelectorParseError`,
    );
    assert.equal(err.input, input);
    assert.ok(
      Number.isInteger(err.position) && err.position >= 0 && err.position <= input.length,
      `position ${err.position} is outside ${JSON.stringify(input)}`,
    );
    assert.ok(err.message.includes(`at position ${err.position}`), err.message);
    return err;
  }
}

/** Text made mostly of the selector grammar's own characters and words, plus some noise. */
function grammarText(pieces: readonly string[]): fc.Arbitrary<string> {
  return fc
    .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...pieces) }, fc.string()), {
      maxLength: 14,
    })
    .map((parts) => parts.join(''));
}

// ---- labels ----------------------------------------------------------------------------

const labelPieces = [
  'app',
  'tier',
  'example.com/role',
  'a/b/c',
  '-bad',
  'x'.repeat(64),
  'web',
  '1',
  '-3',
  '',
  ' ',
  '\t',
  '=',
  '==',
  '!=',
  '!',
  '>',
  '<',
  '(',
  ')',
  ',',
  ' in ',
  ' notin ',
  'in',
  '/',
  '.',
  'é',
  '🙂',
];

const KEYS = ['app', 'tier', 'example.com/role', 'k8s.io/x_y', 'n'];
const VALUES = ['', 'a', 'b', 'web', 'x.y-z', '1', '10'];
const INTS = ['0', '1', '10', '-3', '+2', '007'];

interface GenRequirement {
  key: string;
  op: LabelOperator;
  values: string[];
}

const genRequirementArb: fc.Arbitrary<GenRequirement> = fc.oneof(
  fc.record({
    key: fc.constantFrom(...KEYS),
    op: fc.constantFrom<LabelOperator>('=', '==', '!='),
    values: fc.constantFrom(...VALUES).map((v) => [v]),
  }),
  fc.record({
    key: fc.constantFrom(...KEYS),
    op: fc.constantFrom<LabelOperator>('in', 'notin'),
    values: fc.array(fc.constantFrom(...VALUES), { minLength: 1, maxLength: 4 }),
  }),
  fc.record({
    key: fc.constantFrom(...KEYS),
    op: fc.constantFrom<LabelOperator>('exists', '!'),
    values: fc.constant<string[]>([]),
  }),
  fc.record({
    key: fc.constantFrom(...KEYS),
    op: fc.constantFrom<LabelOperator>('gt', 'lt'),
    values: fc.constantFrom(...INTS).map((v) => [v]),
  }),
);

/** One requirement written as a user might: random spacing around tokens. */
function writeRequirement(r: GenRequirement, sp: () => string): string {
  switch (r.op) {
    case 'exists':
      return `${sp()}${r.key}${sp()}`;
    case '!':
      return `${sp()}!${sp()}${r.key}${sp()}`;
    case 'in':
    case 'notin':
      return `${sp()}${r.key} ${r.op}${sp()}(${sp()}${r.values.join(`${sp()},${sp()}`)}${sp()})${sp()}`;
    case 'gt':
      return `${sp()}${r.key}${sp()}>${sp()}${r.values[0]}${sp()}`;
    case 'lt':
      return `${sp()}${r.key}${sp()}<${sp()}${r.values[0]}${sp()}`;
    default:
      return `${sp()}${r.key}${sp()}${r.op}${sp()}${r.values[0]}${sp()}`;
  }
}

/** The reference: one requirement against a label map, written from the documented rules. */
function referenceMatch(r: GenRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, r.key);
  const v = labels[r.key];
  switch (r.op) {
    case '=':
    case '==':
    case 'in':
      return has && r.values.includes(v as string);
    case '!=':
    case 'notin':
      return !has || !r.values.includes(v as string);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has || !/^[-+]?\d+$/.test(v as string)) return false;
      const n = Number(v);
      const bound = Number(r.values[0]);
      return r.op === 'gt' ? n > bound : n < bound;
    }
  }
}

const labelMapArb: fc.Arbitrary<Record<string, string>> = fc
  .array(fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...VALUES, ...INTS, 'zz')), {
    maxLength: 5,
  })
  .map((pairs) => Object.fromEntries(pairs));

function sameLabelSelector(a: LabelSelector, b: LabelSelector): void {
  assert.equal(a.toString(), b.toString());
  assert.deepEqual(
    a.requirements.map((r) => [r.key, r.operator, r.values]),
    b.requirements.map((r) => [r.key, r.operator, r.values]),
  );
}

describe('label selector fuzzing', () => {
  test('random text either parses or throws SelectorParseError with a position inside the input', () => {
    fc.assert(
      fc.property(fc.oneof(grammarText(labelPieces), fc.string({ unit: 'binary' })), (input) => {
        const out = parseOrTypedError(parseLabelSelector, input);
        if (!(out instanceof SelectorParseError)) {
          // Whatever parses renders to text that parses to the same selector.
          sameLabelSelector(parseLabelSelector(out.toString()), out);
        }
      }),
      { numRuns: RUNS * 3 },
    );
  });

  test('a generated selector round-trips (parse → toString → parse) and matches like the reference model', () => {
    fc.assert(
      fc.property(
        fc.array(genRequirementArb, { maxLength: 5 }),
        fc.array(fc.constantFrom('', ' ', '  ', '\t'), { minLength: 1, maxLength: 8 }),
        fc.array(labelMapArb, { minLength: 1, maxLength: 6 }),
        (reqs, spaces, maps) => {
          let i = 0;
          const sp = (): string => spaces[i++ % spaces.length] as string;
          const text = reqs.map((r) => writeRequirement(r, sp)).join(',');
          const parsed = parseLabelSelector(text);
          assert.equal(parsed.requirements.length, reqs.length, text);
          assert.equal(parsed.isEmpty(), reqs.length === 0);
          const again = parseLabelSelector(parsed.toString());
          sameLabelSelector(again, parsed);
          // The same requirements built from parts agree with the parsed ones.
          const built = labelSelectorFromRequirements(
            reqs.map((r) => labelRequirement(r.key, r.op, r.values)),
          );
          sameLabelSelector(built, parsed);
          for (const labels of maps) {
            const expected = reqs.every((r) => referenceMatch(r, labels));
            assert.equal(parsed.matches(labels), expected, `${text} on ${JSON.stringify(labels)}`);
            assert.equal(again.matches(labels), expected);
            assert.equal(built.matches(labels), expected);
          }
          if (reqs.length === 0) assert.equal(parsed.matches(undefined), true);
        },
      ),
      { numRuns: RUNS },
    );
  });

  test('a requirement on a label with an invalid key or value is a SelectorParseError, never a match', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('-a', 'a-', 'a b', 'x'.repeat(64), 'A/b', '/x', 'a/', 'a/b/c', 'é'),
        fc.constantFrom('=', '!=', ' in ', ' notin '),
        (bad, op) => {
          const asKey = op.trim().endsWith('in') ? `${bad}${op}(a)` : `${bad}${op}a`;
          const asValue = op.trim().endsWith('in') ? `app${op}(${bad})` : `app${op}${bad}`;
          for (const input of [asKey, asValue]) {
            const out = parseOrTypedError(parseLabelSelector, input);
            // 'a b' splits into tokens and `a/b/c` may be read as a longer key: both must
            // still fail rather than select something.
            assert.ok(out instanceof SelectorParseError, `${JSON.stringify(input)} parsed`);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

// ---- fields ----------------------------------------------------------------------------

const FIELDS = ['metadata.name', 'metadata.namespace', 'status.phase', 'spec.nodeName'];

const fieldPieces = [
  ...FIELDS,
  '=',
  '==',
  '!=',
  '!',
  ',',
  '\\',
  '\\,',
  '\\=',
  '\\\\',
  '\\n',
  ' ',
  'x',
  'Running',
  'é',
];

interface GenTerm {
  field: string;
  op: '=' | '==' | '!=';
  value: string;
}

// Values with the characters that need escaping, spaces and non-ASCII text.
const fieldValueArb = fc.oneof(
  fc.constantFrom('', 'web', 'a,b', 'a=b', 'back\\slash', '\\', ',', '=', ' x ', 'ünï', '🙂'),
  fc.string({ maxLength: 8 }),
);

const genTermArb: fc.Arbitrary<GenTerm> = fc.record({
  field: fc.constantFrom(...FIELDS),
  op: fc.constantFrom<GenTerm['op']>('=', '==', '!='),
  value: fieldValueArb,
});

function sameFieldSelector(a: FieldSelector, b: FieldSelector): void {
  assert.equal(a.toString(), b.toString());
  assert.deepEqual(
    a.requirements.map((r) => ({ ...r })),
    b.requirements.map((r) => ({ ...r })),
  );
}

describe('field selector fuzzing', () => {
  test('random text either parses or throws SelectorParseError with a position inside the input', () => {
    fc.assert(
      fc.property(fc.oneof(grammarText(fieldPieces), fc.string({ unit: 'binary' })), (input) => {
        const out = parseOrTypedError(parseFieldSelector, input);
        if (!(out instanceof SelectorParseError)) {
          sameFieldSelector(parseFieldSelector(out.toString()), out);
        }
      }),
      { numRuns: RUNS * 3 },
    );
  });

  test('regression: a blank trimmed before the operator never leaves a field that renders back with another meaning', () => {
    // Found by the property above: `\\ ==` parsed to the field `\\`, rendered as `\\=` (an
    // escaped '=' and no operator); `! =` parsed to the field `!`, rendered as `!=` (no
    // field); `a! =b` would have rendered as `a!=b`, field `a` with operator `!=`.
    for (const [input, problem] of [
      ['\\ ==', /lone backslash/],
      ['a\\\t=x', /lone backslash/],
      ['a=b,\\ !=c', /lone backslash/],
      ['! =', /ends with '!'/],
      ['a! =b', /ends with '!'/],
    ] as const) {
      const err = parseOrTypedError(parseFieldSelector, input);
      assert.ok(err instanceof SelectorParseError, `${JSON.stringify(input)} parsed`);
      assert.match(err.problem, problem);
    }
    // `a!=b` and `a != b` keep their meaning: field `a`, operator `!=`.
    for (const input of ['a!=b', 'a != b']) {
      assert.deepEqual(
        { ...parseFieldSelector(input).requirements[0] },
        {
          field: 'a',
          operator: '!=',
          value: input.includes(' ') ? ' b' : 'b',
        },
      );
    }
    // Without a blank, a '!' ending the field is the field's own: `a!!=b` is field `a!`
    // with operator `!=`, as in Kubernetes, and round-trips.
    const bang = parseFieldSelector('a!!=b');
    assert.deepEqual({ ...bang.requirements[0] }, { field: 'a!', operator: '!=', value: 'b' });
    sameFieldSelector(parseFieldSelector(bang.toString()), bang);
    // An even run of backslashes is an ordinary (if odd) field name and round-trips.
    const even = parseFieldSelector('a\\\\ =b');
    assert.equal(even.requirements[0]?.field, 'a\\\\');
    sameFieldSelector(parseFieldSelector(even.toString()), even);
  });

  test('generated terms with escaped values round-trip and match like the reference model', () => {
    fc.assert(
      fc.property(
        fc.array(genTermArb, { maxLength: 5 }),
        fc.array(
          fc.dictionary(fc.constantFrom(...FIELDS), fieldValueArb, { maxKeys: 4 }).map((d) => ({
            ...d,
          })),
          { minLength: 1, maxLength: 6 },
        ),
        (terms, objects) => {
          const text = terms.map((t) => `${t.field}${t.op}${escapeFieldValue(t.value)}`).join(',');
          const parsed = parseFieldSelector(text);
          assert.equal(parsed.requirements.length, terms.length, text);
          // Values come back unescaped, `==` is stored as `=`.
          assert.deepEqual(
            [...parsed.requirements.map((r) => `${r.field}\u0000${r.operator}\u0000${r.value}`)]
              .slice()
              .sort(),
            terms
              .map((t) => `${t.field}\u0000${t.op === '!=' ? '!=' : '='}\u0000${t.value}`)
              .sort(),
          );
          sameFieldSelector(parseFieldSelector(parsed.toString()), parsed);
          for (const fields of objects) {
            // Reference: a missing field reads as "", every term must hold.
            const expected = terms.every((t) => {
              const actual = Object.hasOwn(fields, t.field) ? (fields[t.field] as string) : '';
              return t.op === '!=' ? actual !== t.value : actual === t.value;
            });
            assert.equal(parsed.matches(fields), expected, `${text} on ${JSON.stringify(fields)}`);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });
});
