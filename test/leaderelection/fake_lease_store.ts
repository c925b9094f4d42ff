// An in-memory Lease store shared by several electors, with fault injection.
// Each candidate talks to it through its own FakeLeaseClient, which can be partitioned
// (requests fail or hang), made to fail its next requests, get injected 409s, or given
// latency (on the fake clock).
import type { Clock } from '../../src/util/clock.js';
import { ApiError, NotFoundError } from '../../src/client/errors.js';
import type { Lease, LeaseClient, LeaseRequestOptions } from '../../src/leaderelection/index.js';

export type Partition = 'none' | 'fail' | 'hang';

export class FakeLeaseStore {
  readonly clock: Clock;
  lease: Lease | undefined;
  rv = 0;
  readonly log: { at: number; client: string; op: string; ok: boolean }[] = [];

  constructor(clock: Clock) {
    this.clock = clock;
  }

  client(id: string): FakeLeaseClient {
    return new FakeLeaseClient(this, id);
  }

  /** A write by someone else that changes only metadata (bumps the resourceVersion). */
  touch(): void {
    if (this.lease === undefined) return;
    this.rv++;
    this.lease = {
      ...this.lease,
      metadata: { ...this.lease.metadata, resourceVersion: String(this.rv) },
    };
  }

  /** Overwrites the spec directly, as `kubectl edit` would. */
  setSpec(spec: NonNullable<Lease['spec']>): void {
    this.rv++;
    this.lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: {
        name: 'lease',
        namespace: 'ns',
        ...this.lease?.metadata,
        resourceVersion: String(this.rv),
      },
      spec: structuredClone(spec),
    };
  }

  ops(client: string, op?: string): number {
    return this.log.filter((l) => l.client === client && (op === undefined || l.op === op)).length;
  }
}

function status(code: number, reason: string, message: string): ApiError {
  return new ApiError({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code,
    reason: reason,
    message,
  });
}

export class FakeLeaseClient implements LeaseClient {
  partition: Partition = 'none';
  /** Fail this many upcoming requests with 500. */
  failNext = 0;
  /** Probability that an update meets a concurrent metadata write (409). */
  conflictRate = 0;
  /** Latency of each leg (request, response) in ms. */
  latency: () => number = () => 0;
  random: () => number = Math.random;
  readonly #store: FakeLeaseStore;
  readonly id: string;

  constructor(store: FakeLeaseStore, id: string) {
    this.#store = store;
    this.id = id;
  }

  get(name: string, options?: LeaseRequestOptions): Promise<Lease> {
    return this.#call('get', options, () => {
      const lease = this.#store.lease;
      if (lease === undefined || lease.metadata?.name !== name)
        throw new NotFoundError({ group: 'coordination.k8s.io', resource: 'leases' }, name);
      return lease;
    });
  }

  create(lease: Lease, options?: LeaseRequestOptions): Promise<Lease> {
    return this.#call('create', options, () => {
      if (this.#store.lease !== undefined)
        throw status(
          409,
          'AlreadyExists',
          `leases.coordination.k8s.io "${lease.metadata?.name}" already exists`,
        );
      this.#store.rv++;
      const stored = structuredClone(lease);
      stored.metadata = { ...stored.metadata, resourceVersion: String(this.#store.rv) };
      this.#store.lease = stored;
      return stored;
    });
  }

  update(lease: Lease, options?: LeaseRequestOptions): Promise<Lease> {
    return this.#call('update', options, () => {
      const current = this.#store.lease;
      if (current === undefined)
        throw new NotFoundError(
          { group: 'coordination.k8s.io', resource: 'leases' },
          lease.metadata?.name ?? '',
        );
      if (this.conflictRate > 0 && this.random() < this.conflictRate) this.#store.touch();
      if (lease.metadata?.resourceVersion !== this.#store.lease?.metadata?.resourceVersion)
        throw status(
          409,
          'Conflict',
          'the object has been modified; please apply your changes to the latest version and try again',
        );
      this.#store.rv++;
      const stored = structuredClone(lease);
      stored.metadata = { ...stored.metadata, resourceVersion: String(this.#store.rv) };
      this.#store.lease = stored;
      return stored;
    });
  }

  async #call(
    op: string,
    options: LeaseRequestOptions | undefined,
    apply: () => Lease,
  ): Promise<Lease> {
    const signal = options?.signal;
    const clock = this.#store.clock;
    const leg = async (): Promise<void> => {
      const ms = this.latency();
      if (ms > 0) await clock.sleep(ms, signal);
      else await Promise.resolve();
      signal?.throwIfAborted();
    };
    const record = (ok: boolean): void => {
      this.#store.log.push({ at: clock.now(), client: this.id, op, ok });
    };
    await leg();
    if (this.partition === 'hang') {
      record(false);
      await new Promise<void>((_, reject) => {
        if (signal === undefined) return; // hangs forever
        if (signal.aborted) reject(signal.reason as Error);
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    if (this.partition === 'fail' || this.failNext > 0) {
      if (this.failNext > 0) this.failNext--;
      record(false);
      throw status(503, 'ServiceUnavailable', 'injected failure');
    }
    let result: Lease;
    try {
      result = structuredClone(apply());
      record(true);
    } catch (err) {
      record(false);
      throw err;
    }
    await leg();
    return result;
  }
}
