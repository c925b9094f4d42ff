/**
 * `metadata.managedFields` as kube-apiserver reads and writes it.
 *
 * A manager is identified by its name, operation, subresource and — for `Update` only —
 * apiVersion: one `Apply` entry per manager and subresource, one `Update` entry per
 * manager, apiVersion and subresource. Entries are written sorted by operation (`Apply`
 * first), then time, manager, apiVersion and subresource.
 *
 * @module
 */
import type { ManagedFieldsEntry } from 'kube-controller-kit';
import { FieldManagerError } from './errors.js';
import { fieldsV1ToSet, setToFieldsV1 } from './fields_v1.js';
import { pathToString } from './path.js';
import type { Conflict, ManagedSets } from './updater.js';

/** Decoded managed fields: the sets and the times, by manager identifier. */
export interface Managed {
  /** Owned fields by manager identifier. */
  sets: ManagedSets;
  /** Time of each manager's last change, by identifier. */
  times: Map<string, string | undefined>;
}

/** An empty {@link Managed}. */
export function emptyManaged(): Managed {
  return { sets: new Map(), times: new Map() };
}

/**
 * The identifier of a manager: the JSON of its entry without fields and time, and without
 * apiVersion for `Apply` (so an applier keeps one entry across versions).
 */
export function managerIdentifier(e: {
  manager?: string | undefined;
  operation: 'Apply' | 'Update';
  apiVersion?: string | undefined;
  subresource?: string | undefined;
}): string {
  const id: Record<string, string> = {};
  if (e.manager) id.manager = e.manager;
  id.operation = e.operation;
  if (e.operation === 'Update' && e.apiVersion) id.apiVersion = e.apiVersion;
  if (e.subresource) id.subresource = e.subresource;
  return JSON.stringify(id);
}

function parseIdentifier(id: string): {
  manager?: string;
  operation: 'Apply' | 'Update';
  apiVersion?: string;
  subresource?: string;
} {
  return JSON.parse(id) as {
    manager?: string;
    operation: 'Apply' | 'Update';
    subresource?: string;
  };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Decodes `metadata.managedFields`. Throws {@link FieldManagerError} for an entry without a
 * valid operation, apiVersion or fieldsType, or with malformed fields.
 */
export function decodeManagedFields(entries: unknown): Managed {
  const out = emptyManaged();
  if (entries === undefined || entries === null) return out;
  if (!Array.isArray(entries)) throw new FieldManagerError('managedFields must be a list');
  entries.forEach((raw, i) => {
    if (!isRecord(raw)) throw new FieldManagerError(`managed fields entry ${i} must be an object`);
    const op = raw.operation;
    if (op !== 'Apply' && op !== 'Update') {
      throw new FieldManagerError('operation must be `Apply` or `Update`');
    }
    if (typeof raw.apiVersion !== 'string' || raw.apiVersion === '') {
      throw new FieldManagerError('apiVersion must not be empty');
    }
    if (raw.fieldsType === undefined || raw.fieldsType === '') {
      throw new FieldManagerError(`missing fieldsType in managed fields entry ${i}`);
    }
    if (raw.fieldsType !== 'FieldsV1') {
      throw new FieldManagerError(
        `invalid fieldsType ${JSON.stringify(raw.fieldsType)} in managed fields entry ${i}`,
      );
    }
    const id = managerIdentifier({
      manager: typeof raw.manager === 'string' ? raw.manager : undefined,
      operation: op,
      apiVersion: raw.apiVersion,
      subresource: typeof raw.subresource === 'string' ? raw.subresource : undefined,
    });
    const set = fieldsV1ToSet(raw.fieldsV1 ?? {});
    out.sets.set(id, { set, apiVersion: raw.apiVersion, applied: op === 'Apply' });
    out.times.set(id, normalizeTime(raw.time));
  });
  return out;
}

/** A time as the server writes it: RFC 3339 in UTC, whole seconds (client-node sends millis). */
function normalizeTime(t: unknown): string | undefined {
  if (typeof t !== 'string' && !(t instanceof Date)) return undefined;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  if (!Number.isFinite(ms)) return undefined;
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function seconds(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : 0;
}

/** Encodes managed fields as kube-apiserver stores them (`undefined` when there are none). */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.sets.size === 0) return undefined;
  const entries: ManagedFieldsEntry[] = [];
  for (const [id, vs] of managed.sets) {
    const who = parseIdentifier(id);
    const e: ManagedFieldsEntry = {};
    if (who.manager) e.manager = who.manager;
    e.operation = vs.applied ? 'Apply' : 'Update';
    e.apiVersion = vs.apiVersion;
    const time = managed.times.get(id);
    if (time !== undefined) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = setToFieldsV1(vs.set);
    if (who.subresource) e.subresource = who.subresource;
    entries.push(e);
  }
  const str = (s: string | undefined): string => s ?? '';
  entries.sort((p, q) => {
    if (p.operation !== q.operation) return str(p.operation) < str(q.operation) ? -1 : 1;
    const d = seconds(p.time) - seconds(q.time);
    if (d !== 0) return d;
    for (const k of ['manager', 'apiVersion', 'subresource'] as const) {
      if (str(p[k]) !== str(q[k])) return str(p[k]) < str(q[k]) ? -1 : 1;
    }
    return 0;
  });
  return entries;
}

/**
 * Whether request managedFields reset the object's: a single empty entry (`[{}]`) does;
 * an empty list does not (so clients unaware of the field never strip it).
 */
export function isResetManagedFields(entries: unknown): boolean {
  return (
    Array.isArray(entries) &&
    entries.length === 1 &&
    isRecord(entries[0]) &&
    Object.keys(entries[0]).length === 0
  );
}

/** A manager as conflict messages name it: `"alice"`, `"bob" using apps/v1`. */
export function printManager(id: string): string {
  let who: ReturnType<typeof parseIdentifier>;
  try {
    who = parseIdentifier(id);
  } catch {
    return JSON.stringify(id);
  }
  let s = JSON.stringify(who.manager ?? '');
  if (who.subresource) s = `${s} with subresource ${JSON.stringify(who.subresource)}`;
  if (who.operation === 'Update') s = `${s} using ${who.apiVersion ?? ''}`;
  return s;
}

/** The message and causes of kube-apiserver's 409 for apply conflicts. */
export function conflictStatus(conflicts: Conflict[]): {
  message: string;
  causes: { reason: 'FieldManagerConflict'; message: string; field: string }[];
} {
  const causes = conflicts.map((c) => ({
    reason: 'FieldManagerConflict' as const,
    message: `conflict with ${printManager(c.manager)}`,
    field: pathToString(c.path),
  }));
  const first = conflicts[0];
  if (conflicts.length === 1 && first) {
    return {
      message: `Apply failed with 1 conflict: conflict with ${printManager(first.manager)}: ${pathToString(first.path)}`,
      causes,
    };
  }
  const lines: string[] = [];
  let last: string | undefined;
  for (const c of conflicts) {
    if (c.manager !== last) {
      lines.push(`conflicts with ${printManager(c.manager)}:`);
      last = c.manager;
    }
    lines.push(`- ${pathToString(c.path)}`);
  }
  return {
    message: `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`,
    causes,
  };
}
