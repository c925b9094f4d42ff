/**
 * The fan-out from an informer to its event handlers (client-go's `sharedProcessor` and
 * `processorListener`, `tools/cache/shared_informer.go`).
 *
 * Each handler gets a {@link ProcessorListener}: its own unbounded buffer of notifications
 * (a growable ring, as k8s.io/utils `buffer.RingGrowing`) and its own delivery loop, which
 * calls the handler once per notification, in order, awaiting a returned promise before
 * the next call. So a slow or async handler delays only itself; the informer and the other
 * handlers go on. A handler that throws or rejects is reported (error hook and logger) and
 * the next notification is delivered as usual.
 *
 * Stopping drops the notifications still buffered; the loop settles once the call in
 * flight (if any) has settled.
 *
 * @module
 */
import type { Clock } from '../util/clock.js';
import { Deque } from '../util/deque.js';
import { errorMessage } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import type { DeepReadonly } from './deep_readonly.js';
import type { DeletedFinalStateUnknown } from './keys.js';

/**
 * Callbacks for the changes an informer sees. Each may return a promise: the handler's
 * next notification waits for it to settle (other handlers do not).
 *
 * The objects are the cache's own instances, shared with every other handler and lister,
 * so they are typed {@link DeepReadonly}: a handler that wants to change one copies it
 * first with `deepCopy(obj)`, which returns a mutable `T`.
 *
 * @typeParam T - the object type.
 */
export interface ResourceEventHandler<T> {
  /**
   * An object entered the cache. `isInInitialList` is true for objects of the first list
   * (and for the cache replayed to a handler added after start).
   */
  onAdd?(obj: DeepReadonly<T>, isInInitialList: boolean): void | Promise<void>;
  /**
   * An object in the cache changed, or (old and new with the same resourceVersion) a
   * periodic resync or relist re-delivered it.
   */
  onUpdate?(oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>): void | Promise<void>;
  /**
   * An object left the cache. A {@link DeletedFinalStateUnknown} tombstone stands for an
   * object deleted while the watch was down (seen missing from a relist); its `obj` is
   * the last state the cache held.
   */
  onDelete?(
    objOrTombstone: DeepReadonly<T> | DeletedFinalStateUnknown<DeepReadonly<T>>,
  ): void | Promise<void>;
}

/** Which callback a notification is for: `onAdd`, `onUpdate` or `onDelete`. */
export const NotificationKind = {
  /** `onAdd`. */
  Add: 0,
  /** `onUpdate`. */
  Update: 1,
  /** `onDelete`. */
  Delete: 2,
} as const;

/** One of the {@link NotificationKind} values. */
export type NotificationKind = (typeof NotificationKind)[keyof typeof NotificationKind];

/** One buffered call of a handler. */
export interface Notification<T> {
  /** Which callback. */
  readonly kind: NotificationKind;
  /** The object (new object for updates; object or tombstone for deletes). */
  readonly obj: T | DeletedFinalStateUnknown<T>;
  /** The old object of an update. */
  readonly oldObj: T | undefined;
  /** For adds: part of the initial list. */
  readonly isInInitialList: boolean;
}

/** Reports a handler's failure: the error, which callback, and the handler's name. */
export type HandlerErrorHook = (
  error: unknown,
  context: { readonly handler: string; readonly callback: 'onAdd' | 'onUpdate' | 'onDelete' },
) => void;

/**
 * The growable ring buffer behind each handler's queue: the library's one {@link Deque}
 * (`src/util/deque.ts`), under client-go's name.
 */
export const RingGrowing = Deque;
/** The growable ring buffer behind each handler's queue (a {@link Deque}). */
export type RingGrowing<V> = Deque<V>;

/** Options of a {@link ProcessorListener}. */
export interface ProcessorListenerOptions {
  /** Name in logs and in the error hook. */
  name: string;
  /** The resync period asked for (0 = none). */
  requestedResyncPeriodMs: number;
  /** The resync period in effect after clamping. */
  resyncPeriodMs: number;
  /** Source of time. */
  clock: Clock;
  /** Where failures are logged. */
  logger: Logger;
  /** Called with every failure of the handler. */
  onHandlerError?: HandlerErrorHook | undefined;
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    v !== null && typeof v === 'object' && typeof (v as { then?: unknown }).then === 'function'
  );
}

const yieldEvery = 1024;
const yieldTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * One handler's buffer and delivery loop.
 *
 * @typeParam T - the object type.
 */
export class ProcessorListener<T> {
  /** The handler this listener calls. */
  readonly handler: ResourceEventHandler<T>;
  /** Name in logs and in the error hook. */
  readonly name: string;
  /** The resync period asked for (0 = none). */
  readonly requestedResyncPeriodMs: number;
  #resyncPeriodMs: number;
  #nextResync: number;
  readonly #clock: Clock;
  readonly #logger: Logger;
  readonly #onHandlerError: HandlerErrorHook | undefined;
  /** Starts small (it doubles as needed): 64 slots would be 0.5 KB per idle handler. */
  readonly #buffer = new RingGrowing<Notification<T>>(4);
  #pendingInitial = 0;
  #stopped = false;
  #running: Promise<void> | undefined;
  /** Settles {@link ProcessorListener.run}'s promise; set once it was called. */
  #done: (() => void) | undefined;
  /** Rejects {@link ProcessorListener.run}'s promise (a delivery loop failed outside a handler). */
  #failed: ((err: unknown) => void) | undefined;
  /** A delivery loop is running (it ends when the buffer is empty, and `add` starts one). */
  #active = false;
  readonly #startLoop = (): void => {
    this.#loop().catch((err: unknown) => {
      this.#active = false;
      this.#failed?.(err);
    });
  };

  /** @param handler - the callbacks; @param options - name, resync, clock, logger, error hook. */
  constructor(handler: ResourceEventHandler<T>, options: ProcessorListenerOptions) {
    this.handler = handler;
    this.name = options.name;
    this.requestedResyncPeriodMs = options.requestedResyncPeriodMs;
    this.#resyncPeriodMs = options.resyncPeriodMs;
    this.#clock = options.clock;
    this.#logger = options.logger;
    this.#onHandlerError = options.onHandlerError;
    this.#nextResync = this.#clock.now() + this.#resyncPeriodMs;
  }

  /** The resync period in effect (0 = none). */
  get resyncPeriodMs(): number {
    return this.#resyncPeriodMs;
  }

  /** Change the resync period in effect (the check period changed before start). */
  setResyncPeriod(ms: number): void {
    this.#resyncPeriodMs = ms;
    this.#nextResync = this.#clock.now() + ms;
  }

  /** True when a resync period is set and it is due at `now`. */
  shouldResync(now: number): boolean {
    return this.#resyncPeriodMs > 0 && now >= this.#nextResync;
  }

  /** Schedule the next resync one period after `now`. */
  determineNextResync(now: number): void {
    this.#nextResync = now + this.#resyncPeriodMs;
  }

  /** How many notifications wait in the buffer. */
  get pending(): number {
    return this.#buffer.length;
  }

  /** How many initial-list adds queued to this handler are not yet processed. */
  get pendingInitial(): number {
    return this.#pendingInitial;
  }

  /** True after {@link ProcessorListener.stop}. */
  get stopped(): boolean {
    return this.#stopped;
  }

  /** Queue a notification; ignored once stopped. */
  add(n: Notification<T>): void {
    if (this.#stopped) return;
    if (n.kind === NotificationKind.Add && n.isInInitialList) this.#pendingInitial++;
    this.#buffer.push(n);
    if (this.#done !== undefined && !this.#active) {
      // Delivered from a microtask, as a loop awaiting its next item would be: never
      // inside the informer's cache update.
      this.#active = true;
      queueMicrotask(this.#startLoop);
    }
  }

  /**
   * Start delivering (once); the promise settles after {@link ProcessorListener.stop}, once
   * the handler call in flight (if any) settled. Between notifications nothing is pending:
   * the delivery loop ends when the buffer is empty and the next `add` starts it again.
   */
  run(): Promise<void> {
    this.#running ??= new Promise<void>((done, failed) => {
      this.#done = done;
      this.#failed = failed;
      this.#active = true;
      this.#startLoop();
    });
    return this.#running;
  }

  /** Stop delivering: buffered notifications are dropped, the loop ends after the call in flight. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    this.#buffer.clear();
    this.#pendingInitial = 0;
    // A loop that is running settles run() when its call in flight is done.
    if (!this.#active) this.#done?.();
  }

  async #loop(): Promise<void> {
    let sinceYield = 0;
    while (!this.#stopped) {
      const n = this.#buffer.shift();
      if (n === undefined) {
        this.#active = false;
        return;
      }
      try {
        const r = this.#call(n);
        if (isThenable(r)) await r;
      } catch (err) {
        this.#report(err, n.kind);
      }
      if (n.kind === NotificationKind.Add && n.isInInitialList && this.#pendingInitial > 0)
        this.#pendingInitial--;
      if (++sinceYield >= yieldEvery) {
        sinceYield = 0;
        await yieldTurn();
      }
    }
    this.#active = false;
    this.#done?.();
  }

  #call(n: Notification<T>): unknown {
    const h = this.handler;
    switch (n.kind) {
      case NotificationKind.Add:
        return h.onAdd?.(n.obj as DeepReadonly<T>, n.isInInitialList);
      case NotificationKind.Update:
        return h.onUpdate?.(n.oldObj as DeepReadonly<T>, n.obj as DeepReadonly<T>);
      case NotificationKind.Delete:
        return h.onDelete?.(n.obj as DeepReadonly<T> | DeletedFinalStateUnknown<DeepReadonly<T>>);
    }
  }

  #report(err: unknown, kind: NotificationKind): void {
    const callback =
      kind === NotificationKind.Add
        ? 'onAdd'
        : kind === NotificationKind.Update
          ? 'onUpdate'
          : 'onDelete';
    this.#logger.error(
      `${this.name}: event handler ${callback} failed; the informer goes on with the next event`,
      { error: errorMessage(err) },
    );
    if (this.#onHandlerError === undefined) return;
    try {
      this.#onHandlerError(err, { handler: this.name, callback });
    } catch (hookErr) {
      this.#logger.error(`${this.name}: the onHandlerError hook itself threw`, {
        error: errorMessage(hookErr),
      });
    }
  }
}

/**
 * The set of listeners of one informer: distributes notifications, tracks which
 * listeners are due for resync.
 *
 * @typeParam T - the object type.
 */
export class SharedProcessor<T> {
  readonly #listeners = new Set<ProcessorListener<T>>();
  #syncing: ProcessorListener<T>[] = [];
  #started = false;
  readonly #clock: Clock;
  readonly #runs: Promise<void>[] = [];

  /** @param clock - source of time for resync decisions. */
  constructor(clock: Clock) {
    this.#clock = clock;
  }

  /** The current listeners. */
  get listeners(): ReadonlySet<ProcessorListener<T>> {
    return this.#listeners;
  }

  /** How many listeners there are. */
  get size(): number {
    return this.#listeners.size;
  }

  /** Add a listener; starts its loop if the processor runs. */
  addListener(l: ProcessorListener<T>): void {
    this.#listeners.add(l);
    if (this.#started) this.#runs.push(l.run());
  }

  /** Remove and stop a listener; false if it was not registered. */
  removeListener(l: ProcessorListener<T>): boolean {
    if (!this.#listeners.delete(l)) return false;
    this.#syncing = this.#syncing.filter((x) => x !== l);
    l.stop();
    return true;
  }

  /** Start every listener's loop. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    for (const l of this.#listeners) this.#runs.push(l.run());
  }

  /** Stop every listener; resolves once their loops have ended. */
  async stop(): Promise<void> {
    for (const l of this.#listeners) l.stop();
    await Promise.all(this.#runs);
  }

  /** Send to every listener, or (when `sync`) only to the listeners due for resync. */
  distribute(n: Notification<T>, sync: boolean): void {
    if (sync) {
      for (const l of this.#syncing) l.add(n);
    } else {
      for (const l of this.#listeners) l.add(n);
    }
  }

  /** True when some listener is due for resync; flags those listeners. */
  shouldResync(): boolean {
    const now = this.#clock.now();
    const syncing: ProcessorListener<T>[] = [];
    for (const l of this.#listeners) {
      if (l.shouldResync(now)) {
        syncing.push(l);
        l.determineNextResync(now);
      }
    }
    this.#syncing = syncing;
    return syncing.length > 0;
  }

  /** True when some listener is flagged for the current resync. */
  hasSyncingListeners(): boolean {
    return this.#syncing.length > 0;
  }

  /** The check period changed (before start): recompute every listener's period with `determine`. */
  resyncCheckPeriodChanged(determine: (requestedMs: number) => number): void {
    for (const l of this.#listeners) l.setResyncPeriod(determine(l.requestedResyncPeriodMs));
  }
}
