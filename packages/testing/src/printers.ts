/**
 * kube-apiserver's table printers for the built-in kinds the test API server serves
 * (k8s.io/kubernetes pkg/printers/internalversion, re-expressed over unstructured
 * objects): the columns `kubectl get` shows, wide columns at priority 1, and cells
 * computed from the stored object alone. Where kube-apiserver would have defaulted a
 * field on create (a StatefulSet's replicas, a CronJob's suspend, a claim's phase), the
 * cell shows the default. Kinds without printers of their own get kube-apiserver's
 * default columns (Name, Created At) or, here, Name and Age.
 *
 * This file holds the column builders and cells; each kind's columns are in its file under
 * ./registry (its `printers`).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';

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
export interface Printer {
  /** The column definition. */
  column: TableColumn;
  /** The cell of one object, with ages computed at `now` (ms since the epoch). */
  cell(obj: UnstructuredObject, now: number): unknown;
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

/** The age of an RFC 3339 timestamp at `now`; `<unknown>` when it is not one. */
export function ageOf(timestamp: unknown, now: number): string {
  if (typeof timestamp !== 'string') return '<unknown>';
  const t = Date.parse(timestamp);
  return Number.isNaN(t) ? '<unknown>' : humanAge(now - t);
}

const NAME_DESCRIPTION =
  'Name must be unique within a namespace. Is required when creating resources, although some resources may allow a client to request the generation of an appropriate name automatically. Name is primarily intended for creation idempotence and configuration definition. Cannot be updated.';
const AGE_DESCRIPTION =
  'CreationTimestamp is a timestamp representing the server time when this object was created.';

/** A column definition (priority 1: shown with `-o wide`). */
export function col(name: string, type = 'string', priority = 0, description = ''): TableColumn {
  return { name, type, format: '', description, priority };
}

/** The Name column every table starts with. */
export const nameColumn: Printer = {
  column: {
    name: 'Name',
    type: 'string',
    format: 'name',
    description: NAME_DESCRIPTION,
    priority: 0,
  },
  cell: (o) => o.metadata?.name ?? '',
};
/** The Age column (creation time as an age). */
export const ageColumn: Printer = {
  column: col('Age', 'string', 0, AGE_DESCRIPTION),
  cell: (o, now) => ageOf(o.metadata?.creationTimestamp, now),
};

type Obj = Record<string, unknown>;
/** A value as an object (`{}` when it is not one). */
export function rec(v: unknown): Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {};
}
/** A value as a list of objects (`[]` when it is not a list). */
export function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(rec) : [];
}
/** A value as a number (0 when it is not one). */
export function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
/** A string or number (a quantity, an int-or-string) as text; `none` otherwise. */
export function scalar(v: unknown, none: string): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : none;
}
/** A non-empty string, or `none`. */
export function str(v: unknown, none = '<none>'): string {
  return typeof v === 'string' && v !== '' ? v : none;
}

/** A pod's STATUS cell: its reason or phase, a container's waiting or terminated reason, `Terminating`. */
export function podStatus(o: UnstructuredObject): string {
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

/** `k=v,k2=v2` sorted by key, as Go's labels.FormatLabels; `<none>` when empty. */
export function formatLabels(v: unknown): string {
  const entries = Object.entries(rec(v))
    .map(([k, x]) => `${k}=${String(x)}`)
    .sort();
  return entries.length === 0 ? '<none>' : entries.join(',');
}

/**
 * A metav1.LabelSelector in its string form (requirements sorted by key: `k=v`,
 * `k in (a,b)`, `k notin (a)`, `k`, `!k`), as FormatLabelSelector; `<none>` when it
 * selects everything.
 */
export function formatLabelSelector(v: unknown): string {
  const sel = rec(v);
  const reqs: [string, string][] = Object.entries(rec(sel.matchLabels)).map(([k, x]) => [
    k,
    `${k}=${String(x)}`,
  ]);
  for (const e of arr(sel.matchExpressions)) {
    const key = str(e.key, '');
    const values = (Array.isArray(e.values) ? e.values.map(String) : []).sort().join(',');
    switch (e.operator) {
      case 'In':
        reqs.push([key, `${key} in (${values})`]);
        break;
      case 'NotIn':
        reqs.push([key, `${key} notin (${values})`]);
        break;
      case 'Exists':
        reqs.push([key, key]);
        break;
      case 'DoesNotExist':
        reqs.push([key, `!${key}`]);
        break;
      default:
        break;
    }
  }
  reqs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return reqs.length === 0 ? '<none>' : reqs.map((r) => r[1]).join(',');
}

/** The containers of a pod template, at `path` below the object (`spec.template`). */
function templateContainers(o: UnstructuredObject, ...path: string[]): Obj[] {
  let cur: Obj = rec(o);
  for (const p of path) cur = rec(cur[p]);
  return arr(rec(cur.spec).containers);
}

/** The wide Containers and Images columns of a workload, comma-joined as kubectl shows them. */
export function containerColumns(...path: string[]): Printer[] {
  return [
    {
      column: col('Containers', 'string', 1, 'Names of each container in the template.'),
      cell: (o) =>
        templateContainers(o, ...path)
          .map((c) => str(c.name, ''))
          .join(','),
    },
    {
      column: col('Images', 'string', 1, 'Images referenced by each container in the template.'),
      cell: (o) =>
        templateContainers(o, ...path)
          .map((c) => str(c.image, ''))
          .join(','),
    },
  ];
}

/** The wide Selector column of a workload. */
export function selectorColumn(cell: (o: UnstructuredObject) => unknown): Printer {
  return { column: col('Selector', 'string', 1), cell: (o) => formatLabelSelector(cell(o)) };
}

/** An integer status field (0 when absent). */
export function statusCount(name: string, field: string, description = ''): Printer {
  return {
    column: col(name, 'integer', 0, description),
    cell: (o) => num(rec(o.status)[field]),
  };
}

/** Whether a condition of this type is True (the first one of the type decides). */
function conditionTrue(o: UnstructuredObject, type: string): boolean {
  const c = arr(rec(o.status).conditions).find((x) => x.type === type);
  return c?.status === 'True';
}

/** A Job's STATUS cell, from its conditions. */
export function jobStatus(o: UnstructuredObject): string {
  if (conditionTrue(o, 'Complete')) return 'Complete';
  if (conditionTrue(o, 'Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp !== undefined) return 'Terminating';
  if (conditionTrue(o, 'Suspended')) return 'Suspended';
  if (conditionTrue(o, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

/** A Job's COMPLETIONS cell (`succeeded/completions`). */
export function jobCompletions(o: UnstructuredObject): string {
  const spec = rec(o.spec);
  const succeeded = num(rec(o.status).succeeded);
  // kube-apiserver defaults completions and parallelism to 1 when both are unset.
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  if (spec.completions === undefined && spec.parallelism === undefined) return `${succeeded}/1`;
  const parallelism = num(spec.parallelism ?? 1);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** A Job's DURATION cell: from its start to its completion (or now). */
export function jobDuration(o: UnstructuredObject, now: number): string {
  const status = rec(o.status);
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now;
  return humanAge((Number.isNaN(end) ? now : end) - start);
}

/** `RWO,ROX,RWX,RWOP`, in that order, as the access modes helper prints them. */
export function accessModes(v: unknown): string {
  const modes = Array.isArray(v) ? v : [];
  const short: [string, string][] = [
    ['ReadWriteOnce', 'RWO'],
    ['ReadOnlyMany', 'ROX'],
    ['ReadWriteMany', 'RWX'],
    ['ReadWriteOncePod', 'RWOP'],
  ];
  return short
    .filter(([mode]) => modes.includes(mode))
    .map(([, s]) => s)
    .join(',');
}

/** Formats `host:port`, with brackets around an IPv6 host. */
function hostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

/** The first three addresses (with ports) of an Endpoints, then `+ N more...`. */
export function formatEndpoints(o: UnstructuredObject): string {
  const subsets = arr(o.subsets);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addresses = arr(ss.addresses).map((a) => str(a.ip, ''));
    const ports = arr(ss.ports);
    const entries =
      ports.length === 0
        ? addresses
        : ports.flatMap((p) => addresses.map((ip) => hostPort(ip, num(p.port))));
    count += entries.length;
    for (const e of entries) if (list.length < max) list.push(e);
  }
  const joined = list.join(',');
  return count > max ? `${joined} + ${count - max} more...` : joined;
}

/** The Ready condition of a node, then SchedulingDisabled when cordoned. */
export function nodeStatus(o: UnstructuredObject): string {
  const ready = arr(rec(o.status).conditions).find((c) => c.type === 'Ready');
  const status =
    ready === undefined ? ['Unknown'] : [ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (rec(o.spec).unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

/** A node's ROLES cell, from its `node-role.kubernetes.io/*` labels. */
export function nodeRoles(o: UnstructuredObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

/** A node's address of a type (`InternalIP`, `ExternalIP`). */
export function nodeAddress(o: UnstructuredObject, type: string): string {
  const a = arr(rec(o.status).addresses).find((x) => x.type === type);
  return str(a?.address);
}

/** A cell from a node's `status.nodeInfo` field. */
export function nodeInfo(field: string): (o: UnstructuredObject) => string {
  return (o) => str(rec(rec(o.status).nodeInfo)[field], '<unknown>');
}

/** `cpu: 1/4, memory: 1Gi/8Gi` for requests or for `limits.*`, sorted by resource. */
export function quotaColumn(limits: boolean): (o: UnstructuredObject) => string {
  return (o) => {
    const status = rec(o.status);
    const hard = rec(status.hard);
    const used = rec(status.used);
    return Object.keys(hard)
      .sort()
      .filter((r) => r.startsWith('limits.') === limits)
      .map((r) => `${r}: ${scalar(used[r], '0')}/${scalar(hard[r], '0')}`)
      .join(', ');
  };
}

/** The subjects of a role binding of one kind (service accounts as `namespace/name`). */
function subjects(kind: 'User' | 'Group' | 'ServiceAccount'): (o: UnstructuredObject) => string {
  return (o) =>
    arr(o.subjects)
      .filter((s) => s.kind === kind)
      .map((s) =>
        kind === 'ServiceAccount' ? `${str(s.namespace, '')}/${str(s.name, '')}` : str(s.name, ''),
      )
      .join(', ');
}

/** The columns of RoleBindings and ClusterRoleBindings. */
export function bindingPrinters(): Printer[] {
  return [
    nameColumn,
    {
      column: col(
        'Role',
        'string',
        0,
        'RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace.',
      ),
      cell: (o) => `${str(rec(o.roleRef).kind, '')}/${str(rec(o.roleRef).name, '')}`,
    },
    ageColumn,
    { column: col('Users', 'string', 1), cell: subjects('User') },
    { column: col('Groups', 'string', 1), cell: subjects('Group') },
    { column: col('ServiceAccounts', 'string', 1), cell: subjects('ServiceAccount') },
  ];
}

/**
 * The columns of kube-apiserver's default table convertor (kinds without printers of
 * their own: roles, cluster roles, CRDs): Name and the creation time in RFC 3339.
 */
export function createdAtPrinters(): Printer[] {
  return [
    nameColumn,
    {
      column: col('Created At', 'date', 0, AGE_DESCRIPTION),
      cell: (o) => {
        const t = Date.parse(String(o.metadata?.creationTimestamp ?? ''));
        return Number.isNaN(t) ? null : new Date(t).toISOString().replace(/\.\d+Z$/, 'Z');
      },
    },
  ];
}

/** An event in the fields the printer reads (core/v1 names). */
interface EventView {
  lastTimestamp: unknown;
  firstTimestamp: unknown;
  eventTime: unknown;
  series: Obj | undefined;
  count: number;
  involvedObject: Obj;
  source: Obj;
  reportingController: string;
  reportingInstance: string;
  type: unknown;
  reason: unknown;
  message: unknown;
}

/** Where the fields an Event API renames live in its objects. */
export interface EventFieldNames {
  lastTimestamp: string;
  firstTimestamp: string;
  count: string;
  involvedObject: string;
  source: string;
  reportingController: string;
  message: string;
}

/** core/v1 Event. */
export const CORE_EVENT: EventFieldNames = {
  lastTimestamp: 'lastTimestamp',
  firstTimestamp: 'firstTimestamp',
  count: 'count',
  involvedObject: 'involvedObject',
  source: 'source',
  reportingController: 'reportingComponent',
  message: 'message',
};

/** events.k8s.io/v1 Event: kube-apiserver converts it to the core fields before printing. */
export const EVENTS_API_EVENT: EventFieldNames = {
  lastTimestamp: 'deprecatedLastTimestamp',
  firstTimestamp: 'deprecatedFirstTimestamp',
  count: 'deprecatedCount',
  involvedObject: 'regarding',
  source: 'deprecatedSource',
  reportingController: 'reportingController',
  message: 'note',
};

function eventView(names: EventFieldNames): (o: UnstructuredObject) => EventView {
  return (o) => ({
    lastTimestamp: o[names.lastTimestamp],
    firstTimestamp: o[names.firstTimestamp],
    eventTime: o.eventTime,
    series: o.series === undefined ? undefined : rec(o.series),
    count: num(o[names.count]),
    involvedObject: rec(o[names.involvedObject]),
    source: rec(o[names.source]),
    reportingController: str(o[names.reportingController], ''),
    reportingInstance: str(o.reportingInstance, ''),
    type: o.type,
    reason: o.reason,
    message: o[names.message],
  });
}

function eventFirstSeen(e: EventView, now: number): string {
  return typeof e.firstTimestamp === 'string'
    ? ageOf(e.firstTimestamp, now)
    : ageOf(e.eventTime, now);
}

/** kube-apiserver's event columns, over either Event API. */
export function eventPrinters(names: EventFieldNames): Printer[] {
  const view = eventView(names);
  const on =
    <T>(f: (e: EventView, now: number) => T) =>
    (o: UnstructuredObject, now: number): T =>
      f(view(o), now);
  return [
    {
      column: col(
        'Last Seen',
        'string',
        0,
        'The time at which the most recent occurrence of this event was recorded.',
      ),
      cell: on((e, now) => {
        if (e.series !== undefined) return ageOf(e.series.lastObservedTime, now);
        return typeof e.lastTimestamp === 'string'
          ? ageOf(e.lastTimestamp, now)
          : eventFirstSeen(e, now);
      }),
    },
    {
      column: col('Type', 'string', 0, 'Type of this event (Normal, Warning).'),
      cell: on((e) => str(e.type, '')),
    },
    {
      column: col('Reason', 'string', 0, 'The reason the object is in this state.'),
      cell: on((e) => str(e.reason, '')),
    },
    {
      column: col('Object', 'string', 0, 'The object that this event is about.'),
      cell: on((e) => {
        const kind = str(e.involvedObject.kind, '').toLowerCase();
        const name = str(e.involvedObject.name, '');
        return name === '' ? kind : `${kind}/${name}`;
      }),
    },
    { column: col('Subobject', 'string', 1), cell: on((e) => str(e.involvedObject.fieldPath, '')) },
    {
      column: col('Source', 'string', 1),
      cell: on((e) => {
        const component = str(e.source.component, '') || e.reportingController;
        const instance = str(e.source.host, '') || e.reportingInstance;
        return instance === '' ? component : `${component}, ${instance}`;
      }),
    },
    {
      column: col(
        'Message',
        'string',
        0,
        'A human-readable description of the status of this operation.',
      ),
      cell: on((e) => str(e.message, '').trim()),
    },
    { column: col('First Seen', 'string', 1), cell: on(eventFirstSeen) },
    {
      column: col('Count', 'string', 1),
      cell: on((e) => (e.series !== undefined ? num(e.series.count) : e.count === 0 ? 1 : e.count)),
    },
    { column: { ...nameColumn.column, priority: 1 }, cell: (o) => o.metadata?.name ?? '' },
  ];
}
