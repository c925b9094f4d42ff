/**
 * From a CRD's structural schema to the JSON Schemas that json-schema-to-typescript compiles.
 *
 * Kubernetes' dialect of OpenAPI v3 is mapped here, node by node, onto plain JSON Schema plus
 * json-schema-to-typescript's `tsType` hint:
 *
 * - every object with properties becomes a named interface, its name the path of property names
 *   in PascalCase (`ApplicationSpec`, `ApplicationSpecEnv`); a property referring to it keeps its
 *   own description, so every member of every interface is documented;
 * - `x-kubernetes-int-or-string` becomes `number | string`;
 * - `x-kubernetes-preserve-unknown-fields` becomes an index signature of `unknown` on an object,
 *   or `unknown` on a node without a type;
 * - `x-kubernetes-embedded-resource` adds `apiVersion`, `kind` and `metadata: ObjectMeta`;
 * - `nullable` adds `| null`; `additionalProperties` becomes an index signature (a map);
 * - validation-only keywords (`allOf`, `anyOf`, `oneOf`, `not`) are dropped, as the API server
 *   ignores them for the shape of an object; the remaining validations (bounds, lengths,
 *   patterns, formats, defaults, CEL rules) are written into the TSDoc instead.
 *
 * @module
 */
import type { compile } from 'json-schema-to-typescript';
import type { JsonSchemaProps } from './crd_manifest.js';

/** The JSON Schema type json-schema-to-typescript accepts. */
export type JsonSchemaInput = Parameters<typeof compile>[0];

/** One interface to emit: its name and the flat schema (children replaced by `tsType` refs). */
export interface NamedSchema {
  /** The interface name. */
  name: string;
  /** The schema to compile; nested named objects appear as `tsType` references. */
  schema: JsonSchemaInput;
}

/** What the root of a resource's schema needs besides the schema itself. */
export interface RootInfo {
  /** The interface name of the resource (the kind). */
  kind: string;
  /** `group/version`, the literal type of `apiVersion`. */
  apiVersion: string;
  /** The documentation of the resource interface. */
  description: string;
  /** Names that must not be used for generated sub-interfaces (imports, the list type). */
  reserved: readonly string[];
}

interface Context {
  used: Set<string>;
  decls: { name: string; schema: JsonSchemaInput }[];
}

/** Escapes text for a `/** … *\/` comment and for TSDoc (no comment end, no stray tags). */
export function escapeDoc(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/\*\//g, '*\\/')
    .replace(/@(?=[A-Za-z])/g, '\\@')
    .trim();
}

/** A property name in PascalCase, usable as part of an identifier (`foo-bar` → `FooBar`). */
export function pascalCase(name: string): string {
  const words = name.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const joined = words.map((w) => (w[0] ?? '').toUpperCase() + w.slice(1)).join('');
  if (joined === '') return 'Field';
  return /^[0-9]/.test(joined) ? `_${joined}` : joined;
}

function code(value: string): string {
  return value.includes('`') ? JSON.stringify(value) : `\`${value}\``;
}

const IGNORED_FORMATS = new Set(['int32', 'int64', 'float', 'double']);

/** The TSDoc text of a node: its description, then its validations and default. */
export function describeNode(node: JsonSchemaProps): string | undefined {
  const paragraphs: string[] = [];
  if (typeof node.description === 'string' && node.description.trim() !== '') {
    paragraphs.push(escapeDoc(node.description));
  }
  const facts: string[] = [];
  if (typeof node.format === 'string' && !IGNORED_FORMATS.has(node.format)) {
    facts.push(`format ${code(node.format)}`);
  }
  const lowOpen = node.exclusiveMinimum === true;
  const highOpen = node.exclusiveMaximum === true;
  if (
    typeof node.minimum === 'number' &&
    typeof node.maximum === 'number' &&
    !lowOpen &&
    !highOpen
  ) {
    facts.push(`${node.minimum} to ${node.maximum}`);
  } else {
    if (typeof node.minimum === 'number') {
      facts.push(`${lowOpen ? 'greater than' : 'at least'} ${node.minimum}`);
    }
    if (typeof node.maximum === 'number') {
      facts.push(`${highOpen ? 'less than' : 'at most'} ${node.maximum}`);
    }
  }
  const range = (min: unknown, max: unknown, unit: string): void => {
    const units = (n: number): string =>
      n === 1 ? unit : unit === 'entry' ? 'entries' : `${unit}s`;
    if (typeof min === 'number' && typeof max === 'number') {
      facts.push(`${min} to ${max} ${units(max)}`);
    } else if (typeof min === 'number') {
      facts.push(`at least ${min} ${units(min)}`);
    } else if (typeof max === 'number') {
      facts.push(`at most ${max} ${units(max)}`);
    }
  };
  range(node.minLength, node.maxLength, 'character');
  range(node.minItems, node.maxItems, 'item');
  range(node.minProperties, node.maxProperties, 'entry');
  if (typeof node.pattern === 'string') facts.push(`matches ${code(node.pattern)}`);
  if (node.uniqueItems === true) facts.push('items are unique');
  if (facts.length > 0) {
    paragraphs.push(escapeDoc(`Validation: ${facts.join('; ')}.`));
  }
  for (const rule of node['x-kubernetes-validations'] ?? []) {
    if (typeof rule.rule !== 'string') continue;
    const message = typeof rule.message === 'string' ? ` (${rule.message})` : '';
    paragraphs.push(escapeDoc(`Rule: ${code(rule.rule)}${message}.`));
  }
  if (node.default !== undefined) {
    paragraphs.push(
      escapeDoc(`@defaultValue ${code(JSON.stringify(node.default))}`).replace(/^\\@/, '@'),
    );
  }
  return paragraphs.length > 0 ? paragraphs.join('\n\n') : undefined;
}

function withDoc(schema: JsonSchemaInput, doc: string | undefined): JsonSchemaInput {
  return doc === undefined ? schema : { ...schema, description: doc };
}

function uniqueName(ctx: Context, wanted: string): string {
  let name = wanted;
  for (let n = 2; ctx.used.has(name); n++) name = `${wanted}${n}`;
  ctx.used.add(name);
  return name;
}

function nullable(schema: JsonSchemaInput, node: JsonSchemaProps): JsonSchemaInput {
  if (node.nullable !== true) return schema;
  if (typeof schema.tsType === 'string') return { ...schema, tsType: `${schema.tsType} | null` };
  if (typeof schema.type === 'string') {
    const values = Array.isArray(schema.enum) ? { enum: [...schema.enum, null] } : {};
    return { ...schema, type: [schema.type, 'null'], ...values };
  }
  return { ...schema, tsType: 'unknown' };
}

/**
 * Converts one node for use at a property, array element or map value position. Objects with
 * properties are declared as interfaces (added to `ctx.decls`) and referred to by name.
 */
function convert(node: JsonSchemaProps, name: string, ctx: Context): JsonSchemaInput {
  const doc = describeNode(node);
  return withDoc(nullable(convertType(node, name, ctx), node), doc);
}

function enumOf(
  node: JsonSchemaProps,
  accept: (v: unknown) => v is string | number | boolean,
): (string | number | boolean)[] | undefined {
  if (!Array.isArray(node.enum)) return undefined;
  const values = node.enum.filter(accept);
  return values.length > 0 ? values : undefined;
}

function convertType(node: JsonSchemaProps, name: string, ctx: Context): JsonSchemaInput {
  if (node['x-kubernetes-int-or-string'] === true) return { tsType: 'number | string' };
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true;
  const embedded = node['x-kubernetes-embedded-resource'] === true;
  let type = node.type;
  if (type === undefined && (node.properties !== undefined || embedded)) type = 'object';
  switch (type) {
    case 'string': {
      const values = enumOf(node, (v): v is string => typeof v === 'string');
      return values === undefined ? { type: 'string' } : { type: 'string', enum: values };
    }
    case 'integer':
    case 'number': {
      const values = enumOf(node, (v): v is number => typeof v === 'number');
      return values === undefined ? { type: 'number' } : { type: 'number', enum: values };
    }
    case 'boolean': {
      const values = enumOf(node, (v): v is boolean => typeof v === 'boolean');
      return values === undefined ? { type: 'boolean' } : { type: 'boolean', enum: values };
    }
    case 'array': {
      if (node.items === undefined) return { tsType: 'unknown[]' };
      const items = convert(node.items, name, ctx);
      // The element's documentation belongs to its interface or to the array property.
      const { description: _doc, ...bare } = items;
      return { type: 'array', items: bare };
    }
    case 'object':
      return convertObject(node, name, ctx, preserve, embedded);
    default:
      return { tsType: 'unknown' };
  }
}

function convertObject(
  node: JsonSchemaProps,
  name: string,
  ctx: Context,
  preserve: boolean,
  embedded: boolean,
): JsonSchemaInput {
  const props = node.properties ?? {};
  const keys = Object.keys(props);
  if (keys.length === 0 && !embedded) {
    const ap = node.additionalProperties;
    if (typeof ap === 'object') {
      const value = convert(ap, name, ctx);
      const { description: _doc, ...bare } = value;
      return { type: 'object', additionalProperties: bare };
    }
    if (preserve || ap === true) return { tsType: '{ [k: string]: unknown }' };
    // Kubernetes prunes every field of an object schema without properties.
    return { tsType: 'Record<string, never>' };
  }
  const declName = uniqueName(ctx, name);
  const decl: { name: string; schema: JsonSchemaInput } = { name: declName, schema: {} };
  ctx.decls.push(decl);
  const properties: Record<string, JsonSchemaInput> = {};
  if (embedded) {
    properties.apiVersion = { type: 'string', description: 'API version of the embedded object.' };
    properties.kind = { type: 'string', description: 'Kind of the embedded object.' };
    properties.metadata = { tsType: 'ObjectMeta', description: 'Metadata of the embedded object.' };
  }
  for (const key of keys) {
    const child = props[key];
    if (child === undefined) continue;
    if (embedded && key === 'metadata') continue;
    properties[key] = convert(child, `${declName}${pascalCase(key)}`, ctx);
  }
  const required = (node.required ?? []).filter((k) => k in properties);
  decl.schema = {
    title: declName,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: preserve || node.additionalProperties === true,
    ...withDoc({}, describeNode(node)),
  };
  return { tsType: declName };
}

/**
 * Plans the interfaces of one version of a resource: the resource interface first (with
 * `apiVersion` and `kind` as literal types and `metadata` as `ObjectMeta`), then every nested
 * object in depth-first order.
 */
export function planResourceTypes(root: JsonSchemaProps, info: RootInfo): NamedSchema[] {
  const ctx: Context = { used: new Set([info.kind, ...info.reserved]), decls: [] };
  const properties: Record<string, JsonSchemaInput> = {
    apiVersion: {
      tsType: `'${info.apiVersion}'`,
      description: describeNode(root.properties?.apiVersion ?? {}) ?? 'The API version.',
    },
    kind: {
      tsType: `'${info.kind}'`,
      description: describeNode(root.properties?.kind ?? {}) ?? 'The kind.',
    },
    metadata: {
      tsType: 'ObjectMeta',
      description: describeNode(root.properties?.metadata ?? {}) ?? 'Standard object metadata.',
    },
  };
  const decls: NamedSchema[] = [];
  const rootDecl: NamedSchema = { name: info.kind, schema: {} };
  decls.push(rootDecl);
  for (const [key, child] of Object.entries(root.properties ?? {})) {
    if (key === 'apiVersion' || key === 'kind' || key === 'metadata') continue;
    properties[key] = convert(child, `${info.kind}${pascalCase(key)}`, ctx);
  }
  const required = (root.required ?? []).filter(
    (k) => k in properties && k !== 'apiVersion' && k !== 'kind' && k !== 'metadata',
  );
  rootDecl.schema = {
    title: info.kind,
    type: 'object',
    properties,
    ...(required.length > 0 ? { required } : {}),
    additionalProperties: root['x-kubernetes-preserve-unknown-fields'] === true,
    description: info.description,
  };
  return [...decls, ...ctx.decls];
}
