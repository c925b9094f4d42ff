/**
 * Server-side sharding (KEP-5866): a member of a ring that owns ranges of the hash space
 * and asks the API server for only its objects with a `shardSelector`. No label on any
 * object, no sharder: the only writes are one small Lease per shard, changed when the
 * ring changes.
 *
 * Rules:
 *
 * - **Membership is the same shard Lease** as in label mode ({@link Shard}): a replica works
 *   only while it holds its Lease, and stops before the Lease can expire.
 * - **Desired ranges from the same ring.** Every replica builds the {@link HashRing} of the
 *   live shard Leases and takes the ranges of the 64-bit hash space its points own
 *   ({@link hashRanges}); all replicas compute the same split without talking.
 * - **Held ranges are announced.** Each replica writes the ranges it is working on (its
 *   informers watch them) to its ranges Lease (`<ring>-<shard>-ranges`, annotation
 *   `sharding.<domain>/ranges`). Claims of a shard whose membership Lease is not live are
 *   void (that shard has stopped working before its Lease could expire).
 * - **Give up first.** When the ring takes ranges away, the replica stops its work (its
 *   informers and controller; in-flight reconciles finish: the drain), then announces the
 *   smaller set, then restarts on what it keeps.
 * - **Take only what nobody holds.** A replica claims a desired range only when no live
 *   shard announces it: it writes its claim, reads every claim again, and withdraws when
 *   another live shard claims an overlapping range (write, then read: of two racing
 *   claimants at least the later one sees the other and backs off). Only then does it
 *   start work on the range. So no hash is ever worked on by two replicas at once, and
 *   during a handover nobody works on the moving ranges for about one sync period.
 *
 * @module
 */
import { leases } from '../client/builtins.js';
import { isAlreadyExists, isNotFound } from '../client/errors.js';
import type { ShardField } from '../apimachinery/shard_selector.js';
import type { Lease } from '../leaderelection/lease_lock.js';
import type { Clock } from '../util/clock.js';
import { realClock } from '../util/clock.js';
import { errorMessage, KubeControllerKitError } from '../util/errors.js';
import type { Logger } from '../util/logger.js';
import { defaultLogger } from '../util/logger.js';
import { DEFAULT_SHARDING_DOMAIN } from './names.js';
import {
  formatRanges,
  hashRanges,
  intersectRanges,
  parseRanges,
  rangesEqual,
  rangesSelector,
  rangesShare,
  subtractRanges,
  unionRanges,
} from './ranges.js';
import type { HashRangeSet } from './ranges.js';
import { HashRing } from './ring.js';
import { Shard, ShardLeaseLostError } from './shard.js';
import type { ShardOptions, ShardRunnable, ShardRunOutcome } from './shard.js';

/** Default points per shard on the ring in server mode: 16 keeps a selector near 1 KiB. */
export const DEFAULT_RANGE_VIRTUAL_NODES = 16;

/** Options of a {@link RangeShard}: a {@link Shard}'s, and how ranges are drawn and synced. */
export interface RangeShardOptions extends Omit<ShardOptions, 'metrics'> {
  /**
   * Points per shard on the ring (default 16). Each point is one range in the selector;
   * more points spread objects more evenly and make longer selectors. Every replica of a
   * ring must use the same value.
   */
  virtualNodes?: number;
  /** The field the server hashes (default `object.metadata.uid`). */
  field?: ShardField;
  /** How often the ring and the claims are read again (default `retryPeriodMs`, 2000). */
  syncPeriodMs?: number;
  /** Source of randomness in [0, 1), for the jitter of syncs (tests pin it). */
  random?: () => number;
}

/**
 * The work of a range shard: run informers and controllers with `shardSelector` until
 * `signal` aborts, then return once everything stopped (in-flight reconciles finished).
 */
export type RangeShardWork = (shardSelector: string, signal: AbortSignal) => Promise<void>;

/** A range shard could not write the ranges it holds. */
export class RangeShardError extends KubeControllerKitError {}

/** A member of a ring in server-side sharding mode. */
export class RangeShard {
  /** This shard's name. */
  readonly name: string;
  /** The membership Lease and its labels (shared with label mode). */
  readonly shard: Shard;
  /** Name of the Lease that announces this shard's held ranges. */
  readonly rangesLeaseName: string;
  /** The annotation carrying the held ranges. */
  readonly rangesAnnotation: string;
  readonly #options: RangeShardOptions;
  readonly #logger: Logger;
  readonly #clock: Clock;
  readonly #random: () => number;
  readonly #virtualNodes: number;
  readonly #rangesLabel: string;
  #held: HashRangeSet = [];

  /**
   * @param options - ring, shard name, Lease namespace, where to write, and timing.
   * @throws `ShardingNameError` when a name cannot be used in a label or a Lease name.
   */
  constructor(options: RangeShardOptions) {
    this.shard = new Shard(options);
    this.name = options.name;
    this.rangesLeaseName = `${this.shard.leaseName}-ranges`;
    const domain = options.domain ?? DEFAULT_SHARDING_DOMAIN;
    this.rangesAnnotation = `sharding.${domain}/ranges`;
    this.#rangesLabel = `sharding.${domain}/ranges-of`;
    this.#options = options;
    this.#logger = options.logger ?? defaultLogger;
    this.#clock = options.clock ?? realClock;
    this.#random = options.random ?? Math.random;
    this.#virtualNodes = options.virtualNodes ?? DEFAULT_RANGE_VIRTUAL_NODES;
  }

  /** The ranges this replica works on now (empty while it waits for a handover). */
  heldRanges(): HashRangeSet {
    return this.#held;
  }

  /** The selector of {@link RangeShard.heldRanges}, or undefined when it holds nothing. */
  shardSelector(): string | undefined {
    return rangesSelector(this.#held, this.#options.field);
  }

  /**
   * Holds the shard Lease and, while holding it, runs `work` on the ranges this replica
   * holds, restarting it (after it has fully stopped) whenever they change. Resolves after
   * everything stopped.
   */
  run(work: RangeShardWork, signal?: AbortSignal): Promise<ShardRunOutcome> {
    return this.shard.run((s) => this.#coordinate(work, s), signal);
  }

  /** The shard as a Manager runnable (`manager.add(shard.runnable(work))`). */
  runnable(work: RangeShardWork): ShardRunnable {
    return {
      name: `range shard ${this.name} of ring ${this.shard.labels.ring}`,
      needLeaderElection: false,
      start: async (signal) => {
        const outcome = await this.run(work, signal);
        if (outcome === 'lease-lost') {
          throw new ShardLeaseLostError(
            `shard ${this.name} of ring ${this.shard.labels.ring} could not renew its Lease ${this.shard.leaseName} in time and stopped; restart the process to rejoin`,
          );
        }
      },
    };
  }

  // ── coordination ───────────────────────────────────────────────────────────────────

  #client(): ReturnType<typeof leases> {
    return leases(this.#options.source, { namespace: this.#options.namespace });
  }

  async #coordinate(work: RangeShardWork, signal: AbortSignal): Promise<void> {
    let running: { ac: AbortController; done: Promise<void>; ended: boolean } | undefined;
    const stop = async (): Promise<void> => {
      if (running === undefined) return;
      running.ac.abort();
      await running.done;
      running = undefined;
    };
    const start = (): void => {
      const selector = this.shardSelector();
      if (selector === undefined) return;
      const ac = new AbortController();
      const onAbort = (): void => ac.abort();
      signal.addEventListener('abort', onAbort, { once: true });
      const r = {
        ac,
        ended: false,
        done: Promise.resolve()
          .then(() => work(selector, ac.signal))
          .catch((err: unknown) => {
            if (!ac.signal.aborted)
              this.#logger.error('range shard work failed; restarting it', {
                shard: this.name,
                error: errorMessage(err),
              });
          })
          .finally(() => {
            r.ended = true;
            signal.removeEventListener('abort', onAbort);
          }),
      };
      running = r;
    };
    const period = this.#options.syncPeriodMs ?? this.#options.retryPeriodMs ?? 2000;
    this.#held = [];
    try {
      // A previous life of this shard may have left claims: nothing is held now.
      await this.#announce([], signal);
      while (!signal.aborted) {
        try {
          const changed = await this.#step(signal, stop);
          if (
            changed ||
            (running?.ended ?? false) ||
            (running === undefined && this.#held.length > 0)
          ) {
            await stop();
            start();
          }
        } catch (err) {
          if (signal.aborted) break;
          this.#logger.warn('range shard could not sync its ranges; retrying', {
            shard: this.name,
            error: errorMessage(err),
          });
        }
        try {
          await this.#clock.sleep(period * (1 + this.#random() * 0.5), signal);
        } catch {
          break;
        }
      }
    } finally {
      await stop();
      this.#held = [];
    }
  }

  /**
   * One sync: give up what the ring took away (stopping the work first), then claim what it
   * gives and nobody holds. Returns true when the held ranges changed (the caller restarts
   * the work on them).
   */
  async #step(signal: AbortSignal, stopWork: () => Promise<void>): Promise<boolean> {
    const view = await this.#readView(signal);
    const ring = new HashRing([...view.live, this.name], this.#virtualNodes);
    const desired = hashRanges(ring, this.name);
    let changed = false;
    const keep = intersectRanges(this.#held, desired);
    if (!rangesEqual(keep, this.#held)) {
      await stopWork(); // the drain: in-flight reconciles of the ranges given up finish
      this.#held = keep;
      await this.#announce(keep, signal);
      this.#logger.info('range shard gave up ranges the ring moved away', {
        shard: this.name,
        share: rangesShare(keep),
      });
      changed = true;
    }
    const free = subtractRanges(subtractRanges(desired, this.#held), view.othersHeld);
    if (free.length === 0) return changed;
    const claim = unionRanges(this.#held, free);
    await this.#announce(claim, signal);
    const check = await this.#readView(signal);
    if (intersectRanges(free, check.othersHeld).length > 0) {
      // Another shard claimed part of it meanwhile: back off, try again next sync.
      await this.#announce(this.#held, signal);
      return changed;
    }
    this.#held = claim;
    this.#logger.info('range shard took over ranges', {
      shard: this.name,
      share: rangesShare(claim),
    });
    return true;
  }

  /** The live shards of the ring and the ranges the other live ones announce. */
  async #readView(signal: AbortSignal): Promise<{ live: string[]; othersHeld: HashRangeSet }> {
    const labels = this.shard.labels;
    const client = this.#client();
    const [members, claims] = await Promise.all([
      client.list({ labelSelector: `${labels.leaseRing}=${labels.ring}` }, { signal }),
      client.list({ labelSelector: `${this.#rangesLabel}=${labels.ring}` }, { signal }),
    ]);
    const now = this.#clock.now();
    const live: string[] = [];
    for (const l of members.items) {
      const shard = l.metadata?.labels?.[labels.leaseShard];
      if (shard === undefined || !isLive(l, now)) continue;
      live.push(shard);
    }
    let othersHeld: HashRangeSet = [];
    for (const l of claims.items) {
      const shard = l.metadata?.labels?.[labels.leaseShard];
      if (shard === undefined || shard === this.name || !live.includes(shard)) continue;
      othersHeld = unionRanges(
        othersHeld,
        parseRanges(l.metadata?.annotations?.[this.rangesAnnotation]),
      );
    }
    return { live, othersHeld };
  }

  /** Writes the held ranges to this shard's ranges Lease (creating it). */
  async #announce(ranges: HashRangeSet, signal: AbortSignal): Promise<void> {
    const client = this.#client();
    const text = formatRanges(ranges);
    const labels = this.shard.labels;
    for (let attempt = 0; attempt < 5; attempt++) {
      let current: Lease | undefined;
      try {
        current = await client.get(this.rangesLeaseName, { signal });
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      const lease: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: {
          ...(current?.metadata ?? {}),
          name: this.rangesLeaseName,
          namespace: this.#options.namespace,
          labels: {
            ...current?.metadata?.labels,
            [this.#rangesLabel]: labels.ring,
            [labels.leaseShard]: this.name,
          },
          annotations: { ...current?.metadata?.annotations, [this.rangesAnnotation]: text },
        },
        spec: { ...current?.spec, holderIdentity: this.name },
      };
      try {
        if (current === undefined) await client.create(lease, { signal });
        else await client.update(lease, { signal });
        return;
      } catch (err) {
        if (isAlreadyExists(err) || (err as { code?: number }).code === 409) continue;
        throw err;
      }
    }
    throw new RangeShardError(
      `${this.rangesLeaseName}: could not write the held ranges after 5 conflicts`,
    );
  }
}

/** A membership Lease is live while held and not expired (the sharder's rule). */
function isLive(lease: Lease, now: number): boolean {
  const spec = lease.spec ?? {};
  if ((spec.holderIdentity ?? '') === '') return false;
  const renew = Date.parse(spec.renewTime ?? spec.acquireTime ?? '');
  const duration = (spec.leaseDurationSeconds ?? 0) * 1000;
  return Number.isFinite(renew) && renew + duration > now;
}
