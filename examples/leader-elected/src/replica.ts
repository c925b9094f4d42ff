/**
 * The application operator under leader election: run this program as several replicas;
 * only the one holding the Lease reconciles, and when it stops (releasing the Lease) a
 * standby takes over.
 */
import { LeaderElectedRunner, LeaseLock } from '../../../src/index.js';
import type { KubeConfigLike, LeaderElectedRunOutcome, Logger } from '../../../src/index.js';
import { runOperator } from '../../application-operator/src/operator.js';
import type { OperatorEvent } from '../../application-operator/src/operator.js';

/** Options of {@link runReplica}. */
export interface ReplicaOptions {
  /** This replica's identity (unique per process; e.g. the pod name). */
  identity: string;
  /** Namespace of the Lease (default `default`). */
  leaseNamespace?: string;
  /** Name of the Lease (default `application-operator`). */
  leaseName?: string;
  /** Lease duration, renew deadline and retry period (ms); client-go's 15 s / 10 s / 2 s by default. */
  timing?: { leaseDurationMs: number; renewDeadlineMs: number; retryPeriodMs: number };
  /** Where to log. */
  logger?: Logger;
  /** Called when this replica starts or stops leading, and for every operator step. */
  onEvent?: (event: ReplicaEvent) => void;
}

/** What a replica reports. */
export type ReplicaEvent =
  | { type: 'leading'; identity: string }
  | { type: 'stopped-leading'; identity: string }
  | { type: 'new-leader'; identity: string; leader: string }
  | { type: 'operator'; identity: string; event: OperatorEvent };

/**
 * Runs one replica until `signal` aborts: campaigns for the Lease, runs the operator while
 * leading, and releases the Lease on the way out so a standby takes over at once.
 */
export async function runReplica(
  kubeConfig: KubeConfigLike,
  signal: AbortSignal,
  options: ReplicaOptions,
): Promise<LeaderElectedRunOutcome> {
  const { identity } = options;
  const emit = options.onEvent ?? (() => undefined);
  const lock = LeaseLock.fromKubeConfig(kubeConfig, {
    namespace: options.leaseNamespace ?? 'default',
    name: options.leaseName ?? 'application-operator',
    identity,
  });
  const runner = new LeaderElectedRunner({
    lock,
    name: 'application-operator',
    releaseOnCancel: true,
    onLost: 'rejoin',
    ...(options.timing ?? {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
    run: async (leading) => {
      emit({ type: 'leading', identity });
      await runOperator(kubeConfig, leading, {
        ...(options.logger !== undefined ? { logger: options.logger } : {}),
        onEvent: (event) => emit({ type: 'operator', identity, event }),
      });
    },
    onStoppedLeading: () => emit({ type: 'stopped-leading', identity }),
    onNewLeader: (leader) => {
      if (leader !== identity) emit({ type: 'new-leader', identity, leader });
    },
  });
  try {
    return await runner.run(signal);
  } finally {
    lock.close();
  }
}
