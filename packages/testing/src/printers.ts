/**
 * kube-apiserver's table printers for the built-in kinds the test API server serves
 * (k8s.io/kubernetes pkg/printers/internalversion, re-expressed over unstructured
 * objects): the columns `kubectl get` shows, wide columns at priority 1, and cells
 * computed from the stored object alone. Where kube-apiserver would have defaulted a
 * field on create (a StatefulSet's replicas, a CronJob's suspend, a claim's phase), the
 * cell shows the default. Kinds without printers of their own get kube-apiserver's
 * default columns (Name, Created At) or, here, Name and Age.
 *
 * @module
 */
import { groupResourceKey } from 'kube-controller-kit';
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

function col(name: string, type = 'string', priority = 0, description = ''): TableColumn {
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
function arr(v: unknown): Obj[] {
  return Array.isArray(v) ? v.map(rec) : [];
}
function num(v: unknown): number {
  return typeof v === 'number' ? v : 0;
}
/** A string or number (a quantity, an int-or-string) as text; `none` otherwise. */
function scalar(v: unknown, none: string): string {
  return typeof v === 'string' || typeof v === 'number' ? String(v) : none;
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

/** `k=v,k2=v2` sorted by key, as Go's labels.FormatLabels; `<none>` when empty. */
function formatLabels(v: unknown): string {
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
function formatLabelSelector(v: unknown): string {
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
function containerColumns(...path: string[]): Printer[] {
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
function selectorColumn(cell: (o: UnstructuredObject) => unknown): Printer {
  return { column: col('Selector', 'string', 1), cell: (o) => formatLabelSelector(cell(o)) };
}

/** An integer status field (0 when absent). */
function statusCount(name: string, field: string, description = ''): Printer {
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

function jobStatus(o: UnstructuredObject): string {
  if (conditionTrue(o, 'Complete')) return 'Complete';
  if (conditionTrue(o, 'Failed')) return 'Failed';
  if (o.metadata?.deletionTimestamp !== undefined) return 'Terminating';
  if (conditionTrue(o, 'Suspended')) return 'Suspended';
  if (conditionTrue(o, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function jobCompletions(o: UnstructuredObject): string {
  const spec = rec(o.spec);
  const succeeded = num(rec(o.status).succeeded);
  // kube-apiserver defaults completions and parallelism to 1 when both are unset.
  if (typeof spec.completions === 'number') return `${succeeded}/${spec.completions}`;
  if (spec.completions === undefined && spec.parallelism === undefined) return `${succeeded}/1`;
  const parallelism = num(spec.parallelism ?? 1);
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(o: UnstructuredObject, now: number): string {
  const status = rec(o.status);
  const start = typeof status.startTime === 'string' ? Date.parse(status.startTime) : NaN;
  if (Number.isNaN(start)) return '';
  const end = typeof status.completionTime === 'string' ? Date.parse(status.completionTime) : now;
  return humanAge((Number.isNaN(end) ? now : end) - start);
}

/** `RWO,ROX,RWX,RWOP`, in that order, as the access modes helper prints them. */
function accessModes(v: unknown): string {
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
function formatEndpoints(o: UnstructuredObject): string {
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
function nodeStatus(o: UnstructuredObject): string {
  const ready = arr(rec(o.status).conditions).find((c) => c.type === 'Ready');
  const status =
    ready === undefined ? ['Unknown'] : [ready.status === 'True' ? 'Ready' : 'NotReady'];
  if (rec(o.spec).unschedulable === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function nodeRoles(o: UnstructuredObject): string {
  const roles = new Set<string>();
  for (const [k, v] of Object.entries(o.metadata?.labels ?? {})) {
    if (k.startsWith('node-role.kubernetes.io/')) {
      const role = k.slice('node-role.kubernetes.io/'.length);
      if (role !== '') roles.add(role);
    } else if (k === 'kubernetes.io/role' && v !== '') roles.add(v);
  }
  return roles.size === 0 ? '<none>' : [...roles].sort().join(',');
}

function nodeAddress(o: UnstructuredObject, type: string): string {
  const a = arr(rec(o.status).addresses).find((x) => x.type === type);
  return str(a?.address);
}

function nodeInfo(field: string): (o: UnstructuredObject) => string {
  return (o) => str(rec(rec(o.status).nodeInfo)[field], '<unknown>');
}

/** `cpu: 1/4, memory: 1Gi/8Gi` for requests or for `limits.*`, sorted by resource. */
function quotaColumn(limits: boolean): (o: UnstructuredObject) => string {
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

function bindingPrinters(): Printer[] {
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
function createdAtPrinters(): Printer[] {
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
interface EventFieldNames {
  lastTimestamp: string;
  firstTimestamp: string;
  count: string;
  involvedObject: string;
  source: string;
  reportingController: string;
  message: string;
}

/** core/v1 Event. */
const CORE_EVENT: EventFieldNames = {
  lastTimestamp: 'lastTimestamp',
  firstTimestamp: 'firstTimestamp',
  count: 'count',
  involvedObject: 'involvedObject',
  source: 'source',
  reportingController: 'reportingComponent',
  message: 'message',
};

/** events.k8s.io/v1 Event: kube-apiserver converts it to the core fields before printing. */
const EVENTS_API_EVENT: EventFieldNames = {
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
function eventPrinters(view: (o: UnstructuredObject) => EventView): Printer[] {
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
  'deployments.apps': [
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
    selectorColumn((o) => rec(o.spec).selector),
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
  'leases.coordination.k8s.io': [
    nameColumn,
    {
      column: col('Holder', 'string', 0, 'The holder of the lease.'),
      cell: (o) => str(rec(o.spec).holderIdentity, ''),
    },
    ageColumn,
  ],
  'statefulsets.apps': [
    nameColumn,
    {
      column: col('Ready', 'string', 0, 'Number of the pod with ready state'),
      // kube-apiserver defaults spec.replicas to 1.
      cell: (o) => `${num(rec(o.status).readyReplicas)}/${num(rec(o.spec).replicas ?? 1)}`,
    },
    ageColumn,
    ...containerColumns('spec', 'template'),
  ],
  'daemonsets.apps': [
    nameColumn,
    statusCount('Desired', 'desiredNumberScheduled'),
    statusCount('Current', 'currentNumberScheduled'),
    statusCount('Ready', 'numberReady'),
    statusCount('Up-to-date', 'updatedNumberScheduled'),
    statusCount('Available', 'numberAvailable'),
    {
      column: col('Node Selector', 'string'),
      cell: (o) => formatLabels(rec(rec(rec(o.spec).template).spec).nodeSelector),
    },
    ageColumn,
    ...containerColumns('spec', 'template'),
    selectorColumn((o) => rec(o.spec).selector),
  ],
  'replicasets.apps': [
    nameColumn,
    {
      column: col('Desired', 'integer'),
      cell: (o) => num(rec(o.spec).replicas ?? 1),
    },
    statusCount('Current', 'replicas'),
    statusCount('Ready', 'readyReplicas'),
    ageColumn,
    ...containerColumns('spec', 'template'),
    selectorColumn((o) => rec(o.spec).selector),
  ],
  'jobs.batch': [
    nameColumn,
    { column: col('Status', 'string', 0, 'Status of the job.'), cell: jobStatus },
    { column: col('Completions', 'string'), cell: jobCompletions },
    {
      column: col('Duration', 'string', 0, 'Time required to complete the job.'),
      cell: jobDuration,
    },
    ageColumn,
    ...containerColumns('spec', 'template'),
    selectorColumn((o) => rec(o.spec).selector),
  ],
  'cronjobs.batch': [
    nameColumn,
    { column: col('Schedule', 'string'), cell: (o) => str(rec(o.spec).schedule, '') },
    { column: col('Timezone', 'string'), cell: (o) => str(rec(o.spec).timeZone) },
    {
      column: col('Suspend', 'boolean'),
      // kube-apiserver defaults spec.suspend to false.
      cell: (o) => (rec(o.spec).suspend === true ? 'True' : 'False'),
    },
    { column: col('Active', 'integer'), cell: (o) => arr(rec(o.status).active).length },
    {
      column: col('Last Schedule', 'string'),
      cell: (o, now) => {
        const last = rec(o.status).lastScheduleTime;
        return last === undefined ? '<none>' : ageOf(last, now);
      },
    },
    ageColumn,
    ...containerColumns('spec', 'jobTemplate', 'spec', 'template'),
    selectorColumn((o) => rec(rec(rec(o.spec).jobTemplate).spec).selector),
  ],
  'ingresses.networking.k8s.io': [
    nameColumn,
    { column: col('Class', 'string'), cell: (o) => str(rec(o.spec).ingressClassName) },
    {
      column: col('Hosts', 'string'),
      cell: (o) => {
        const rules = arr(rec(o.spec).rules);
        const hosts = rules.map((r) => str(r.host, '')).filter((h) => h !== '');
        if (hosts.length === 0) return '*';
        const shown = hosts.slice(0, 3).join(',');
        return rules.length > 3 ? `${shown} + ${rules.length - 3} more...` : shown;
      },
    },
    {
      column: col('Address', 'string'),
      cell: (o) => {
        const ingress = arr(rec(rec(o.status).loadBalancer).ingress);
        const addrs = new Set(
          ingress.map((i) => str(i.ip, '') || str(i.hostname, '')).filter((a) => a !== ''),
        );
        return [...addrs].sort().join(',');
      },
    },
    {
      column: col('Ports', 'string'),
      cell: (o) => (arr(rec(o.spec).tls).length > 0 ? '80, 443' : '80'),
    },
    ageColumn,
  ],
  'networkpolicies.networking.k8s.io': [
    nameColumn,
    {
      column: col('Pod-Selector', 'string'),
      cell: (o) => formatLabelSelector(rec(o.spec).podSelector),
    },
    ageColumn,
  ],
  'poddisruptionbudgets.policy': [
    nameColumn,
    {
      column: col(
        'Min Available',
        'string',
        0,
        'The minimum number of pods that must be available.',
      ),
      cell: (o) => scalar(rec(o.spec).minAvailable, 'N/A'),
    },
    {
      column: col(
        'Max Unavailable',
        'string',
        0,
        'The maximum number of pods that may be unavailable.',
      ),
      cell: (o) => scalar(rec(o.spec).maxUnavailable, 'N/A'),
    },
    statusCount(
      'Allowed Disruptions',
      'disruptionsAllowed',
      'Calculated number of pods that may be disrupted at this time.',
    ),
    ageColumn,
  ],
  persistentvolumeclaims: [
    nameColumn,
    {
      column: col('Status', 'string'),
      // kube-apiserver defaults status.phase to Pending.
      cell: (o) =>
        o.metadata?.deletionTimestamp !== undefined
          ? 'Terminating'
          : str(rec(o.status).phase, 'Pending'),
    },
    { column: col('Volume', 'string'), cell: (o) => str(rec(o.spec).volumeName, '') },
    {
      column: col('Capacity', 'string'),
      cell: (o) =>
        str(rec(o.spec).volumeName, '') === ''
          ? ''
          : scalar(rec(rec(o.status).capacity).storage, '0'),
    },
    {
      column: col('Access Modes', 'string'),
      cell: (o) =>
        str(rec(o.spec).volumeName, '') === '' ? '' : accessModes(rec(o.status).accessModes),
    },
    {
      column: col('StorageClass', 'string', 0, 'StorageClass of the pvc'),
      cell: (o) =>
        str(rec(o.spec).storageClassName, '') ||
        str(o.metadata?.annotations?.['volume.beta.kubernetes.io/storage-class'], ''),
    },
    {
      column: col('VolumeAttributesClass', 'string', 0, 'VolumeAttributesClass of the pvc'),
      cell: (o) => str(rec(o.spec).volumeAttributesClassName, '<unset>'),
    },
    ageColumn,
    { column: col('VolumeMode', 'string', 1), cell: (o) => str(rec(o.spec).volumeMode, '<unset>') },
  ],
  nodes: [
    nameColumn,
    { column: col('Status', 'string', 0, 'The status of the node'), cell: nodeStatus },
    { column: col('Roles', 'string', 0, 'The roles of the node'), cell: nodeRoles },
    ageColumn,
    {
      column: col('Version', 'string'),
      cell: (o) => str(rec(rec(o.status).nodeInfo).kubeletVersion, ''),
    },
    { column: col('Internal-IP', 'string', 1), cell: (o) => nodeAddress(o, 'InternalIP') },
    { column: col('External-IP', 'string', 1), cell: (o) => nodeAddress(o, 'ExternalIP') },
    { column: col('OS-Image', 'string', 1), cell: nodeInfo('osImage') },
    { column: col('Kernel-Version', 'string', 1), cell: nodeInfo('kernelVersion') },
    { column: col('Container-Runtime', 'string', 1), cell: nodeInfo('containerRuntimeVersion') },
  ],
  endpoints: [nameColumn, { column: col('Endpoints', 'string'), cell: formatEndpoints }, ageColumn],
  resourcequotas: [
    nameColumn,
    {
      column: col(
        'Request',
        'string',
        0,
        'Request represents a minimum amount of cpu/memory that a container may consume.',
      ),
      cell: quotaColumn(false),
    },
    {
      column: col(
        'Limit',
        'string',
        0,
        'Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.',
      ),
      cell: quotaColumn(true),
    },
    ageColumn,
  ],
  serviceaccounts: [
    nameColumn,
    { column: col('Secrets', 'string'), cell: (o) => arr(o.secrets).length },
    ageColumn,
  ],
  'roles.rbac.authorization.k8s.io': createdAtPrinters(),
  'clusterroles.rbac.authorization.k8s.io': createdAtPrinters(),
  'customresourcedefinitions.apiextensions.k8s.io': createdAtPrinters(),
  'rolebindings.rbac.authorization.k8s.io': bindingPrinters(),
  'clusterrolebindings.rbac.authorization.k8s.io': bindingPrinters(),
  events: eventPrinters(eventView(CORE_EVENT)),
  'events.events.k8s.io': eventPrinters(eventView(EVENTS_API_EVENT)),
};

/**
 * The printers of a built-in resource, or undefined when kube-apiserver has none for it
 * (the caller falls back to Name and Age).
 */
export function builtinPrinters(group: string, resource: string): Printer[] | undefined {
  return BUILTIN[groupResourceKey(group, resource)];
}
