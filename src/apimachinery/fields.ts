/**
 * Field selectors: Kubernetes' `fields.Selector` (`metadata.name=web,status.phase!=Running`).
 *
 * The rules are client-go's (`apimachinery/pkg/fields/selector.go`):
 * - terms are joined by unescaped `,`; each is `field=value`, `field==value` or
 *   `field!=value` (the first unescaped operator in the term wins);
 * - in values, `\,` `\=` and `\\` stand for `,` `=` and `\`; any other escape, a trailing
 *   backslash, or an unescaped `=` or `,` inside a value is an error;
 * - a field the object does not have reads as `""`, so `a=` matches objects without `a`
 *   and `a!=x` matches them too;
 * - `==` is stored and rendered as `=`; terms are sorted as client-go sorts them.
 *
 * Field names are not validated beyond being non-empty: which fields are selectable is the
 * API server's decision per resource.
 *
 * @module
 */
import { SelectorParseError } from './selector_error.js';

/** One term of a field selector. */
export interface FieldRequirement {
  /** The field path, e.g. `metadata.name`. */
  readonly field: string;
  /** `=` (also for `==`) or `!=`. */
  readonly operator: '=' | '!=';
  /** The unescaped value. */
  readonly value: string;
}

/** A parsed field selector: all terms must hold (logical AND). */
export interface FieldSelector {
  /** The terms, in client-go's order. */
  readonly requirements: readonly FieldRequirement[];
  /** Whether an object with these field values is selected (missing fields read as `""`). */
  matches(fields: Readonly<Record<string, string>>): boolean;
  /** True when the selector selects everything (no terms). */
  isEmpty(): boolean;
  /** The selector in query form, values escaped, as a `fieldSelector=` parameter takes it. */
  toString(): string;
}

/** Escapes `\`, `,` and `=` in a field selector value. */
export function escapeFieldValue(value: string): string {
  return value.replace(/[\\,=]/g, (c) => '\\' + c);
}

class Selector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];
  #text: string | undefined;

  constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = requirements;
  }

  matches(fields: Readonly<Record<string, string>>): boolean {
    for (const r of this.requirements) {
      const actual = Object.prototype.hasOwnProperty.call(fields, r.field)
        ? (fields[r.field] ?? '')
        : '';
      if ((actual === r.value) !== (r.operator === '=')) return false;
    }
    return true;
  }

  isEmpty(): boolean {
    return this.requirements.length === 0;
  }

  toString(): string {
    this.#text ??= this.requirements
      .map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`)
      .join(',');
    return this.#text;
  }
}

const EVERYTHING: FieldSelector = new Selector([]);

/** The field selector that selects everything. */
export function everythingFields(): FieldSelector {
  return EVERYTHING;
}

interface Part {
  text: string;
  pos: number;
}

function splitTerms(input: string): Part[] {
  const parts: Part[] = [];
  let start = 0;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i];
    if (ch === '\\') {
      i++;
    } else if (ch === ',') {
      parts.push({ text: input.slice(start, i), pos: start });
      start = i + 1;
    }
  }
  parts.push({ text: input.slice(start), pos: start });
  return parts;
}

function unescape(input: string, value: string, pos: number): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i] as string;
    if (ch === '\\') {
      const next = value[i + 1];
      if (next === undefined) {
        throw new SelectorParseError('field', input, pos + i, 'a value ends with a lone backslash');
      }
      if (next !== '\\' && next !== ',' && next !== '=') {
        throw new SelectorParseError(
          'field',
          input,
          pos + i,
          `invalid escape sequence '\\${next}'; only \\\\, \\, and \\= are allowed`,
        );
      }
      out += next;
      i++;
    } else if (ch === '=' || ch === ',') {
      throw new SelectorParseError(
        'field',
        input,
        pos + i,
        `unescaped '${ch}' in a value; write it as '\\${ch}'`,
      );
    } else {
      out += ch;
    }
  }
  return out;
}

function parseTerm(input: string, part: Part): FieldRequirement {
  const t = part.text;
  for (let i = 0; i < t.length; i++) {
    const ch = t[i];
    if (ch === '\\') {
      i++;
      continue;
    }
    let op: '=' | '!=' | undefined;
    let len = 0;
    if (ch === '!' && t[i + 1] === '=') {
      op = '!=';
      len = 2;
    } else if (ch === '=') {
      op = '=';
      len = t[i + 1] === '=' ? 2 : 1;
    }
    if (op === undefined) continue;
    const rawField = t.slice(0, i);
    const field = rawField.trim();
    if (field.length === 0) {
      throw new SelectorParseError(
        'field',
        input,
        part.pos + i,
        'the field name before the operator is empty',
      );
    }
    // Trimming the blanks before the operator can leave a field that, rendered back, reads
    // differently: `a! =b` would render as `a!=b` (field `a`, operator `!=`), and `a\ =b` as
    // `a\=b` (an escaped '=', no operator). Refuse both rather than change the meaning.
    const trimmedTail = rawField.length !== rawField.trimEnd().length;
    if (trimmedTail && (field.endsWith('!') || /(?:^|[^\\])(?:\\\\)*\\$/.test(field))) {
      throw new SelectorParseError(
        'field',
        input,
        part.pos + i - 1,
        field.endsWith('!')
          ? `the field name ends with '!' before a blank and '='; write '!=' without the blank`
          : 'the field name ends with a lone backslash',
      );
    }
    const value = unescape(input, t.slice(i + len), part.pos + i + len);
    return { field, operator: op, value };
  }
  throw new SelectorParseError(
    'field',
    input,
    part.pos,
    `can't understand ${JSON.stringify(t)}; expected field=value, field==value or field!=value`,
  );
}

/**
 * Parses a field selector. The empty string selects everything; empty terms (`a=b,,c=d`)
 * are skipped, as in client-go.
 *
 * @throws {@link SelectorParseError} naming the position and the problem.
 */
export function parseFieldSelector(text: string): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const part of splitTerms(text)) {
    if (part.text.trim().length === 0) continue;
    reqs.push(parseTerm(text, part));
  }
  if (reqs.length === 0) return EVERYTHING;
  return new Selector(sortTerms(reqs));
}

function sortTerms(reqs: FieldRequirement[]): FieldRequirement[] {
  const key = (r: FieldRequirement): string =>
    `${r.field}${r.operator}${escapeFieldValue(r.value)}`;
  return reqs.sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    return ka < kb ? -1 : ka > kb ? 1 : 0;
  });
}

/**
 * A selector requiring `field=value` for every entry of the set. An empty set selects
 * everything.
 *
 * @throws {@link SelectorParseError} when a field name is empty.
 */
export function fieldSelectorFromSet(fields: Readonly<Record<string, string>>): FieldSelector {
  const reqs: FieldRequirement[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (field.length === 0) {
      throw new SelectorParseError(
        'field',
        `=${escapeFieldValue(value)}`,
        -1,
        'a field name is empty',
      );
    }
    reqs.push({ field, operator: '=', value });
  }
  if (reqs.length === 0) return EVERYTHING;
  return new Selector(sortTerms(reqs));
}
