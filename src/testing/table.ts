/**
 * Server-side printing: the `meta.k8s.io/v1` Table that `kubectl get` asks for with
 * `Accept: application/json;as=Table;…`. Custom resources get a Name column and their
 * CRD version's `additionalPrinterColumns` (JSONPath evaluated per object, cells typed
 * by the column type, `date` columns as ages; `Age` alone when none are declared), as
 * apiextensions-apiserver prints them; built-in kinds get kube-apiserver's columns
 * (pods: Ready, Status, Restarts, Age; deployments: Ready, Up-to-date, Available, Age;
 * services, configmaps, secrets, namespaces, events, leases …, wide columns at priority 1).
 *
 * @module
 */
import type { UnstructuredObject } from '../client/types.js';
import { evaluateJsonPath } from './jsonpath.js';
import type { ResourceType } from './registry.js';
import type { StoredObject } from './storage.js';

/** One column of a Table. */
export interface TableColumn {
  /** Header (kubectl upper-cases it). */
  name: string;
  /** OpenAPI type: string, integer, number, boolean, date. */
  type: string;
  /** OpenAPI format (`name` for the name column). */
  format: string;
  /** What the column shows. */
  description: string;
  /** 0 for default output, higher for `-o wide`. */
  priority: number;
}

/** A column and how its cell is computed. */
interface Printer {
  column: TableColumn;
  cell(obj: UnstructuredObject, now: number): unknown;
}

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

/** Renders an age as kube-apiserver's printers do (`5s`, `3m`, `2h`, `4d`). */
export function humanAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 === 0 ? '' : `${s % 60}s`}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 8 && m % 60 !== 0) return `${h}h${m % 60}m`;
  if (h < 48) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 8 && h % 24 !== 0) return `${d}d${h % 24}h`;
  if (d < 365 * 2) return `${d}d`;
  return `${Math.floor(d / 365)}y`;
}

function ageOf(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanAge(now - t);
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created.';

function col(name: string, type = 'string', priority = 0, description = ''): TableColumn {
  return { name, type, format: '', description, priority };
}

const nameColumn: Printer = {
  column: {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: NAME_DESCRIPTION,
    priority: 0,
  },
  cell: (o) => o.metadata?.name ?? '',
};
const ageColumn: Printer = {
  column: col('Age', 'string', 0, AGE_DESCRIPTION),
  cell: (o, now) => ageOf(o.metadata?.creationTimestamp, now),
};

type Obj = Record<string, unknown>;
function rec(v: unknown): Obj {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}
function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(rec) : [];
}
function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
function str(v: unknown, none = '<none>'): string {
  return typeof v === 'string' && v !== '' ? v : none;
}

function podStatus(o: UnstructuredObject): string {
  const status = rec(o.status);
  let reason = str(status.reason, str(status.phase, 'Unknown'));
  for (const cs of arr(status.containerStatuses)) {
    const state = rec(cs.state);
    const waiting = rec(state.waiting);
    const terminated = rec(state.terminated);
    if (typeof waiting.reason === 'string' && waiting.reason !== '') reason = waiting.reason;
    else if (typeof terminated.reason === 'string' && terminated.reason !== '')
      reason = terminated.reason;
  }
  if (o.metadata?.deletionTimestamp !== undefined) reason = 'Terminating';
  return reason;
}

function selectorText(v: unknown): string {
  const matchLabels = rec(rec(v).matchLabels);
  const parts = Object.entries(matchLabels).map(([k, x]) => `${k}=${String(x)}`);
  return parts.length === 0 ? '<none>' : parts.join(',');
}

const BUILTIN: Record<string, Printer[]> = {
  pods: [
    nameColumn,
    {
      column: col(
        'Ready',
        'string',
        0,
        'The aggregate readiness state of this pod for accepting traffic.',
      ),
      cell: (o) => {
        const total = arr(rec(o.spec).containers).length;
        const ready = arr(rec(o.status).containerStatuses).filter((c) => c.ready === true).length;
        return `${ready}/${total}`;
      },
    },
    {
      column: col('Status', 'string', 0, 'The aggregate status of the containers in this pod.'),
      cell: podStatus,
    },
    {
      column: col(
        'Restarts',
        'string',
        0,
        'The number of times the containers in this pod have been restarted.',
      ),
      cell: (o) =>
        String(arr(rec(o.status).containerStatuses).reduce((n, c) => n + num(c.restartCount), 0)),
    },
    ageColumn,
    { column: col('IP', 'string', 1), cell: (o) => str(rec(o.status).podIP) },
    { column: col('Node', 'string', 1), cell: (o) => str(rec(o.spec).nodeName) },
    {
      column: col('Nominated Node', 'string', 1),
      cell: (o) => str(rec(o.status).nominatedNodeName),
    },
    {
      column: col('Readiness Gates', 'string', 1),
      cell: (o) => {
        const gates = arr(rec(o.spec).readinessGates);
        return gates.length === 0 ? '<none>' : `0/${gates.length}`;
      },
    },
  ],
  deployments: [
    nameColumn,
    {
      column: col('Ready', 'string', 0, 'Number of the pod with ready state'),
      cell: (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas ?? 1)}`,
    },
    {
      column: col(
        'Up-to-date',
        'string',
        0,
        'Total number of non-terminated pods targeted by this deployment that have the desired template spec.',
      ),
      cell: (o) => num(rec(o.status).updatedReplicas),
    },
    {
      column: col(
        'Available',
        'string',
        0,
        'Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.',
      ),
      cell: (o) => num(rec(o.status).availableReplicas),
    },
    ageColumn,
    {
      column: col('Containers', 'string', 1),
      cell: (o) =>
        arr(rec(rec(rec(o.spec).template).spec).containers)
          .map((c) => str(c.name, ''))
          .join(','),
    },
    {
      column: col('Images', 'string', 1),
      cell: (o) =>
        arr(rec(rec(rec(o.spec).template).spec).containers)
          .map((c) => str(c.image, ''))
          .join(','),
    },
    { column: col('Selector', 'string', 1), cell: (o) => selectorText(rec(o.spec).selector) },
  ],
  services: [
    nameColumn,
    {
      column: col('Type', 'string', 0, 'The type of the service.'),
      cell: (o) => str(rec(o.spec).type, 'ClusterIP'),
    },
    {
      column: col('Cluster-IP', 'string', 0, 'The IP address of the service.'),
      cell: (o) => str(rec(o.spec).clusterIP),
    },
    {
      column: col('External-IP', 'string', 0, 'The external IP address of the service.'),
      cell: (o) => {
        const ips = rec(o.spec).externalIPs;
        return Array.isArray(ips) && ips.length > 0 ? ips.join(',') : '<none>';
      },
    },
    {
      column: col('Port(s)', 'string', 0, 'The ports of the service.'),
      cell: (o) => {
        const ports = arr(rec(o.spec).ports).map(
          (p) =>
            `${num(p.port)}${typeof p.nodePort === 'number' ? `:${p.nodePort}` : ''}/${str(p.protocol, 'TCP')}`,
        );
        return ports.length === 0 ? '<none>' : ports.join(',');
      },
    },
    ageColumn,
    {
      column: col('Selector', 'string', 1),
      cell: (o) => {
        const sel = Object.entries(rec(rec(o.spec).selector));
        return sel.length === 0 ? '<none>' : sel.map(([k, v]) => `${k}=${String(v)}`).join(',');
      },
    },
  ],
  configmaps: [
    nameColumn,
    {
      column: col('Data', 'integer', 0, 'The number of keys in this ConfigMap.'),
      cell: (o) => Object.keys(rec(o.data)).length + Object.keys(rec(o.binaryData)).length,
    },
    ageColumn,
  ],
  secrets: [
    nameColumn,
    {
      column: col('Type', 'string', 0, 'The type of the secret.'),
      cell: (o) => str(o.type, 'Opaque'),
    },
    {
      column: col('Data', 'integer', 0, 'The number of keys in this Secret.'),
      cell: (o) => Object.keys(rec(o.data)).length + Object.keys(rec(o.stringData)).length,
    },
    ageColumn,
  ],
  namespaces: [
    nameColumn,
    {
      column: col('Status', 'string', 0, 'The status of the namespace.'),
      cell: (o) => str(rec(o.status).phase, 'Active'),
    },
    ageColumn,
  ],
  events: [
    {
      column: col('Last Seen', 'string', 0, 'The time since the event was last seen.'),
      cell: (o, now) => ageOf(o.lastTimestamp ?? o.eventTime ?? o.metadata?.creationTimestamp, now),
    },
    {
      column: col('Type', 'string', 0, 'The type of the event.'),
      cell: (o) => str(o.type, 'Normal'),
    },
    {
      column: col('Reason', 'string', 0, 'The reason of the event.'),
      cell: (o) => str(o.reason, ''),
    },
    {
      column: col('Object', 'string', 0, 'The object the event is about.'),
      cell: (o) => {
        const ref = rec(o.involvedObject);
        return `${str(ref.kind, '').toLowerCase()}/${str(ref.name, '')}`;
      },
    },
    {
      column: col('Message', 'string', 0, 'The message of the event.'),
      cell: (o) => str(o.message, ''),
    },
  ],
  leases: [
    nameColumn,
    {
      column: col('Holder', 'string', 0, 'The holder of the lease.'),
      cell: (o) => str(rec(o.spec).holderIdentity, ''),
    },
    ageColumn,
  ],
};

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
  return BUILTIN[type.resource] ?? [nameColumn, ageColumn];
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
