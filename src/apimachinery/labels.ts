/**
 * Label selectors: Kubernetes' `labels.Selector`, parsed from the query syntax
 * (`app=web,tier!=db,env in (prod,staging),!canary`), built from a label set or from a
 * `metav1.LabelSelector`, matched against an object's labels and rendered back.
 *
 * The grammar and rules are client-go's (`apimachinery/pkg/labels/selector.go`):
 * - requirements are joined by `,`; whitespace around tokens is ignored;
 * - `key`, `!key`, `key=value`, `key==value`, `key!=value`, `key in (a,b)`,
 *   `key notin (a)`, and the integer comparisons `key>3`, `key<3`;
 * - `key=` means "equals the empty string"; `key in ()` means `key in ("")`;
 * - `!=` and `notin` also match objects that do not have the key;
 * - keys are qualified names (an optional DNS-1123 subdomain prefix and `/`, then a name of
 *   at most 63 characters), values are empty or at most 63 characters of
 *   alphanumerics, `-`, `_`, `.` that start and end alphanumeric.
 *
 * Parsed requirements are sorted by key, as client-go sorts them, so `toString()` renders a
 * canonical form.
 *
 * @module
 */
import { SelectorParseError } from './selector_error.js';

export { SelectorParseError } from './selector_error.js';

/** The operator of one label requirement. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

/** One clause of a label selector: a key, an operator and its values. */
export interface LabelRequirement {
  /** The label key. */
  readonly key: string;
  /** The operator; `exists` is the bare `key`, `!` is `!key`. */
  readonly operator: LabelOperator;
  /** The values, sorted; empty for `exists` and `!`, exactly one for `=`, `==`, `!=`, gt, lt. */
  readonly values: readonly string[];
  /** Whether a label map satisfies this requirement. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** The requirement in query form (`key in (a,b)`). */
  toString(): string;
}

/** A parsed label selector: all requirements must hold (logical AND). */
export interface LabelSelector {
  /** The requirements, sorted by key. Empty for {@link everything} and {@link nothing}. */
  readonly requirements: readonly LabelRequirement[];
  /** Whether an object with these labels (absent = no labels) is selected. */
  matches(labels: Readonly<Record<string, string>> | undefined): boolean;
  /** True when the selector selects everything (no requirements). {@link nothing} is not empty. */
  isEmpty(): boolean;
  /** True only for {@link nothing}: lets listers return at once without scanning. */
  matchesNothing(): boolean;
  /** The selector in query form, as a `labelSelector=` parameter takes it. */
  toString(): string;
}

const NAME_MAX = 63;
const PREFIX_MAX = 253;
const NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const INTEGER_RE = /^[-+]?[0-9]+$/;

/** The problem with a label key, or undefined when it is valid (Kubernetes' qualified-name rule). */
export function validateLabelKey(key: string): string | undefined {
  const slash = key.indexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix.length === 0)
      return `label key ${JSON.stringify(key)} has an empty prefix before '/'`;
    if (prefix.length > PREFIX_MAX) {
      return `the prefix of label key ${JSON.stringify(key)} is longer than ${PREFIX_MAX} characters`;
    }
    if (!DNS1123_SUBDOMAIN_RE.test(prefix)) {
      return `the prefix of label key ${JSON.stringify(key)} must be a DNS-1123 subdomain (lower-case alphanumerics, '-' and '.', starting and ending alphanumeric)`;
    }
    if (name.includes('/')) {
      return `label key ${JSON.stringify(key)} has more than one '/'; use an optional DNS prefix, '/', and a name`;
    }
  }
  if (name.length === 0) return `label key ${JSON.stringify(key)} has an empty name part`;
  if (name.length > NAME_MAX) {
    return `the name part of label key ${JSON.stringify(key)} is longer than ${NAME_MAX} characters`;
  }
  if (!NAME_RE.test(name)) {
    return `the name part of label key ${JSON.stringify(key)} must consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric`;
  }
  return undefined;
}

/** The problem with a label value, or undefined when it is valid (empty, or ≤ 63 name characters). */
export function validateLabelValue(value: string): string | undefined {
  if (value.length > NAME_MAX) {
    return `label value ${JSON.stringify(value.length > 80 ? value.slice(0, 80) + '…' : value)} is longer than ${NAME_MAX} characters`;
  }
  if (!VALUE_RE.test(value)) {
    return `label value ${JSON.stringify(value)} must be empty or consist of alphanumerics, '-', '_' or '.', and start and end with an alphanumeric`;
  }
  return undefined;
}

class Requirement implements LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  readonly values: readonly string[];
  readonly #set: ReadonlySet<string>;
  readonly #single: string;
  readonly #number: number;

  constructor(key: string, operator: LabelOperator, values: readonly string[]) {
    this.key = key;
    this.operator = operator;
    const sorted = [...new Set(values)].sort();
    this.values = sorted;
    this.#set = new Set(sorted);
    this.#single = sorted[0] ?? '';
    this.#number = operator === 'gt' || operator === 'lt' ? Number.parseInt(this.#single, 10) : 0;
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, this.key);
    switch (this.operator) {
      case '=':
      case '==':
        return has && labels[this.key] === this.#single;
      case 'in':
        return has && this.#set.has(labels[this.key] as string);
      case '!=':
        return !has || labels[this.key] !== this.#single;
      case 'notin':
        return !has || !this.#set.has(labels[this.key] as string);
      case 'exists':
        return has;
      case '!':
        return !has;
      case 'gt':
      case 'lt': {
        if (!has) return false;
        const raw = labels[this.key] as string;
        if (!INTEGER_RE.test(raw)) return false;
        const n = Number.parseInt(raw, 10);
        return this.operator === 'gt' ? n > this.#number : n < this.#number;
      }
    }
  }

  toString(): string {
    switch (this.operator) {
      case 'exists':
        return this.key;
      case '!':
        return `!${this.key}`;
      case 'in':
      case 'notin':
        return `${this.key} ${this.operator} (${this.values.join(',')})`;
      case 'gt':
        return `${this.key}>${this.#single}`;
      case 'lt':
        return `${this.key}<${this.#single}`;
      default:
        return `${this.key}${this.operator}${this.#single}`;
    }
  }
}

/** The problem with a requirement's operator/values combination, or undefined. */
function checkValues(operator: LabelOperator, values: readonly string[]): string | undefined {
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) return `'${operator}' needs at least one value`;
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) return `'${operator}' needs exactly one value`;
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) return `'exists' and 'does not exist' take no values`;
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) return `'${operator}' needs exactly one value`;
      if (!INTEGER_RE.test(values[0] ?? '')) {
        return `'${operator === 'gt' ? '>' : '<'}' needs an integer value, got ${JSON.stringify(values[0])}`;
      }
      return undefined;
  }
  for (const v of values) {
    const problem = validateLabelValue(v);
    if (problem !== undefined) return problem;
  }
  return undefined;
}

class Selector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];
  readonly #nothing: boolean;
  #text: string | undefined;

  constructor(requirements: readonly LabelRequirement[], nothing = false) {
    this.requirements = requirements;
    this.#nothing = nothing;
  }

  matches(labels: Readonly<Record<string, string>> | undefined): boolean {
    if (this.#nothing) return false;
    const reqs = this.requirements;
    for (let i = 0; i < reqs.length; i++) {
      if (!(reqs[i] as LabelRequirement).matches(labels)) return false;
    }
    return true;
  }

  isEmpty(): boolean {
    return !this.#nothing && this.requirements.length === 0;
  }

  matchesNothing(): boolean {
    return this.#nothing;
  }

  toString(): string {
    this.#text ??= this.requirements.map((r) => r.toString()).join(',');
    return this.#text;
  }
}

const EVERYTHING: LabelSelector = new Selector([]);
const NOTHING: LabelSelector = new Selector([], true);

/** The selector that selects every object (`isEmpty()` is true, renders as `""`). */
export function everything(): LabelSelector {
  return EVERYTHING;
}

/** The selector that selects no object (client-go's `labels.Nothing()`); renders as `""`. */
export function nothing(): LabelSelector {
  return NOTHING;
}

// ---- the parser ---------------------------------------------------------------------

type TokenKind = 'ident' | '!' | '!=' | '=' | '==' | '>' | '<' | '(' | ')' | ',' | 'end';

interface Token {
  kind: TokenKind;
  text: string;
  pos: number;
}

const SPECIAL = new Set(['!', '=', '(', ')', ',', '>', '<']);

function isSpace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}

function lex(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const ch = input[i] as string;
    if (isSpace(ch)) {
      i++;
      continue;
    }
    if (SPECIAL.has(ch)) {
      const next = input[i + 1];
      if ((ch === '!' || ch === '=') && next === '=') {
        tokens.push({ kind: ch === '!' ? '!=' : '==', text: ch + '=', pos: i });
        i += 2;
      } else {
        tokens.push({ kind: ch as TokenKind, text: ch, pos: i });
        i++;
      }
      continue;
    }
    const start = i;
    while (i < input.length && !isSpace(input[i] as string) && !SPECIAL.has(input[i] as string))
      i++;
    tokens.push({ kind: 'ident', text: input.slice(start, i), pos: start });
  }
  tokens.push({ kind: 'end', text: 'end of string', pos: input.length });
  return tokens;
}

class Parser {
  readonly #input: string;
  readonly #tokens: Token[];
  #at = 0;

  constructor(input: string) {
    this.#input = input;
    this.#tokens = lex(input);
  }

  #peek(): Token {
    return this.#tokens[this.#at] as Token;
  }

  #next(): Token {
    const t = this.#tokens[this.#at] as Token;
    if (t.kind !== 'end') this.#at++;
    return t;
  }

  #fail(pos: number, problem: string): never {
    throw new SelectorParseError('label', this.#input, pos, problem);
  }

  #describe(t: Token): string {
    return t.kind === 'end' ? "'end of string'" : `'${t.text}'`;
  }

  parse(): LabelRequirement[] {
    const out: LabelRequirement[] = [];
    if (this.#peek().kind === 'end') return out;
    for (;;) {
      const t = this.#peek();
      if (t.kind !== 'ident' && t.kind !== '!') {
        this.#fail(t.pos, `found ${this.#describe(t)}, expected: '!' or a label key`);
      }
      out.push(this.#requirement());
      const after = this.#next();
      if (after.kind === 'end') return out;
      if (after.kind !== ',') {
        this.#fail(after.pos, `found ${this.#describe(after)}, expected: ',' or 'end of string'`);
      }
      const following = this.#peek();
      if (following.kind !== 'ident' && following.kind !== '!') {
        this.#fail(
          following.pos,
          `found ${this.#describe(following)}, expected: '!' or a label key after ','`,
        );
      }
    }
  }

  #requirement(): LabelRequirement {
    let negated = false;
    if (this.#peek().kind === '!') {
      this.#next();
      negated = true;
    }
    const keyTok = this.#next();
    if (keyTok.kind !== 'ident') {
      this.#fail(keyTok.pos, `found ${this.#describe(keyTok)}, expected: a label key`);
    }
    const keyProblem = validateLabelKey(keyTok.text);
    if (keyProblem !== undefined) this.#fail(keyTok.pos, keyProblem);
    const key = keyTok.text;
    const la = this.#peek();
    if (negated || la.kind === 'end' || la.kind === ',') {
      return new Requirement(key, negated ? '!' : 'exists', []);
    }
    const opTok = this.#next();
    let operator: LabelOperator;
    switch (opTok.kind) {
      case '=':
      case '==':
      case '!=':
        operator = opTok.kind;
        break;
      case '>':
        operator = 'gt';
        break;
      case '<':
        operator = 'lt';
        break;
      default:
        if (opTok.kind === 'ident' && (opTok.text === 'in' || opTok.text === 'notin')) {
          operator = opTok.text;
          break;
        }
        this.#fail(
          opTok.pos,
          `found ${this.#describe(opTok)}, expected one of: in, notin, =, ==, !=, >, <`,
        );
    }
    if (operator === 'in' || operator === 'notin') {
      return this.#checked(key, operator, this.#setValues(), opTok.pos);
    }
    const v = this.#peek();
    let value = '';
    let valuePos = v.pos;
    if (v.kind === 'ident') {
      this.#next();
      value = v.text;
      valuePos = v.pos;
    } else if (v.kind !== 'end' && v.kind !== ',') {
      this.#fail(v.pos, `found ${this.#describe(v)}, expected: a value`);
    }
    return this.#checked(key, operator, [value], valuePos);
  }

  #setValues(): string[] {
    const open = this.#next();
    if (open.kind !== '(') this.#fail(open.pos, `found ${this.#describe(open)}, expected: '('`);
    const values: string[] = [];
    let expectValue = true;
    for (;;) {
      const t = this.#next();
      if (t.kind === 'ident') {
        if (!expectValue) this.#fail(t.pos, `found ${this.#describe(t)}, expected: ',' or ')'`);
        values.push(t.text);
        expectValue = false;
      } else if (t.kind === ',') {
        if (expectValue) values.push('');
        expectValue = true;
      } else if (t.kind === ')') {
        if (expectValue) values.push('');
        return values;
      } else {
        this.#fail(t.pos, `found ${this.#describe(t)}, expected: a value, ',' or ')'`);
      }
    }
  }

  #checked(key: string, operator: LabelOperator, values: string[], pos: number): LabelRequirement {
    const problem = checkValues(operator, values);
    if (problem !== undefined) this.#fail(pos, problem);
    return new Requirement(key, operator, values);
  }
}

function sortByKey(reqs: LabelRequirement[]): LabelRequirement[] {
  // Stable sort: requirements on the same key keep their written order, as in client-go.
  return reqs.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * Parses a label selector in Kubernetes' query syntax. The empty string (or only whitespace)
 * selects everything.
 *
 * @throws {@link SelectorParseError} naming the position and the problem.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const reqs = new Parser(text).parse();
  if (reqs.length === 0) return EVERYTHING;
  return new Selector(sortByKey(reqs));
}

/**
 * Builds a requirement from parts, validating key, operator and values like
 * `labels.NewRequirement`.
 *
 * @throws {@link SelectorParseError} (position -1) when the key or values are invalid.
 */
export function labelRequirement(
  key: string,
  operator: LabelOperator,
  values: readonly string[] = [],
): LabelRequirement {
  const req = new Requirement(key, operator, values);
  const problem = validateLabelKey(key) ?? checkValues(operator, values);
  if (problem !== undefined) {
    throw new SelectorParseError('label', req.toString(), -1, problem);
  }
  return req;
}

/** A selector from already-built requirements (sorted by key); no requirements selects everything. */
export function labelSelectorFromRequirements(
  requirements: readonly LabelRequirement[],
): LabelSelector {
  if (requirements.length === 0) return EVERYTHING;
  return new Selector(sortByKey([...requirements]));
}

/**
 * A selector requiring every `key=value` of a label set (client-go's `SelectorFromValidatedSet`
 * after validation). An empty or absent set selects everything.
 *
 * @throws {@link SelectorParseError} when a key or value is not a valid label key/value.
 */
export function labelSelectorFromSet(
  labels: Readonly<Record<string, string>> | undefined,
): LabelSelector {
  if (labels === undefined) return EVERYTHING;
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(labels)) reqs.push(labelRequirement(k, '=', [v]));
  return labelSelectorFromRequirements(reqs);
}

/** One `matchExpressions` entry of a `metav1.LabelSelector`. */
export interface LabelSelectorRequirementSpec {
  /** The label key. */
  key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  operator: string;
  /** The values; non-empty for In/NotIn, empty or absent for Exists/DoesNotExist. */
  values?: readonly string[] | undefined;
}

/** A `metav1.LabelSelector` as it appears in specs (Deployment `.spec.selector`, …). */
export interface LabelSelectorSpec {
  /** Labels that must all be present with these values. */
  matchLabels?: Readonly<Record<string, string>> | undefined;
  /** Further requirements, all of which must hold. */
  matchExpressions?: readonly LabelSelectorRequirementSpec[] | undefined;
}

const SPEC_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Converts a `metav1.LabelSelector` to a selector, as `metav1.LabelSelectorAsSelector` does:
 * `null`/`undefined` selects nothing; a selector with neither field (or both empty) selects
 * everything.
 *
 * @throws {@link SelectorParseError} for an unknown operator, a bad key/value, In/NotIn
 *   without values, or Exists/DoesNotExist with values.
 */
export function labelSelectorFromLabelSelector(
  spec: LabelSelectorSpec | null | undefined,
): LabelSelector {
  if (spec === null || spec === undefined) return NOTHING;
  const reqs: LabelRequirement[] = [];
  for (const [k, v] of Object.entries(spec.matchLabels ?? {})) {
    reqs.push(labelRequirement(k, '=', [v]));
  }
  for (const expr of spec.matchExpressions ?? []) {
    const op = Object.prototype.hasOwnProperty.call(SPEC_OPERATORS, expr.operator)
      ? SPEC_OPERATORS[expr.operator]
      : undefined;
    if (op === undefined) {
      throw new SelectorParseError(
        'label',
        `${expr.key} ${expr.operator}`,
        -1,
        `${JSON.stringify(expr.operator)} is not a valid label selector operator; use In, NotIn, Exists or DoesNotExist`,
      );
    }
    reqs.push(labelRequirement(expr.key, op, expr.values ?? []));
  }
  return labelSelectorFromRequirements(reqs);
}
