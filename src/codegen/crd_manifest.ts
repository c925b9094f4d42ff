/**
 * Reading CustomResourceDefinition manifests: YAML (one or many documents) or JSON, including
 * `List` documents such as `kubectl get crd -o yaml` prints. Every CRD is checked for the fields
 * the generator needs, and each problem is reported with its file and document.
 *
 * @module
 */
import { LineCounter, parseAllDocuments } from 'yaml';
import { type CrdLocation, CrdSyntaxError, InvalidCrdError, NotACrdError } from './errors.js';

/**
 * One node of a CRD's structural OpenAPI v3 schema (apiextensions.k8s.io/v1 `JSONSchemaProps`),
 * with the keys the generator reads. Keys keep their wire spelling.
 */
export interface JsonSchemaProps {
  /** `object`, `array`, `string`, `integer`, `number` or `boolean`. */
  type?: string;
  /** Human-readable documentation; becomes TSDoc. */
  description?: string;
  /** A title; ignored (names come from the property path). */
  title?: string;
  /** Fields of an object. */
  properties?: Record<string, JsonSchemaProps>;
  /** Names of fields that must be present. */
  required?: string[];
  /** The schema of an array's elements. */
  items?: JsonSchemaProps;
  /** The schema of a map's values, or `true`/`false`. */
  additionalProperties?: JsonSchemaProps | boolean;
  /** The allowed values. */
  enum?: unknown[];
  /** The value the API server fills in when the field is absent. */
  default?: unknown;
  /** Whether `null` is allowed. */
  nullable?: boolean;
  /** A format such as `date-time` or `int32`. */
  format?: string;
  /** Smallest allowed number. */
  minimum?: number;
  /** Largest allowed number. */
  maximum?: number;
  /** Whether `minimum` is exclusive. */
  exclusiveMinimum?: boolean;
  /** Whether `maximum` is exclusive. */
  exclusiveMaximum?: boolean;
  /** Shortest allowed string. */
  minLength?: number;
  /** Longest allowed string. */
  maxLength?: number;
  /** A regular expression strings must match. */
  pattern?: string;
  /** Fewest allowed array elements. */
  minItems?: number;
  /** Most allowed array elements. */
  maxItems?: number;
  /** Fewest allowed map entries. */
  minProperties?: number;
  /** Most allowed map entries. */
  maxProperties?: number;
  /** The field takes an integer or a string (Kubernetes IntOrString). */
  'x-kubernetes-int-or-string'?: boolean;
  /** Unknown fields are kept instead of pruned. */
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  /** The field holds a whole Kubernetes object (apiVersion, kind, metadata, …). */
  'x-kubernetes-embedded-resource'?: boolean;
  /** CEL validation rules. */
  'x-kubernetes-validations'?: {
    /** The CEL expression. */
    rule?: string;
    /** The message shown when the rule fails. */
    message?: string;
  }[];
  /** Any other keyword (allOf, anyOf, oneOf, not, list types, …); ignored for typing. */
  [keyword: string]: unknown;
}

/** One version of a CRD, as the generator uses it. */
export interface CrdVersion {
  /** The version name, e.g. `v1`. */
  name: string;
  /** Whether the API server serves this version; types are generated only for served ones. */
  served: boolean;
  /** Whether this is the storage version. */
  storage: boolean;
  /** Whether the version is deprecated. */
  deprecated: boolean;
  /** The server's warning for a deprecated version, if set. */
  deprecationWarning: string | undefined;
  /** The root of the version's OpenAPI v3 schema (present for every served version). */
  schema: JsonSchemaProps | undefined;
  /** Whether the version has the status subresource. */
  statusSubresource: boolean;
  /** Whether the version has the scale subresource. */
  scaleSubresource: boolean;
}

/** A CustomResourceDefinition reduced to what the generator needs, with where it came from. */
export interface CrdManifest {
  /** Where the CRD was found. */
  at: CrdLocation;
  /** `metadata.name`, `<plural>.<group>`. */
  name: string;
  /** The API group. */
  group: string;
  /** The kind, e.g. `Application`. */
  kind: string;
  /** The list kind, `<kind>List` unless the CRD says otherwise. */
  listKind: string;
  /** The plural resource name used in URLs. */
  plural: string;
  /** The singular name. */
  singular: string;
  /** Short names, e.g. `app`. */
  shortNames: string[];
  /** Categories, e.g. `all`. */
  categories: string[];
  /** True for `Namespaced` scope, false for `Cluster`. */
  namespaced: boolean;
  /** The versions in manifest order. */
  versions: CrdVersion[];
}

/** Options of {@link parseCrdManifests}. */
export interface ParseCrdOptions {
  /** Skip documents that are not CRDs instead of failing. Default false. */
  ignoreOtherKinds?: boolean;
}

const CRD_API_VERSION = 'apiextensions.k8s.io/v1';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function stringArray(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/**
 * Parses the text of one manifest file (YAML with any number of documents, or JSON) and returns
 * its CustomResourceDefinitions in document order. Empty documents are skipped; `List`
 * documents are expanded.
 *
 * @param text - the file's contents.
 * @param file - the file name, used in error messages.
 * @throws {@link CrdSyntaxError} when the text is not valid YAML or JSON.
 * @throws {@link NotACrdError} for a document of another kind (unless `ignoreOtherKinds`).
 * @throws {@link InvalidCrdError} for a CRD without the fields or schemas the generator needs.
 */
export function parseCrdManifests(
  text: string,
  file: string,
  options: ParseCrdOptions = {},
): CrdManifest[] {
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, prettyErrors: false });
  if (!Array.isArray(documents)) return []; // an empty stream
  // A syntax error anywhere makes the whole file unusable: report it before anything else.
  documents.forEach((doc, index) => {
    const [first] = doc.errors;
    if (first !== undefined) {
      const line = lineCounter.linePos(first.pos[0]).line;
      throw new CrdSyntaxError(
        { file, document: index + 1, line },
        `not valid YAML or JSON: ${first.message.split('\n')[0] ?? first.code}`,
      );
    }
  });
  const crds: CrdManifest[] = [];
  documents.forEach((doc, index) => {
    const docLine = doc.contents?.range[0];
    const at: CrdLocation = {
      file,
      document: index + 1,
      ...(docLine === undefined ? {} : { line: lineCounter.linePos(docLine).line }),
    };
    const value: unknown = doc.toJS({ maxAliasCount: 1000 });
    if (value === null || value === undefined) return;
    if (isRecord(value) && typeof value.kind === 'string' && value.kind.endsWith('List')) {
      if (Array.isArray(value.items)) {
        value.items.forEach((item: unknown, i) => {
          const crd = toCrd(item, { ...at, item: i + 1 }, options);
          if (crd !== undefined) crds.push(crd);
        });
        return;
      }
    }
    const crd = toCrd(value, at, options);
    if (crd !== undefined) crds.push(crd);
  });
  return crds;
}

function toCrd(value: unknown, at: CrdLocation, options: ParseCrdOptions): CrdManifest | undefined {
  if (!isRecord(value)) {
    if (options.ignoreOtherKinds === true) return undefined;
    throw new NotACrdError(at, describe(value));
  }
  const apiVersion = typeof value.apiVersion === 'string' ? value.apiVersion : '';
  const kind = typeof value.kind === 'string' ? value.kind : '';
  if (kind !== 'CustomResourceDefinition' || !apiVersion.startsWith('apiextensions.k8s.io/')) {
    if (options.ignoreOtherKinds === true) return undefined;
    throw new NotACrdError(
      at,
      apiVersion === '' && kind === ''
        ? 'an object without apiVersion and kind'
        : `${apiVersion || '(no apiVersion)'}/${kind || '(no kind)'}`,
    );
  }
  const metadata = isRecord(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : undefined;
  const fail = (problem: string): never => {
    throw new InvalidCrdError(at, name, problem);
  };
  if (apiVersion !== CRD_API_VERSION) {
    fail(
      `${apiVersion} is not supported; convert the manifest to ${CRD_API_VERSION} ` +
        '(the only CRD API served since Kubernetes 1.22)',
    );
  }
  const spec = isRecord(value.spec) ? value.spec : fail('spec is missing');
  const names = isRecord(spec.names) ? spec.names : fail('spec.names is missing');
  const str = (obj: Record<string, unknown>, key: string, path: string): string => {
    const v = obj[key];
    return typeof v === 'string' && v !== '' ? v : fail(`${path} is missing or not a string`);
  };
  const group = str(spec, 'group', 'spec.group');
  const crdKind = str(names, 'kind', 'spec.names.kind');
  const plural = str(names, 'plural', 'spec.names.plural');
  if (!/^[A-Za-z][A-Za-z0-9]*$/.test(crdKind)) {
    fail(`spec.names.kind "${crdKind}" is not a valid kind (letters and digits, a letter first)`);
  }
  const scope = spec.scope;
  if (scope !== 'Namespaced' && scope !== 'Cluster') {
    fail('spec.scope must be "Namespaced" or "Cluster"');
  }
  if (!Array.isArray(spec.versions) || spec.versions.length === 0) {
    fail('spec.versions is missing or empty');
  }
  const versions = (spec.versions as unknown[]).map((v, i): CrdVersion => {
    if (!isRecord(v)) return fail(`spec.versions[${i}] is not an object`);
    const versionName = str(v, 'name', `spec.versions[${i}].name`);
    const served = v.served === true;
    const schemaHolder = isRecord(v.schema) ? v.schema : undefined;
    const root = schemaHolder?.openAPIV3Schema;
    if (served && !isRecord(root)) {
      fail(
        `served version ${versionName} has no schema.openAPIV3Schema; ` +
          'add a structural schema (types are generated from it)',
      );
    }
    if (isRecord(root) && root.type !== undefined && root.type !== 'object') {
      fail(`the schema of version ${versionName} must have type "object" at its root`);
    }
    const subresources = isRecord(v.subresources) ? v.subresources : {};
    return {
      name: versionName,
      served,
      storage: v.storage === true,
      deprecated: v.deprecated === true,
      deprecationWarning:
        typeof v.deprecationWarning === 'string' ? v.deprecationWarning : undefined,
      schema: isRecord(root) ? root : undefined,
      statusSubresource: subresources.status !== undefined,
      scaleSubresource: subresources.scale !== undefined,
    };
  });
  const seen = new Set<string>();
  for (const v of versions) {
    if (seen.has(v.name)) fail(`version ${v.name} is listed twice`);
    seen.add(v.name);
  }
  return {
    at,
    name: name ?? `${plural}.${group}`,
    group,
    kind: crdKind,
    listKind: typeof names.listKind === 'string' ? names.listKind : `${crdKind}List`,
    plural,
    singular: typeof names.singular === 'string' ? names.singular : crdKind.toLowerCase(),
    shortNames: stringArray(names.shortNames),
    categories: stringArray(names.categories),
    namespaced: scope === 'Namespaced',
    versions,
  };
}
