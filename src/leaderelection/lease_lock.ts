/**
 * The lock leader election holds: a `coordination.k8s.io/v1` Lease.
 *
 * A {@link LeaseLock} reads, creates and updates one Lease on behalf of one candidate.
 * Updates use optimistic concurrency: `update` sends the Lease exactly as last read or
 * written, with its `resourceVersion`, so a concurrent writer makes the update fail with
 * 409 Conflict instead of being overwritten. The elector decides what to write; the lock
 * only moves records to and from the Lease's spec.
 *
 * @module
 */
import type { V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
import { leases } from '../client/builtins.js';
import { Transport } from '../client/transport.js';
import type { KubeConfigLike, TransportOptions } from '../client/transport.js';
import type { Serialized } from '../client/types.js';
import { LeaseNotInitializedError } from './errors.js';

/** A Lease as it travels on the wire (timestamps are strings). */
export type Lease = Serialized<V1Lease>;

/** Options for one request to the Lease API. */
export interface LeaseRequestOptions {
  /** Aborts the request. */
  signal?: AbortSignal;
}

/**
 * The minimal client a {@link LeaseLock} needs: get, create and update of Leases in one
 * namespace, throwing `ApiError` (NotFound, Conflict, …) on failure. The typed resource
 * client for leases fits it; so does an in-memory fake in tests.
 */
export interface LeaseClient {
  /** Reads the Lease named `name`; throws a NotFound `ApiError` when it does not exist. */
  get(name: string, options?: LeaseRequestOptions): Promise<Lease>;
  /** Creates `lease`; throws an AlreadyExists `ApiError` when the name is taken. */
  create(lease: Lease, options?: LeaseRequestOptions): Promise<Lease>;
  /** Replaces `lease`; throws a Conflict `ApiError` when its resourceVersion is stale. */
  update(lease: Lease, options?: LeaseRequestOptions): Promise<Lease>;
}

/**
 * What leader election stores in the lock (client-go's `LeaderElectionRecord`). Times are
 * `MicroTime` strings written by the holder's clock; other candidates never compare them
 * with their own clock.
 */
export interface LeaderElectionRecord {
  /** The identity of the holder; `''` when nobody holds the lease. */
  holderIdentity: string;
  /** How long other candidates must wait, after seeing the record change, before taking over. */
  leaseDurationSeconds: number;
  /** When the current holder acquired the lease. */
  acquireTime: string;
  /** When the current holder last renewed the lease. */
  renewTime: string;
  /** How many times the lease changed hands. */
  leaderTransitions: number;
  /** The Lease's `strategy` (coordinated election), when set. */
  strategy?: string;
  /** The Lease's `preferredHolder` (coordinated election), when set. */
  preferredHolder?: string;
}

/** A record as read from the lock, with the serialization the elector compares. */
export interface ObservedLockRecord {
  /** The record. */
  record: LeaderElectionRecord;
  /** A canonical serialization of the record; it changes whenever the record does. */
  raw: string;
}

/**
 * The lock a {@link LeaderElector} uses (client-go's `resourcelock.Interface`).
 * {@link LeaseLock} is the implementation; the interface exists so tests can wrap it.
 */
export interface ResourceLock {
  /** This candidate's identity, written as `holderIdentity` when it leads. */
  readonly identity: string;
  /** `namespace/name` of the lock, for messages. */
  describe(): string;
  /**
   * Reads the record. `raw` is a canonical serialization of the record, compared by the
   * elector to notice changes. Throws a NotFound `ApiError` when the lock does not exist.
   */
  get(signal?: AbortSignal): Promise<ObservedLockRecord>;
  /** Creates the lock holding `record`. */
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  /** Writes `record` over the lock as last read or written (optimistic concurrency). */
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
}

/** Where a {@link LeaseLock} lives and who it acts for. */
export interface LeaseLockOptions {
  /** Namespace of the Lease. */
  namespace: string;
  /** Name of the Lease. */
  name: string;
  /** This candidate's identity (unique per process, e.g. the pod name plus a random suffix). */
  identity: string;
  /** Labels to put on the Lease when this lock creates it. */
  labels?: Record<string, string>;
}

/** Options of {@link LeaseLock.fromKubeConfig}. */
export interface LeaseLockFromKubeConfigOptions extends LeaseLockOptions {
  /** Options of the transport the lock creates from a KubeConfig (timeouts, clock, logger). */
  transport?: TransportOptions;
}

/** Converts a Lease spec to a record, with client-go's zero values for missing fields. */
export function leaseSpecToRecord(spec: Serialized<V1LeaseSpec> | undefined): LeaderElectionRecord {
  const record: LeaderElectionRecord = {
    holderIdentity: spec?.holderIdentity ?? '',
    leaseDurationSeconds: spec?.leaseDurationSeconds ?? 0,
    acquireTime: spec?.acquireTime ?? '',
    renewTime: spec?.renewTime ?? '',
    leaderTransitions: spec?.leaseTransitions ?? 0,
  };
  if (spec?.strategy !== undefined && spec.strategy !== '') record.strategy = spec.strategy;
  if (spec?.preferredHolder !== undefined && spec.preferredHolder !== '')
    record.preferredHolder = spec.preferredHolder;
  return record;
}

/** Converts a record to a Lease spec (client-go's `LeaderElectionRecordToLeaseSpec`). */
export function recordToLeaseSpec(record: LeaderElectionRecord): Serialized<V1LeaseSpec> {
  const spec: Serialized<V1LeaseSpec> = {
    holderIdentity: record.holderIdentity,
    leaseDurationSeconds: record.leaseDurationSeconds,
    leaseTransitions: record.leaderTransitions,
  };
  if (record.acquireTime !== '') spec.acquireTime = record.acquireTime;
  if (record.renewTime !== '') spec.renewTime = record.renewTime;
  if (record.strategy !== undefined) spec.strategy = record.strategy;
  if (record.preferredHolder !== undefined) spec.preferredHolder = record.preferredHolder;
  return spec;
}

/** A canonical serialization of a record, in a fixed field order. */
export function serializeRecord(record: LeaderElectionRecord): string {
  return JSON.stringify([
    record.holderIdentity,
    record.leaseDurationSeconds,
    record.acquireTime,
    record.renewTime,
    record.leaderTransitions,
    record.strategy ?? '',
    record.preferredHolder ?? '',
  ]);
}

const ownedTransports = new WeakMap<LeaseLock, Transport>();

/**
 * A lock held in a `coordination.k8s.io/v1` Lease.
 *
 * @example
 * ```ts
 * const lock = new LeaseLock(leaseClient, {
 *   namespace: 'kube-system',
 *   name: 'my-controller',
 *   identity: `${hostname()}_${randomUUID()}`,
 * });
 * ```
 */
export class LeaseLock implements ResourceLock {
  /** Namespace of the Lease. */
  readonly namespace: string;
  /** Name of the Lease. */
  readonly name: string;
  /** {@inheritDoc ResourceLock.identity} */
  readonly identity: string;
  readonly #labels: Record<string, string> | undefined;
  readonly #client: LeaseClient;
  #lease: Lease | undefined;

  /**
   * A lock that talks to the API server of `source` through the library's typed Lease
   * client. Given a KubeConfig, the lock creates its own transport: call
   * {@link LeaseLock.close} when done. Given a shared `Transport`, the caller keeps
   * ownership of it.
   *
   * @param source - a `@kubernetes/client-node` KubeConfig or a shared Transport.
   * @param options - where the Lease lives, who this candidate is, and transport options
   * (timeouts, clock, logger) used when a transport is created.
   */
  static fromKubeConfig(
    source: Transport | KubeConfigLike,
    options: LeaseLockFromKubeConfigOptions,
  ): LeaseLock {
    const owned =
      source instanceof Transport ? undefined : new Transport(source, options.transport);
    const client = leases(owned ?? source, { namespace: options.namespace });
    const lock = new LeaseLock(client, options);
    if (owned !== undefined) ownedTransports.set(lock, owned);
    return lock;
  }

  /**
   * @param client - get/create/update of Leases in `options.namespace`.
   * @param options - where the Lease lives and who this candidate is.
   */
  constructor(client: LeaseClient, options: LeaseLockOptions) {
    this.#client = client;
    this.namespace = options.namespace;
    this.name = options.name;
    this.identity = options.identity;
    this.#labels = options.labels;
  }

  /** Closes the transport this lock created in {@link LeaseLock.fromKubeConfig} (no-op otherwise). */
  close(): void {
    ownedTransports.get(this)?.close();
  }

  /** {@inheritDoc ResourceLock.describe} */
  describe(): string {
    return `${this.namespace}/${this.name}`;
  }

  /** The Lease as last read or written, or undefined before the first get/create. */
  get lease(): Lease | undefined {
    return this.#lease;
  }

  /** {@inheritDoc ResourceLock.get} */
  async get(signal?: AbortSignal): Promise<ObservedLockRecord> {
    const lease = await this.#client.get(this.name, opts(signal));
    this.#lease = lease;
    const record = leaseSpecToRecord(lease.spec);
    return { record, raw: serializeRecord(record) };
  }

  /** {@inheritDoc ResourceLock.create} */
  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const metadata: Lease['metadata'] = { name: this.name, namespace: this.namespace };
    if (this.#labels !== undefined) metadata.labels = { ...this.#labels };
    this.#lease = await this.#client.create(
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata,
        spec: recordToLeaseSpec(record),
      },
      opts(signal),
    );
  }

  /**
   * {@inheritDoc ResourceLock.update}
   * @throws {@link LeaseNotInitializedError} before the first successful get or create.
   */
  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const last = this.#lease;
    if (last === undefined) throw new LeaseNotInitializedError(this.describe());
    this.#lease = await this.#client.update(
      { ...last, spec: recordToLeaseSpec(record) },
      opts(signal),
    );
  }
}

function opts(signal: AbortSignal | undefined): LeaseRequestOptions {
  return signal === undefined ? {} : { signal };
}
