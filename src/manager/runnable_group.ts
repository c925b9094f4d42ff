/**
 * Runnable groups (controller-runtime's `runnable_group.go`): the Manager sorts what it runs
 * into groups — HTTP servers, webhooks, caches, other runnables, leader-election runnables —
 * and starts and stops whole groups, one after another. The order is the data in
 * {@link RUNNABLE_GROUP_ORDER}: groups start in that order and stop in the reverse one.
 *
 * A group's contract:
 *
 * - `add` before `start` queues the runnable; `start` launches the queue and resolves once
 *   every queued runnable is ready (its ready check passed; no check: at once). `add` after
 *   `start` launches the runnable at once, without waiting for it.
 * - A runnable that fails, or whose ready check fails, is reported to the group's
 *   `onError` (the Manager stops), with the error as it is.
 * - `stopAndWait` aborts the group's signal (the one every runnable of the group got) and
 *   waits for them all, or until the shutdown deadline. A group stopped before it started
 *   never starts its runnables; `add` to a stopped group throws {@link ManagerStoppingError}.
 *
 * @module
 */
import { isAbortError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { ManagerStoppingError } from './errors.js';

/**
 * The groups a `Manager` runs, in start order (controller-runtime's `runnables`):
 *
 * - `httpServers`: the probe and metrics servers, first, so probes answer while the rest
 *   starts;
 * - `webhooks`: the webhook server, before the caches (a conversion webhook must serve
 *   before an informer of a converted resource can list);
 * - `caches`: the informer factories; the group is ready when they synced;
 * - `others`: runnables that do not need leader election, started once the caches synced;
 * - `leaderElection`: controllers and every runnable that needs the lease, started when
 *   this process leads (at once without leader election).
 */
export type RunnableGroupName = 'httpServers' | 'webhooks' | 'caches' | 'others' | 'leaderElection';

/** The start order of the Manager's groups; shutdown stops them in the reverse order. */
export const RUNNABLE_GROUP_ORDER: readonly RunnableGroupName[] = Object.freeze([
  'httpServers',
  'webhooks',
  'caches',
  'others',
  'leaderElection',
]);

/** What a group runs (the Manager builds these from runnables and controllers). */
export interface GroupRunnable {
  /** The name in logs. */
  readonly name: string;
  /** Runs until `signal` (the group's) aborts; settles once everything it started stopped. */
  start(signal: AbortSignal): void | Promise<void>;
  /**
   * Resolves once the runnable is ready (e.g. a server listens, a cache synced); rejecting
   * means it failed. `signal` is the group's. Absent: ready as soon as it started.
   */
  ready?(signal: AbortSignal): void | Promise<void>;
  /** What it is busy with, for the log line of a shutdown that timed out (reconciled keys). */
  activeWork?(): readonly string[];
}

/** Options of a {@link RunnableGroup}. */
export interface RunnableGroupOptions {
  /** The group's name. */
  readonly name: RunnableGroupName;
  /** Where it logs each start and stop. */
  readonly logger: Logger;
  /** Called once with the failure of a runnable or of its ready check (the Manager stops). */
  readonly onError: (runnable: string, err: unknown) => void;
}

interface Launched {
  readonly runnable: GroupRunnable;
  done: Promise<void>;
}

/** A set of runnables started together and stopped together (see the module documentation). */
export class RunnableGroup {
  /** The group's name. */
  readonly name: RunnableGroupName;
  readonly #logger: Logger;
  readonly #onError: (runnable: string, err: unknown) => void;
  readonly #queue: GroupRunnable[] = [];
  readonly #running = new Set<Launched>();
  readonly #stop = new AbortController();
  #started = false;
  #stopping: Promise<boolean> | undefined;

  constructor(options: RunnableGroupOptions) {
    this.name = options.name;
    this.#logger = options.logger;
    this.#onError = options.onError;
  }

  /** Whether `start` was called (or the group was stopped before it). */
  get started(): boolean {
    return this.#started;
  }

  /** Whether `stopAndWait` was called. */
  get stopped(): boolean {
    return this.#stopping !== undefined;
  }

  /** The signal every runnable of the group runs under; aborted by `stopAndWait`. */
  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** How many runnables are queued or running. */
  get size(): number {
    return this.#queue.length + this.#running.size;
  }

  /**
   * Queue `runnable` (before `start`) or launch it now (after).
   *
   * @throws {@link ManagerStoppingError} once the group is stopping.
   */
  add(runnable: GroupRunnable): void {
    if (this.stopped) throw new ManagerStoppingError(runnable.name);
    if (!this.#started) {
      this.#queue.push(runnable);
      return;
    }
    void this.#launch(runnable);
  }

  /**
   * Launch the queued runnables and resolve once each is ready, ended or failed (failures
   * go to `onError`), or once `signal` aborts (the caller gave up waiting). Only the first
   * call does anything.
   */
  async start(signal: AbortSignal): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const queue = this.#queue.splice(0);
    if (queue.length === 0) return;
    const ready = Promise.all(queue.map((r) => this.#launch(r)));
    let onAbort: (() => void) | undefined;
    const aborted = new Promise<void>((resolve) => {
      onAbort = resolve;
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', onAbort, { once: true });
    });
    try {
      await Promise.race([ready.then(() => undefined), aborted]);
    } finally {
      signal.removeEventListener('abort', onAbort!);
    }
  }

  /** Starts `runnable`; the promise settles when it is ready or failed. */
  #launch(runnable: GroupRunnable): Promise<void> {
    const signal = this.#stop.signal;
    this.#logger.info(`manager: starting ${runnable.name}`);
    let failed = false;
    const report = (err: unknown): void => {
      if (failed || (signal.aborted && isAbortError(err, signal))) return;
      failed = true;
      this.#logger.error(`manager: ${runnable.name} failed`, { error: err });
      this.#onError(runnable.name, err);
    };
    const entry: Launched = { runnable, done: Promise.resolve() };
    this.#running.add(entry);
    entry.done = (async () => {
      try {
        await runnable.start(signal);
        this.#logger.info(`manager: ${runnable.name} stopped`);
      } catch (err) {
        report(err);
      } finally {
        this.#running.delete(entry);
      }
    })();
    if (runnable.ready === undefined) return Promise.resolve();
    const ready = (async () => {
      await runnable.ready!(signal);
    })().catch(report);
    // A runnable that ends (or fails) before its ready check passed does not hold start.
    return Promise.race([ready, entry.done]);
  }

  /**
   * Stop the group: abort its signal and wait for every runnable to settle, or until
   * `deadline` aborts (undefined: wait for all). When the deadline has already passed the
   * runnables get one turn of the event loop to settle. Later calls share the first one's
   * promise. Resolves true when every runnable stopped.
   */
  stopAndWait(deadline?: AbortSignal, reason?: unknown): Promise<boolean> {
    if (this.#stopping !== undefined) return this.#stopping;
    this.#started = true;
    this.#queue.length = 0;
    this.#stop.abort(reason);
    const all = (async (): Promise<boolean> => {
      while (this.#running.size > 0) await Promise.all([...this.#running].map((e) => e.done));
      return true;
    })();
    this.#stopping = deadline === undefined ? all : raceDeadline(all, deadline);
    return this.#stopping;
  }

  /** The names of the runnables queued or running. */
  names(): string[] {
    return [...this.#queue.map((r) => r.name), ...[...this.#running].map((e) => e.runnable.name)];
  }

  /** The runnables still running, each with what it is busy with. */
  running(): string[] {
    return [...this.#running].map(({ runnable }) => {
      const work = runnable.activeWork?.() ?? [];
      return work.length > 0 ? `${runnable.name} (reconciling ${work.join(', ')})` : runnable.name;
    });
  }
}

/** `p`, or false once `deadline` aborted (after one turn of the event loop if it already had). */
function raceDeadline(p: Promise<boolean>, deadline: AbortSignal): Promise<boolean> {
  return new Promise<boolean>((resolve) => {
    let settle: (() => void) | undefined;
    let immediate: NodeJS.Immediate | undefined;
    const finish = (value: boolean): void => {
      if (settle !== undefined) deadline.removeEventListener('abort', settle);
      if (immediate !== undefined) clearImmediate(immediate);
      resolve(value);
    };
    if (deadline.aborted) {
      immediate = setImmediate(() => finish(false));
    } else {
      settle = () => finish(false);
      deadline.addEventListener('abort', settle, { once: true });
    }
    void p.then(() => finish(true));
  });
}
