/**
 * A set of field paths (structured-merge-diff's `fieldpath.Set`), stored as a tree: at
 * each level, the elements that are themselves in the set (members) and the elements
 * under which deeper paths are (children). A path and its prefix are different members:
 * owning `.spec.replicas` does not own `.spec`.
 *
 * Set operations return new sets; `insert` is the only mutation, for building.
 *
 * @module
 */
import type { FieldPath, PathElement } from './path.js';
import { compareElements, serializeElement } from './path.js';

interface Child {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

function sortedValues<T>(m: Map<string, T>, pe: (t: T) => PathElement): T[] {
  return [...m.values()].sort((a, b) => compareElements(pe(a), pe(b)));
}

/** A set of field paths. */
export class FieldSet {
  readonly #members = new Map<string, PathElement>();
  readonly #children = new Map<string, Child>();

  /** A set of the given paths. */
  static of(...paths: FieldPath[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path (mutates this set; for building). Returns this set. */
  insert(path: FieldPath): this {
    if (path.length === 0) return this;
    let cur = this.#descend(path[0] as PathElement, path.length === 1);
    for (let i = 1; i < path.length - 1; i++) cur = cur.#descend(path[i] as PathElement, false);
    const last = path[path.length - 1] as PathElement;
    cur.#members.set(serializeElement(last), last);
    return this;
  }

  #descend(pe: PathElement, self: boolean): FieldSet {
    if (self) return this;
    const k = serializeElement(pe);
    let c = this.#children.get(k);
    if (!c) {
      c = { pe, set: new FieldSet() };
      this.#children.set(k, c);
    }
    return c.set;
  }

  /** Whether the path is a member. */
  has(path: FieldPath): boolean {
    if (path.length === 0) return false;
    let cur: FieldSet | undefined =
      path.length === 1 ? this : this.#children.get(serializeElement(path[0] as PathElement))?.set;
    for (let i = 1; i < path.length - 1 && cur; i++) {
      cur = cur.#children.get(serializeElement(path[i] as PathElement))?.set;
    }
    if (cur === undefined) return false;
    return cur.#members.has(serializeElement(path[path.length - 1] as PathElement));
  }

  /** Whether the set has no member at any depth. */
  empty(): boolean {
    if (this.#members.size > 0) return false;
    for (const c of this.#children.values()) if (!c.set.empty()) return false;
    return true;
  }

  /** The paths under one element, relative to it (empty when there are none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.#children.get(serializeElement(pe))?.set ?? new FieldSet();
  }

  /** The paths under one element, relative to it, or `undefined` when there are none. */
  below(pe: PathElement): FieldSet | undefined {
    const c = this.#children.get(serializeElement(pe));
    return c === undefined || c.set.empty() ? undefined : c.set;
  }

  /** The members directly at this level (not their children), in order. */
  members(): PathElement[] {
    return sortedValues(this.#members, (x) => x);
  }

  /** Every path, in the server's order: at each level members first, then children. */
  paths(): FieldPath[] {
    const out: FieldPath[] = [];
    const walk = (s: FieldSet, prefix: PathElement[]): void => {
      for (const m of sortedValues(s.#members, (x) => x)) out.push([...prefix, m]);
      for (const c of sortedValues(s.#children, (x) => x.pe)) walk(c.set, [...prefix, c.pe]);
    };
    walk(this, []);
    return out;
  }

  /** Paths in this set or the other. */
  union(o: FieldSet): FieldSet {
    if (o.#bare()) return this;
    if (this.#bare()) return o;
    const out = new FieldSet();
    for (const s of [this, o]) {
      for (const [k, pe] of s.#members) out.#members.set(k, pe);
    }
    for (const [k, a] of this.#children) {
      const b = o.#children.get(k);
      const set = b ? a.set.union(b.set) : a.set.#clone();
      if (!set.empty()) out.#children.set(k, { pe: a.pe, set });
    }
    for (const [k, b] of o.#children) {
      if (this.#children.has(k)) continue;
      const set = b.set.#clone();
      if (!set.empty()) out.#children.set(k, { pe: b.pe, set });
    }
    return out;
  }

  #copy(): FieldSet {
    return this.#clone();
  }

  /**
   * The set itself: a set is never changed once built (only `insert`, while it is being
   * built, writes), so results of the set operations share subtrees with their operands
   * instead of copying them (copying made every write cost a few copies of its field set).
   */
  #clone(): FieldSet {
    return this;
  }

  /** Whether the set has no members and no children at all (cheaper than {@link empty}). */
  #bare(): boolean {
    return this.#members.size === 0 && this.#children.size === 0;
  }

  /** Paths in both sets. */
  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (o.#members.has(k)) out.#members.set(k, pe);
    for (const [k, a] of this.#children) {
      const b = o.#children.get(k);
      if (!b) continue;
      const set = a.set.intersection(b.set);
      if (!set.empty()) out.#children.set(k, { pe: a.pe, set });
    }
    return out;
  }

  /** Paths in this set and not in the other (exact paths: a member never removes its children). */
  difference(o: FieldSet): FieldSet {
    if (o.#bare() || this.#bare()) return this;
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (!o.#members.has(k)) out.#members.set(k, pe);
    for (const [k, a] of this.#children) {
      const b = o.#children.get(k);
      const set = b ? a.set.difference(b.set) : a.set.#copy();
      if (!set.empty()) out.#children.set(k, { pe: a.pe, set });
    }
    return out;
  }

  /** Like {@link difference}, but a member of the other set also removes everything under it. */
  recursiveDifference(o: FieldSet): FieldSet {
    if (o.#bare() || this.#bare()) return this;
    const out = new FieldSet();
    for (const [k, pe] of this.#members) if (!o.#members.has(k)) out.#members.set(k, pe);
    for (const [k, a] of this.#children) {
      if (o.#members.has(k)) continue;
      const b = o.#children.get(k);
      const set = b ? a.set.recursiveDifference(b.set) : a.set.#copy();
      if (!set.empty()) out.#children.set(k, { pe: a.pe, set });
    }
    return out;
  }

  /** Whether both sets hold the same paths. */
  equals(o: FieldSet): boolean {
    return this.difference(o).empty() && o.difference(this).empty();
  }

  /** The children of this level, in order (for walking the tree). */
  children(): { pe: PathElement; set: FieldSet }[] {
    return sortedValues(this.#children, (x) => x.pe);
  }

  /** Whether an element is a member at this level. */
  hasMember(pe: PathElement): boolean {
    return this.#members.has(serializeElement(pe));
  }

  /** Adds a member at this level (mutates; for building). */
  addMember(pe: PathElement): void {
    this.#members.set(serializeElement(pe), pe);
  }

  /** Sets the subset under an element (mutates; for building). */
  setChild(pe: PathElement, set: FieldSet): void {
    if (set.empty()) this.#children.delete(serializeElement(pe));
    else this.#children.set(serializeElement(pe), { pe, set });
  }

  /** The paths, one a line, as kube-apiserver prints them (for test failures). */
  toString(): string {
    return this.paths()
      .map((p) => p.map(serializeElement).join('/'))
      .join('\n');
  }
}
