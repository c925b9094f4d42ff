/**
 * One growable FIFO deque (a ring buffer) for every queue in the library: each handler's
 * notification buffer (also behind each `CRDInformerManager` handler), the keys of a
 * `DeltaFIFO`, the deltas of a `RealFIFO`, the items of a work queue and the events an
 * `EventBroadcaster` has yet to write. (The watch decoder keeps its own paused buffer.)
 *
 * @module
 */

/**
 * A growable ring buffer: `push` at the back, `shift` from the front, both O(1) amortised;
 * the capacity doubles when full and is a power of two. Values are released as they are
 * taken (no retention by the buffer).
 *
 * @typeParam V - the value type.
 */
export class Deque<V> {
  #data: (V | undefined)[];
  #mask: number;
  #start = 0;
  #length = 0;

  /** @param initialSize - initial capacity, rounded up to a power of two (at least 1). */
  constructor(initialSize = 64) {
    let cap = 1;
    while (cap < initialSize) cap *= 2;
    this.#data = new Array<V | undefined>(cap);
    this.#mask = cap - 1;
  }

  /** How many values are queued. */
  get length(): number {
    return this.#length;
  }

  /** The current capacity. */
  get capacity(): number {
    return this.#data.length;
  }

  /** Append a value, doubling the capacity if full. */
  push(value: V): void {
    const cap = this.#data.length;
    if (this.#length === cap) {
      const next = new Array<V | undefined>(cap * 2);
      for (let i = 0; i < this.#length; i++) next[i] = this.#data[(this.#start + i) & this.#mask];
      this.#data = next;
      this.#mask = cap * 2 - 1;
      this.#start = 0;
    }
    this.#data[(this.#start + this.#length) & this.#mask] = value;
    this.#length++;
  }

  /** Remove and return the oldest value, or undefined when empty. */
  shift(): V | undefined {
    if (this.#length === 0) return undefined;
    const v = this.#data[this.#start];
    this.#data[this.#start] = undefined;
    this.#start = (this.#start + 1) & this.#mask;
    this.#length--;
    return v;
  }

  /** The oldest value without removing it, or undefined when empty. */
  peek(): V | undefined {
    return this.#length === 0 ? undefined : this.#data[this.#start];
  }

  /** Drop every value (capacity is kept). */
  clear(): void {
    this.#data.fill(undefined);
    this.#start = 0;
    this.#length = 0;
  }

  /** The queued values, oldest first (do not modify the deque while iterating). */
  *[Symbol.iterator](): IterableIterator<V> {
    for (let i = 0; i < this.#length; i++) yield this.#data[(this.#start + i) & this.#mask] as V;
  }
}
