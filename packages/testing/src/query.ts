/**
 * The query parameters and option bodies of resource requests, parsed and checked as
 * kube-apiserver checks them: label and field selectors, list options, write options
 * (`dryRun`, `fieldManager`, `force`, `fieldValidation`) and DeleteOptions.
 *
 * @module
 */
import { errorMessage, parseFieldSelector, parseLabelSelector } from 'kube-controller-kit';
import type { FieldSelector, LabelSelector } from 'kube-controller-kit';
import { parseShardQuery } from './feature_gates.js';
import type { TestApiServerFeatureGates } from './feature_gates.js';
import type { ResourceType } from './registry/resource_registry.js';
import type { ListQuery } from './list.js';
import type {
  DeleteOpts,
  PropagationPolicy,
  ResourceStore,
  WriteOptions,
} from './resource_store.js';
import { badRequest, statusError } from './status.js';

/** The selectors of a list or watch; an empty selector is left out. */
export interface Selectors {
  /** Label selector. */
  label?: LabelSelector;
  /** Field selector. */
  field?: FieldSelector;
}

/** Parses `labelSelector` and `fieldSelector`; 400 when malformed or not selectable. */
export function parseSelectors(
  q: URLSearchParams,
  type: ResourceType,
  store: ResourceStore,
): Selectors {
  const out: Selectors = {};
  const ls = q.get('labelSelector');
  const fs = q.get('fieldSelector');
  try {
    if (ls) {
      const sel = parseLabelSelector(ls);
      if (!sel.isEmpty()) out.label = sel;
    }
  } catch (err) {
    throw badRequest(`unable to parse requirement: ${errorMessage(err)}`);
  }
  try {
    if (fs) {
      const sel = parseFieldSelector(fs);
      if (!sel.isEmpty()) out.field = sel;
    }
  } catch (err) {
    throw badRequest(`invalid field selector: ${errorMessage(err)}`);
  }
  store.checkFieldSelector(type, out.field);
  return out;
}

/** Parses the options of a list (or deletecollection). */
export function parseListQuery(
  q: URLSearchParams,
  type: ResourceType,
  namespace: string,
  store: ResourceStore,
  featureGates: TestApiServerFeatureGates = {},
): ListQuery {
  const shard = parseShardQuery(q, featureGates);
  const { label, field } = parseSelectors(q, type, store);
  const limitText = q.get('limit');
  const limit = limitText ? Number(limitText) : 0;
  if (!Number.isInteger(limit) || limit < 0) {
    throw badRequest(`limit: Invalid value: "${limitText ?? ''}": must be a non-negative integer`);
  }
  const rvm = q.get('resourceVersionMatch');
  if (rvm !== null && rvm !== '' && rvm !== 'Exact' && rvm !== 'NotOlderThan') {
    throw statusError(
      422,
      'Invalid',
      `resourceVersionMatch: Unsupported value: "${rvm}": supported values: "Exact", "NotOlderThan"`,
    );
  }
  return {
    namespace: namespace === '' ? undefined : namespace,
    label,
    field,
    resourceVersion: q.get('resourceVersion') ?? undefined,
    resourceVersionMatch: rvm === null || rvm === '' ? undefined : rvm,
    limit,
    continueToken: q.get('continue') || undefined,
    ...(shard === undefined ? {} : { shard }),
  };
}

/** True when `dryRun=All` is asked. */
export function isDryRun(q: URLSearchParams): boolean {
  return q.getAll('dryRun').includes('All');
}

/**
 * Parses the options of a create, update, patch or apply: `dryRun`, `fieldManager`,
 * `force` and `fieldValidation` (passed on as given; the write hooks judge them). The returned options carry an empty `warnings` list for
 * the write path to fill.
 */
export function parseWriteOptions(
  q: URLSearchParams,
  verb = 'create',
): WriteOptions & { warnings: string[] } {
  const opts: WriteOptions & { warnings: string[] } = { warnings: [] };
  if (isDryRun(q)) opts.dryRun = true;
  const manager = q.get('fieldManager');
  if (manager !== null && manager !== '') opts.fieldManager = manager;
  const force = q.get('force');
  if (force !== null) opts.force = force === 'true';
  const fv = q.get('fieldValidation');
  if (fv === 'Strict' || fv === 'Warn' || fv === 'Ignore') opts.fieldValidation = fv;
  else if (fv !== null && fv !== '') {
    // kube-apiserver validates the options object of the verb (CreateOptions, …).
    const kind =
      verb === 'create' ? 'CreateOptions' : verb === 'patch' ? 'PatchOptions' : 'UpdateOptions';
    const message = `Unsupported value: ${JSON.stringify(fv)}: supported values: "", "Ignore", "Strict", "Warn"`;
    throw statusError(
      422,
      'Invalid',
      `${kind}.meta.k8s.io "" is invalid: fieldValidation: ${message}`,
      {
        group: 'meta.k8s.io',
        kind,
        causes: [{ reason: 'FieldValueNotSupported', message, field: 'fieldValidation' }],
      },
    );
  }
  return opts;
}

/** Parses a DeleteOptions body (may be empty) and the `gracePeriodSeconds`/`dryRun` query. */
export function parseDeleteOptions(text: string, q: URLSearchParams): DeleteOpts {
  const out: DeleteOpts = {};
  if (isDryRun(q)) out.dryRun = true;
  const grace = q.get('gracePeriodSeconds');
  if (grace !== null && grace !== '' && Number.isFinite(Number(grace))) {
    out.gracePeriodSeconds = Number(grace);
  }
  const orphan = q.get('orphanDependents');
  if (orphan === 'true' || orphan === 'false') out.orphanDependents = orphan === 'true';
  const policy = q.get('propagationPolicy');
  if (policy !== null && policy !== '') out.propagationPolicy = policy as PropagationPolicy;
  if (text.trim() === '') return checkDeleteOptions(out);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (err) {
    throw badRequest(`invalid DeleteOptions: ${errorMessage(err)}`);
  }
  if (body === null || typeof body !== 'object') return checkDeleteOptions(out);
  const b = body as {
    preconditions?: { uid?: unknown; resourceVersion?: unknown };
    gracePeriodSeconds?: unknown;
    dryRun?: unknown;
    orphanDependents?: unknown;
    propagationPolicy?: unknown;
  };
  if (b.preconditions) {
    const pre: { uid?: string; resourceVersion?: string } = {};
    if (typeof b.preconditions.uid === 'string') pre.uid = b.preconditions.uid;
    if (typeof b.preconditions.resourceVersion === 'string')
      pre.resourceVersion = b.preconditions.resourceVersion;
    out.preconditions = pre;
  }
  if (typeof b.gracePeriodSeconds === 'number') out.gracePeriodSeconds = b.gracePeriodSeconds;
  if (Array.isArray(b.dryRun) && b.dryRun.includes('All')) out.dryRun = true;
  if (typeof b.orphanDependents === 'boolean') out.orphanDependents = b.orphanDependents;
  if (typeof b.propagationPolicy === 'string') {
    out.propagationPolicy = b.propagationPolicy as PropagationPolicy;
  }
  return checkDeleteOptions(out);
}

const propagationPolicies: readonly string[] = ['Foreground', 'Background', 'Orphan'];

/** kube-apiserver's DeleteOptions validation of the propagation fields (422). */
function checkDeleteOptions(opts: DeleteOpts): DeleteOpts {
  const policy = opts.propagationPolicy;
  if (policy === undefined) return opts;
  const invalid = (reason: string, message: string): Error =>
    statusError(
      422,
      'Invalid',
      `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: ${message}`,
      {
        group: 'meta.k8s.io',
        kind: 'DeleteOptions',
        causes: [{ reason, message, field: 'propagationPolicy' }],
      },
    );
  if (!propagationPolicies.includes(policy)) {
    throw invalid(
      'FieldValueNotSupported',
      `Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`,
    );
  }
  if (opts.orphanDependents !== undefined) {
    throw invalid(
      'FieldValueInvalid',
      `Invalid value: "${policy}": orphanDependents and deletionPropagation cannot be both set`,
    );
  }
  return opts;
}
