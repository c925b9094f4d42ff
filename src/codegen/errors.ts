/**
 * Errors of the CRD type generator. Each names the file and the document (1-based, as in a
 * multi-document YAML stream) it is about, so that a bad manifest is found at once.
 *
 * @module
 */
import { KubeControllerKitError } from '../util/errors.js';

/** Where in the input a CRD came from: a file and a document within it. */
export interface CrdLocation {
  /** The file as given (path or label). */
  readonly file: string;
  /** The 1-based index of the YAML document within the file. */
  readonly document: number;
  /** The 1-based index within a `List` document's `items`, when the CRD came from one. */
  readonly item?: number;
  /** The 1-based line where the document (or the error) starts, when known. */
  readonly line?: number;
}

/** Formats a location as `crd.yaml, document 2 (line 40)`. */
export function formatCrdLocation(at: CrdLocation): string {
  let text = `${at.file}, document ${at.document}`;
  if (at.item !== undefined) text += `, item ${at.item}`;
  if (at.line !== undefined) text += ` (line ${at.line})`;
  return text;
}

/** The base class of every error the generator throws for bad input. */
export class CrdCodegenError extends KubeControllerKitError {
  /** The file the error is about. */
  readonly file: string;
  /** The 1-based document within the file (0 when the whole file is at fault). */
  readonly document: number;

  /**
   * @param at - where the bad input is.
   * @param problem - what is wrong and what to do, without the location (added here).
   */
  constructor(at: CrdLocation, problem: string, options?: ErrorOptions) {
    super(
      at.document === 0 ? `${at.file}: ${problem}` : `${formatCrdLocation(at)}: ${problem}`,
      options,
    );
    this.file = at.file;
    this.document = at.document;
  }
}

/** The file could not be read, or is not valid YAML or JSON. */
export class CrdSyntaxError extends CrdCodegenError {}

/** A document is not a CustomResourceDefinition (and other kinds were not to be ignored). */
export class NotACrdError extends CrdCodegenError {
  /** The document's `apiVersion/kind`, or a description of its type when it is not an object. */
  readonly found: string;

  /**
   * @param at - where the document is.
   * @param found - what the document is instead, e.g. `v1/ConfigMap`.
   */
  constructor(at: CrdLocation, found: string) {
    super(
      at,
      `expected an apiextensions.k8s.io/v1 CustomResourceDefinition, found ${found}; ` +
        'pass only CRD manifests, or use --ignore-other-kinds to skip other documents',
    );
    this.found = found;
  }
}

/**
 * A CustomResourceDefinition that the generator cannot use: a required field is missing or has
 * the wrong type, a served version has no OpenAPI v3 schema, or it uses apiextensions v1beta1.
 */
export class InvalidCrdError extends CrdCodegenError {
  /** The CRD's `metadata.name`, when it has one. */
  readonly crd: string | undefined;

  /**
   * @param at - where the CRD is.
   * @param crd - the CRD's name, if known.
   * @param problem - what is wrong and what to do.
   */
  constructor(at: CrdLocation, crd: string | undefined, problem: string) {
    super(at, crd === undefined ? problem : `CustomResourceDefinition "${crd}": ${problem}`);
    this.crd = crd;
  }
}
