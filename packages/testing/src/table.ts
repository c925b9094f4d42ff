/**
 * Server-side printing: the `meta.k8s.io/v1` Table that `kubectl get` asks for with
 * `Accept: application/json;as=Table;…`. Custom resources get a Name column and their
 * CRD version's `additionalPrinterColumns` (JSONPath evaluated per object, cells typed
 * by the column type, `date` columns as ages; `Age` alone when none are declared), as
 * apiextensions-apiserver prints them; built-in kinds get kube-apiserver's columns
 * (./printers.ts).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { evaluateJsonPath } from './jsonpath.js';
import { ageColumn, ageOf, nameColumn, rec } from './printers.js';
import type { Printer } from './printers.js';
import type { ResourceType } from './registry/resource_registry.js';
import type { StoredObject } from './storage.js';

export { humanAge } from './printers.js';
export type { TableColumn } from './printers.js';

/** An additionalPrinterColumns entry of a CRD version. */
export interface PrinterColumnSpec {
  /** Column header. */
  name: string;
  /** integer, number, string, boolean or date. */
  type: string;
  /** OpenAPI format. */
  format?: string;
  /** Description. */
  description?: string;
  /** Priority (0 = default output). */
  priority?: number;
  /** The JSONPath evaluated against each object. */
  jsonPath: string;
}

function crdPrinters(columns: PrinterColumnSpec[] | undefined): Printer[] {
  const specs: PrinterColumnSpec[] =
    columns && columns.length > 0
      ? columns
      : [{ name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }];
  return [
    nameColumn,
    ...specs.map((c): Printer => ({
      column: {
        name: c.name,
        type: c.type,
        format: c.format ?? '',
        description: c.description ?? '',
        priority: c.priority ?? 0,
      },
      cell: (o, now) => crdCell(c, o, now),
    })),
  ];
}

function crdCell(c: PrinterColumnSpec, o: UnstructuredObject, now: number): unknown {
  let values: unknown[];
  try {
    values = evaluateJsonPath(o, c.jsonPath);
  } catch {
    return null;
  }
  if (values.length === 0) return null;
  const v = values.length === 1 ? values[0] : values;
  switch (c.type) {
    case 'date':
      return ageOf(v, now);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v) ? v : null;
    case 'number':
      return typeof v === 'number' ? v : null;
    case 'boolean':
      return typeof v === 'boolean' ? v : null;
    default:
      if (Array.isArray(v))
        return v.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(',');
      return typeof v === 'string' ? v : JSON.stringify(v);
  }
}

/** The printers of a resource: a CRD version's columns, the built-in ones, or Name/Age. */
export function tablePrinters(
  type: ResourceType,
  crdColumns: PrinterColumnSpec[] | undefined,
): Printer[] {
  if (type.crdName !== undefined) return crdPrinters(crdColumns);
  return type.printers === undefined ? [nameColumn, ageColumn] : [...type.printers];
}

/** The rendering inputs of a Table: its printers and the time ages are computed at. */
export interface TableContext {
  /** Columns and cells. */
  printers: Printer[];
  /** Now, in ms since the epoch. */
  now: number;
}

function row(o: StoredObject, ctx: TableContext): Record<string, unknown> {
  const meta = o.obj.metadata ?? {};
  return {
    cells: ctx.printers.map((p) => p.cell(o.obj, ctx.now)),
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta },
  };
}

/** A Table of objects. */
export function renderTable(
  items: StoredObject[],
  ctx: TableContext,
  resourceVersion: string,
  continueToken: string,
): string {
  const metadata: Record<string, string> = { resourceVersion };
  if (continueToken) metadata.continue = continueToken;
  return JSON.stringify({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: ctx.printers.map((p) => p.column),
    rows: items.map((o) => row(o, ctx)),
  });
}

/** A watch line whose object is a one-row Table. */
export function renderTableWatchLine(
  eventType: string,
  stored: StoredObject,
  ctx: TableContext,
): string {
  return `{"type":"${eventType}","object":${renderTable([stored], ctx, String(stored.rv), '')}}\n`;
}

/** The `additionalPrinterColumns` of one version of a CRD object. */
export function crdPrinterColumns(
  crd: UnstructuredObject | undefined,
  version: string,
): PrinterColumnSpec[] | undefined {
  const versions = rec(crd?.spec).versions;
  if (!Array.isArray(versions)) return undefined;
  const v = versions.map(rec).find((x) => x.name === version);
  const cols = v?.additionalPrinterColumns;
  if (!Array.isArray(cols)) return undefined;
  return cols
    .map(rec)
    .filter((c) => typeof c.name === 'string' && typeof c.jsonPath === 'string')
    .map((c) => {
      const spec: PrinterColumnSpec = {
        name: String(c.name),
        type: typeof c.type === 'string' ? c.type : 'string',
        jsonPath: String(c.jsonPath),
      };
      if (typeof c.format === 'string') spec.format = c.format;
      if (typeof c.description === 'string') spec.description = c.description;
      if (typeof c.priority === 'number') spec.priority = c.priority;
      return spec;
    });
}
