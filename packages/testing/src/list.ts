/**
 * Lists of the test API server, as kube-apiserver's storage lists: a snapshot at a
 * resourceVersion (the latest, an exact one, or "0" from the watch cache), label, field and
 * shard selectors, pages joined by continue tokens (410 once compacted), and the
 * resourceVersion too new to serve yet.
 *
 * @module
 */
import { KubeControllerKitError, matchesShardRanges } from 'kube-controller-kit';
import type { FieldSelector, LabelSelector } from 'kube-controller-kit';
import type { ShardQuery } from './feature_gates.js';
import { groupResourceKey } from './registry/resource_registry.js';
import type { ResourceType } from './registry/types.js';
import { badRequest, statusError, tooOld } from './status.js';
import type { Storage, StoredObject } from './storage.js';
import { selectableFields } from './watch.js';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** A list result before rendering. */
export interface ListResult {
  /** The snapshot version. */
  rv: number;
  /** The selected items of this page. */
  items: StoredObject[];
  /** Continue token, '' on the last page. */
  continueToken: string;
  /** Items after this page, when known. */
  remaining: number | undefined;
}

/** Query of a list. */
export interface ListQuery {
  /** Namespace, or undefined for all. */
  namespace: string | undefined;
  /** Label selector. */
  label: LabelSelector | undefined;
  /** Field selector. */
  field: FieldSelector | undefined;
  /** resourceVersion parameter. */
  resourceVersion: string | undefined;
  /** resourceVersionMatch parameter. */
  resourceVersionMatch: string | undefined;
  /** Page size (0 = all). */
  limit: number;
  /** Continue token. */
  continueToken: string | undefined;
  /** Shard selector applied (feature gate ShardedListAndWatch), if any. */
  shard?: ShardQuery;
}

/** Encodes a continue token (the same shape kube-apiserver uses). */
export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start })).toString('base64');
}

function decodeContinue(token: string): { rv: number; start: string } {
  try {
    const d = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as unknown;
    if (isObject(d) && typeof d.rv === 'number' && typeof d.start === 'string') {
      return { rv: d.rv, start: d.start };
    }
  } catch {
    // fall through
  }
  throw badRequest(
    'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
  );
}

/** Validates a field selector against the resource's selectable fields (400 otherwise). */
export function checkFieldSelector(type: ResourceType, field: FieldSelector | undefined): void {
  if (!field) return;
  for (const r of field.requirements) {
    const ok =
      r.field === 'metadata.name' ||
      (r.field === 'metadata.namespace' && type.namespaced) ||
      type.fieldSelectors.has(r.field);
    if (!ok) {
      if (type.crdName !== undefined) {
        throw badRequest(
          `"${r.field}" is not a known field selector: only "metadata.name", "metadata.namespace"`,
        );
      }
      throw badRequest(`field label not supported: ${r.field}`);
    }
  }
}

/** Whether an object matches a list/watch query. */
export function selected(
  type: ResourceType,
  o: StoredObject,
  q: Pick<ListQuery, 'label' | 'field' | 'shard'>,
): boolean {
  if (q.label && !q.label.matches(o.obj.metadata?.labels)) return false;
  if (q.field && !q.field.matches(selectableFields(o.obj, type))) return false;
  if (q.shard && !matchesShardRanges(o.obj, q.shard.ranges)) return false;
  return true;
}

/**
 * Lists (one page of) a resource. A resourceVersion newer than the store's is thrown as
 * {@link TooLargeResourceVersion} so that the HTTP layer can wait for it. `watchCache`:
 * a list at resourceVersion "0" is served whole, its `limit` ignored, as kube-apiserver's
 * watch cache does.
 */
export function listObjects(
  storage: Storage,
  type: ResourceType,
  q: ListQuery,
  watchCache: boolean,
): ListResult {
  const grKey = groupResourceKey(type.group, type.resource);
  const current = storage.resourceVersion;
  let rv = current;
  let start = '';
  let limit = q.limit;
  if (q.continueToken) {
    const c = decodeContinue(q.continueToken);
    if (c.rv < storage.compactedResourceVersion) {
      throw statusError(
        410,
        'Expired',
        'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
      );
    }
    rv = c.rv;
    start = c.start;
  } else if (q.resourceVersion !== undefined && q.resourceVersion !== '') {
    const asked = Number(q.resourceVersion);
    if (!Number.isInteger(asked) || asked < 0) {
      throw badRequest(
        `resourceVersion: Invalid value: "${q.resourceVersion}": must be a valid resource version`,
      );
    }
    const exact =
      q.resourceVersionMatch === 'Exact' ||
      (q.resourceVersionMatch === undefined && limit > 0 && asked !== 0);
    if (asked === 0) {
      if (q.resourceVersionMatch === undefined && watchCache) limit = 0;
    } else if (asked > current) {
      throw new TooLargeResourceVersion(asked, current);
    } else if (exact) {
      if (asked < storage.compactedResourceVersion) {
        throw tooOld(q.resourceVersion, storage.compactedResourceVersion + 1);
      }
      rv = asked;
    }
  } else if (q.resourceVersionMatch !== undefined) {
    throw badRequest(
      `resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided`,
    );
  }
  const ns = type.namespaced ? q.namespace : undefined;
  const all = rv === current ? storage.list(grKey, ns) : storage.listAt(grKey, rv, ns);
  const items: StoredObject[] = [];
  let i = 0;
  if (start !== '') {
    // Binary search past the start key.
    let lo = 0;
    let hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((all[mid]?.key ?? '') <= start) lo = mid + 1;
      else hi = mid;
    }
    i = lo;
  }
  const filtered = q.label !== undefined || q.field !== undefined || q.shard !== undefined;
  for (; i < all.length; i++) {
    const o = all[i];
    if (!o) continue;
    if (filtered && !selected(type, o, q)) continue;
    if (limit > 0 && items.length === limit) break;
    items.push(o);
  }
  let continueToken = '';
  let remaining: number | undefined;
  if (limit > 0 && i < all.length) {
    const last = items[items.length - 1];
    if (last) {
      // Is anything selected left?
      let more = !filtered;
      for (let j = i; !more && j < all.length; j++) {
        const o = all[j];
        if (o && selected(type, o, q)) more = true;
      }
      if (more) {
        continueToken = encodeContinue(rv, last.key);
        // kube-apiserver counts the keys left when the predicate has no label or field
        // selector; a shardSelector is not part of it, so a shard-only list has the count
        // too (of every key left, as the store counts them before filtering).
        if (q.label === undefined && q.field === undefined) remaining = all.length - i;
      }
    }
  }
  return { rv, items, continueToken, remaining };
}

/** A list or watch asked for a resourceVersion newer than the store's. */
export class TooLargeResourceVersion extends KubeControllerKitError {
  /** The version asked for. */
  readonly asked: number;
  /** The current version. */
  readonly current: number;
  /** @param asked - asked; @param current - current. */
  constructor(asked: number, current: number) {
    super(`Too large resource version: ${asked}, current: ${current}`);
    this.asked = asked;
    this.current = current;
  }
}
