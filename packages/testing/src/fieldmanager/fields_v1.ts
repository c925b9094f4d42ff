/**
 * The `FieldsV1` encoding of a {@link FieldSet}, as stored in `metadata.managedFields`:
 * a JSON object whose keys are serialized path elements (`f:`, `k:`, `v:`, `i:`); an
 * element that is a member with nothing under it is `{}`, one that is both a member and a
 * prefix of deeper paths carries `".": {}` beside its children. Keys are written in the
 * elements' order, so the same set always encodes to the same bytes.
 *
 * @module
 */
import type { FieldsV1 } from 'kube-controller-kit';
import { FieldManagerError } from './errors.js';
import type { PathElement } from './path.js';
import { compareElements, deserializeElement, serializeElement } from './path.js';
import { FieldSet } from './set.js';

/**
 * The value of every leaf of an encoded tree (`{}`): one frozen object shared by every
 * tree, as trees are never changed once built (a Deployment's has some thirty leaves,
 * which each stored object would otherwise keep as objects of its own).
 */
export const FIELDS_LEAF: FieldsV1 = Object.freeze({});

/** Encodes a set as `FieldsV1`. */
export function setToFieldsV1(set: FieldSet): FieldsV1 {
  return encodeLevel(set, false);
}

function encodeLevel(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  const members = set.members();
  const children = set.children();
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = FIELDS_LEAF;
  const entries: { pe: PathElement; member: boolean; child?: FieldSet }[] = [];
  let mi = 0;
  let ci = 0;
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const order = m && c ? compareElements(m, c.pe) : m ? -1 : 1;
    if (order < 0 && m) {
      entries.push({ pe: m, member: true });
      mi++;
    } else if (order > 0 && c) {
      entries.push({ pe: c.pe, member: false, child: c.set });
      ci++;
    } else if (m && c) {
      entries.push({ pe: c.pe, member: true, child: c.set });
      mi++;
      ci++;
    }
  }
  for (const e of entries) {
    out[serializeElement(e.pe)] = e.child ? encodeLevel(e.child, e.member) : FIELDS_LEAF;
  }
  return out;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * Decodes `FieldsV1` into a set. Unknown element kinds are skipped, as the server does;
 * a malformed key or a non-object value throws {@link FieldManagerError}.
 */
export function fieldsV1ToSet(fields: unknown): FieldSet {
  if (!isRecord(fields)) throw new FieldManagerError('FieldsV1 must be a JSON object');
  return decodeLevel(fields).set ?? new FieldSet();
}

function decodeLevel(obj: Record<string, unknown>): { set: FieldSet | undefined; member: boolean } {
  let set: FieldSet | undefined;
  let member = false;
  for (const [key, value] of Object.entries(obj)) {
    if (key === '.') {
      member = true;
      continue;
    }
    const pe = deserializeElement(key);
    if (pe === undefined) continue;
    if (!isRecord(value)) {
      throw new FieldManagerError(`FieldsV1 value of "${key}" must be an object`);
    }
    const inner = decodeLevel(value);
    if (inner.member) {
      set ??= new FieldSet();
      set.addMember(pe);
    }
    if (inner.set) {
      set ??= new FieldSet();
      set.setChild(pe, inner.set);
    }
  }
  if (set === undefined) member = true;
  return { set, member };
}
