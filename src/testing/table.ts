/**
 * Server-side printing: the `meta.k8s.io/v1` Table that `kubectl get` asks for with
 * `Accept: application/json;as=Table;…`. Columns are the generic ones kube-apiserver uses
 * for resources without their own printer: Name and Age.
 *
 * @module
 */
import type { ResourceType } from './registry.js';
import type { StoredObject } from './storage.js';

const COLUMNS = [
  {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: 'Name must be unique within a namespace.',
    priority: 0,
  },
  {
    name: 'Age',
    type: 'string',
    format: '',
    description:
      'CreationTimestamp is a timestamp representing the server time when this object was created.',
    priority: 0,
  },
];

/** Renders an age as kubectl does (`5s`, `3m`, `2h`, `4d`). */
export function humanAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 120) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

function row(o: StoredObject, now: number): Record<string, unknown> {
  const meta = o.obj.metadata ?? {};
  const created = meta.creationTimestamp ? Date.parse(meta.creationTimestamp) : now;
  return {
    cells: [meta.name ?? '', humanAge(now - created)],
    object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: meta },
  };
}

/** A Table of objects. */
export function renderTable(
  items: StoredObject[],
  _type: ResourceType,
  now: number,
  resourceVersion: string,
  continueToken: string,
): string {
  const metadata: Record<string, string> = { resourceVersion };
  if (continueToken) metadata.continue = continueToken;
  return JSON.stringify({
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata,
    columnDefinitions: COLUMNS,
    rows: items.map((o) => row(o, now)),
  });
}

/** A watch line whose object is a one-row Table. */
export function renderTableWatchLine(
  eventType: string,
  stored: StoredObject,
  type: ResourceType,
  now: number,
): string {
  return `{"type":"${eventType}","object":${renderTable([stored], type, now, String(stored.rv), '')}}\n`;
}
