/**
 * The audit: follows every resource the API server serves — built-in kinds found through
 * discovery, custom resources through a `CRDInformerManager` as their CRDs come and go —
 * and checks each object against three rules:
 *
 * - `required-labels`: a namespaced object carries every label of `requiredLabels`;
 * - `latest-image`: a workload's containers name an image by tag other than `latest`
 *   (or by digest);
 * - `cross-namespace-secret`: no `secretRef`-like field names a Secret of another namespace.
 *
 * Kinds whose rules need only metadata are followed with metadata-only informers
 * (no spec, no status cached); workloads and custom resources with full objects.
 * Each new violation is recorded as a Warning Event on the object.
 */
import { setMaxListeners } from 'node:events';
import {
  CRDInformerManager,
  DeletedFinalStateUnknown,
  Discovery,
  DynamicSharedInformerFactory,
  EventBroadcaster,
  MetadataSharedInformerFactory,
  defaultLogger,
  getReference,
  toTransport,
} from 'kube-controller-kit';
import type {
  ApiResource,
  DeepReadonly,
  KubeConfigLike,
  KubeObject,
  Logger,
  ResourceEventHandler,
} from 'kube-controller-kit';

/** The rules. */
export type Rule = 'required-labels' | 'latest-image' | 'cross-namespace-secret';

/** One violation of one object. */
export interface Violation {
  /** The rule broken. */
  rule: Rule;
  /** `resource.group/version`. */
  gvr: string;
  /** `namespace/name` or `name`. */
  key: string;
  /** What is wrong. */
  message: string;
}

/** Options of {@link Audit}. */
export interface AuditOptions {
  /** Labels every namespaced object must carry (default `app.kubernetes.io/name`). */
  requiredLabels?: readonly string[];
  /** Where it logs (default the library's default). */
  logger?: Logger;
  /** Called for every new violation. */
  onViolation?: (v: Violation) => void;
  /**
   * Follow kinds whose rules need only metadata with metadata-only informers (default
   * true); false caches every object in full (for comparison).
   */
  metadataOnly?: boolean;
  /** Record violations as Events (default true). */
  recordEvents?: boolean;
  /**
   * Namespaces whose objects are not audited: the control plane's own (default
   * `kube-system`, `kube-public`, `kube-node-lease`). The objects Kubernetes itself puts in
   * every namespace (the `default` ServiceAccount, the `kube-root-ca.crt` ConfigMap) are
   * never audited either: no one can label them for good.
   */
  exemptNamespaces?: readonly string[];
}

/** Counts of the audit so far. */
export interface AuditSummary {
  /** Objects followed now. */
  objects: number;
  /** Resources followed now, `resource.group/version` → how (`metadata` or `full`). */
  resources: Record<string, 'metadata' | 'full'>;
  /** Objects in violation now, per rule. */
  violations: Record<Rule, number>;
}

/** Built-in resources whose rules need the spec (pod templates): followed in full. */
const WORKLOADS = new Map<string, readonly string[]>([
  ['pods', ['spec']],
  ['deployments.apps', ['spec', 'template', 'spec']],
  ['replicasets.apps', ['spec', 'template', 'spec']],
  ['statefulsets.apps', ['spec', 'template', 'spec']],
  ['daemonsets.apps', ['spec', 'template', 'spec']],
  ['jobs.batch', ['spec', 'template', 'spec']],
  ['cronjobs.batch', ['spec', 'jobTemplate', 'spec', 'template', 'spec']],
]);

/** What the control plane creates in every namespace, `resource/name`. */
const PER_NAMESPACE_SYSTEM_OBJECTS = new Set([
  'serviceaccounts/default',
  'configmaps/kube-root-ca.crt',
]);

/** Events would audit the audit's own output; leases churn every few seconds. */
const SKIPPED = new Set(['events', 'events.events.k8s.io', 'leases.coordination.k8s.io']);

function gvrOf(r: { resource: string; group: string; version: string }): string {
  return `${r.resource}${r.group === '' ? '' : `.${r.group}`}/${r.version}`;
}

function keyOf(obj: DeepReadonly<KubeObject>): string {
  const ns = obj.metadata?.namespace;
  const name = obj.metadata?.name ?? '';
  return ns === undefined || ns === '' ? name : `${ns}/${name}`;
}

/** Whether a group is served by the API server itself rather than by a CRD. */
export function isBuiltinGroup(group: string): boolean {
  return group === '' || !group.includes('.') || group.endsWith('.k8s.io');
}

/** The image's tag problem, or undefined: `latest`, or no tag and no digest. */
export function latestTag(image: string): string | undefined {
  if (image.includes('@')) return undefined;
  const last = image.slice(image.lastIndexOf('/') + 1);
  const colon = last.indexOf(':');
  if (colon < 0) return `image "${image}" has no tag (means :latest)`;
  return last.slice(colon + 1) === 'latest' ? `image "${image}" uses :latest` : undefined;
}

function nested(obj: unknown, path: readonly string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}

/** The rules that apply to `obj` of `resource` (`podSpecPath` set for workloads). */
export function check(
  obj: DeepReadonly<KubeObject & Record<string, unknown>>,
  requiredLabels: readonly string[],
  podSpecPath: readonly string[] | undefined,
  full: boolean,
): { rule: Rule; message: string }[] {
  const out: { rule: Rule; message: string }[] = [];
  const ns = obj.metadata?.namespace ?? '';
  if (ns !== '') {
    const labels = obj.metadata?.labels ?? {};
    const missing = requiredLabels.filter((l) => labels[l] === undefined);
    if (missing.length > 0) {
      out.push({ rule: 'required-labels', message: `missing label(s) ${missing.join(', ')}` });
    }
  }
  if (podSpecPath !== undefined) {
    const spec = nested(obj, podSpecPath) as
      | {
          containers?: { name?: string; image?: string }[];
          initContainers?: { name?: string; image?: string }[];
        }
      | undefined;
    const problems = [...(spec?.initContainers ?? []), ...(spec?.containers ?? [])]
      .map((c) => (c.image === undefined ? undefined : latestTag(c.image)))
      .filter((p): p is string => p !== undefined);
    if (problems.length > 0) out.push({ rule: 'latest-image', message: problems.join('; ') });
  }
  if (full && ns !== '') {
    const refs: string[] = [];
    const walk = (v: unknown, path: string, depth: number): void => {
      if (depth > 12 || v === null || typeof v !== 'object') return;
      if (Array.isArray(v)) return v.forEach((x, i) => walk(x, `${path}[${i}]`, depth + 1));
      for (const [k, child] of Object.entries(v as Record<string, unknown>)) {
        const at = `${path}.${k}`;
        if (/secret(ref|keyref)?$/i.test(k) && child !== null && typeof child === 'object') {
          const target = (child as { namespace?: unknown }).namespace;
          if (typeof target === 'string' && target !== '' && target !== ns) {
            refs.push(`${at} names a Secret in namespace ${target}`);
          }
        }
        walk(child, at, depth + 1);
      }
    };
    walk(obj['spec'], 'spec', 0);
    if (refs.length > 0) out.push({ rule: 'cross-namespace-secret', message: refs.join('; ') });
  }
  return out;
}

/** The audit: start with {@link Audit.run}; read {@link Audit.summary} at any time. */
export class Audit {
  readonly #options: AuditOptions;
  readonly #logger: Logger;
  readonly #requiredLabels: readonly string[];
  readonly #exemptNamespaces: ReadonlySet<string>;
  /** Violations by `gvr key` (only objects in violation are kept). */
  readonly #violations = new Map<string, { rule: Rule; message: string }[]>();
  /** Object count per gvr. */
  readonly #counts = new Map<string, number>();
  readonly #modes = new Map<string, 'metadata' | 'full'>();
  #synced = false;
  #crds: CRDInformerManager | undefined;

  /** @param options - rules and callbacks. */
  constructor(options: AuditOptions = {}) {
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger;
    this.#requiredLabels = options.requiredLabels ?? ['app.kubernetes.io/name'];
    this.#exemptNamespaces = new Set(
      options.exemptNamespaces ?? ['kube-system', 'kube-public', 'kube-node-lease'],
    );
  }

  /** True once every informer started at the beginning has synced. */
  get synced(): boolean {
    return this.#synced;
  }

  /** What is followed and what is wrong now. */
  summary(): AuditSummary {
    const violations: Record<Rule, number> = {
      'required-labels': 0,
      'latest-image': 0,
      'cross-namespace-secret': 0,
    };
    for (const list of this.#violations.values()) for (const v of list) violations[v.rule]++;
    let objects = 0;
    for (const n of this.#counts.values()) objects += n;
    const resources: Record<string, 'metadata' | 'full'> = Object.fromEntries(this.#modes);
    for (const r of this.#crds?.resources() ?? []) resources[gvrOf(r)] = 'full';
    return { objects, resources, violations };
  }

  /** The violations now, sorted. */
  violations(): Violation[] {
    const out: Violation[] = [];
    for (const [id, list] of this.#violations) {
      const [gvr = '', key = ''] = id.split(' ');
      for (const v of list) out.push({ ...v, gvr, key });
    }
    return out.sort((a, b) =>
      `${a.gvr} ${a.key} ${a.rule}` < `${b.gvr} ${b.key} ${b.rule}` ? -1 : 1,
    );
  }

  /** Follows the cluster until `signal` aborts; resolves once everything stopped. */
  async run(kubeConfig: KubeConfigLike, outer: AbortSignal, onSynced?: () => void): Promise<void> {
    // One informer per resource listens on the signal: a private one with room for them.
    const inner = new AbortController();
    setMaxListeners(0, inner.signal);
    const signal = inner.signal;
    const forward = () => inner.abort(outer.reason);
    if (outer.aborted) forward();
    else outer.addEventListener('abort', forward, { once: true });
    const transport = toTransport(kubeConfig);
    const broadcaster = new EventBroadcaster(transport, { logger: this.#logger });
    const recorder = broadcaster.newRecorder({ component: 'audit' });
    const record = this.#options.recordEvents !== false;
    const metadata = new MetadataSharedInformerFactory(transport, { logger: this.#logger });
    const dynamic = new DynamicSharedInformerFactory(transport, { logger: this.#logger });
    const crds = new CRDInformerManager(transport, { logger: this.#logger });
    this.#crds = crds;

    const handlerFor = (
      resource: ApiResource<KubeObject>,
      podSpecPath: readonly string[] | undefined,
      full: boolean,
    ): ResourceEventHandler<KubeObject> => {
      const gvr = gvrOf(resource);
      const seen = (obj: DeepReadonly<KubeObject>, isNew: boolean) => {
        if (isNew) this.#counts.set(gvr, (this.#counts.get(gvr) ?? 0) + 1);
        const id = `${gvr} ${keyOf(obj)}`;
        const exempt =
          this.#exemptNamespaces.has(obj.metadata?.namespace ?? '') ||
          (resource.group === '' &&
            PER_NAMESPACE_SYSTEM_OBJECTS.has(`${resource.resource}/${obj.metadata?.name ?? ''}`));
        const found = exempt ? [] : check(obj, this.#requiredLabels, podSpecPath, full);
        const before = new Set((this.#violations.get(id) ?? []).map((v) => v.rule));
        if (found.length === 0) this.#violations.delete(id);
        else this.#violations.set(id, found);
        for (const v of found) {
          if (before.has(v.rule)) continue;
          this.#options.onViolation?.({ ...v, gvr, key: keyOf(obj) });
          if (record) {
            recorder.event(
              getReference(obj, resource),
              'Warning',
              'AuditViolation',
              `${v.rule}: ${v.message}`,
            );
          }
        }
      };
      return {
        onAdd: (obj) => seen(obj, true),
        onUpdate: (_old, obj) => seen(obj, false),
        onDelete: (obj) => {
          const key = obj instanceof DeletedFinalStateUnknown ? obj.key : keyOf(obj);
          this.#counts.set(gvr, Math.max(0, (this.#counts.get(gvr) ?? 1) - 1));
          this.#violations.delete(`${gvr} ${key}`);
        },
      };
    };

    // Built-in kinds, from discovery: every listable, watchable resource of the
    // preferred version of each built-in group.
    const discovery = new Discovery(transport);
    const informers: { hasSynced(): boolean }[] = [];
    for (const group of await discovery.groups(signal)) {
      if (!isBuiltinGroup(group.name)) continue;
      const version = group.versions[0];
      if (version === undefined) continue;
      for (const r of await discovery.resources(group.name, version, signal)) {
        const name = r.group === '' ? r.resource : `${r.resource}.${r.group}`;
        if (r.resource.includes('/') || SKIPPED.has(name)) continue;
        if (!r.verbs.includes('list') || !r.verbs.includes('watch')) continue;
        const podSpecPath = WORKLOADS.get(name);
        const resource = r as ApiResource<KubeObject>;
        if (podSpecPath !== undefined || this.#options.metadataOnly === false) {
          const inf = dynamic.forResource(r);
          inf.addEventHandler(handlerFor(resource, podSpecPath, true));
          informers.push(inf);
          this.#modes.set(gvrOf(r), 'full');
        } else {
          const inf = metadata.forResource(r);
          inf.addEventHandler(handlerFor(resource, undefined, false));
          informers.push(inf);
          this.#modes.set(gvrOf(r), 'metadata');
        }
      }
    }
    // Custom resources: as their CRDs appear and disappear.
    crds.addEventHandler(
      {
        onAdd: (r, obj) => handlerFor(r, undefined, true).onAdd?.(obj, false),
        onUpdate: (r, o, n) => handlerFor(r, undefined, true).onUpdate?.(o, n),
        onDelete: (r, obj) => handlerFor(r, undefined, true).onDelete?.(obj),
      },
      { name: 'audit' },
    );
    const crdRun = crds.run(signal);
    metadata.start(signal);
    dynamic.start(signal);
    try {
      await Promise.all([
        metadata.waitForCacheSync(signal),
        dynamic.waitForCacheSync(signal),
        crds.waitForCacheSync(signal),
      ]);
      if (!signal.aborted) {
        this.#synced = true;
        const s = this.summary();
        this.#logger.info(
          `audit: following ${s.objects} object(s) of ${Object.keys(s.resources).length} resource(s); ${informers.length} built-in`,
        );
        onSynced?.();
      }
      await new Promise<void>((resolve) => {
        if (signal.aborted) resolve();
        else signal.addEventListener('abort', () => resolve(), { once: true });
      });
    } finally {
      await Promise.all([metadata.shutdown(), dynamic.shutdown(), crdRun]);
      await broadcaster.close(AbortSignal.timeout(5_000));
      transport.close();
      outer.removeEventListener('abort', forward);
    }
  }
}
