/**
 * A binary min-heap of waiting items for the delaying queue, ordered by the time at which
 * each becomes ready. Entries remember their position so one can be moved up in O(log n)
 * when a duplicate asks for an earlier time.
 *
 * @module
 */

/** One waiting item in a {@link WaitingHeap}. */
export interface WaitingEntry<T> {
  /** The item to add to the queue when it is ready. */
  item: T;
  /** The item's queue key. */
  key: unknown;
  /** When the item becomes ready, in ms since the epoch (the clock's time). */
  readyAt: number;
  /** Insertion order, to break ties so equal times come out first-in first-out. */
  seq: number;
  /** The entry's position in the heap array (maintained by the heap). */
  index: number;
}

function less<T>(a: WaitingEntry<T>, b: WaitingEntry<T>): boolean {
  return a.readyAt < b.readyAt || (a.readyAt === b.readyAt && a.seq < b.seq);
}

/** A min-heap on `readyAt` with O(log n) push, pop and decrease-key. */
export class WaitingHeap<T> {
  readonly #a: WaitingEntry<T>[] = [];

  /** Number of entries. */
  get size(): number {
    return this.#a.length;
  }

  /** The earliest entry, without removing it. */
  peek(): WaitingEntry<T> | undefined {
    return this.#a[0];
  }

  /** Add an entry. */
  push(entry: WaitingEntry<T>): void {
    entry.index = this.#a.length;
    this.#a.push(entry);
    this.#up(entry.index);
  }

  /** Remove and return the earliest entry. */
  pop(): WaitingEntry<T> | undefined {
    const a = this.#a;
    const top = a[0];
    if (top === undefined) return undefined;
    const last = a.pop()!;
    if (a.length > 0) {
      a[0] = last;
      last.index = 0;
      this.#down(0);
    }
    top.index = -1;
    return top;
  }

  /** Restore order after `entry.readyAt` was made earlier. */
  decreased(entry: WaitingEntry<T>): void {
    this.#up(entry.index);
  }

  /** Remove `entry` from wherever it sits in the heap (O(log n)). */
  remove(entry: WaitingEntry<T>): void {
    const a = this.#a;
    const i = entry.index;
    if (i < 0 || a[i] !== entry) return;
    const last = a.pop()!;
    entry.index = -1;
    if (last === entry) return;
    a[i] = last;
    last.index = i;
    this.#down(i);
    this.#up(last.index);
  }

  /** Remove every entry. */
  clear(): void {
    this.#a.length = 0;
  }

  #up(i: number): void {
    const a = this.#a;
    const e = a[i]!;
    while (i > 0) {
      const p = (i - 1) >> 1;
      const parent = a[p]!;
      if (!less(e, parent)) break;
      a[i] = parent;
      parent.index = i;
      i = p;
    }
    a[i] = e;
    e.index = i;
  }

  #down(i: number): void {
    const a = this.#a;
    const n = a.length;
    const e = a[i]!;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      if (r < n && less(a[r]!, a[l]!)) c = r;
      const child = a[c]!;
      if (!less(child, e)) break;
      a[i] = child;
      child.index = i;
      i = c;
    }
    a[i] = e;
    e.index = i;
  }
}
