/**
 * Leader election over `coordination.k8s.io/v1` Leases (client-go's `leaderelection`):
 * a {@link LeaderElector} over a {@link LeaseLock}, with client-go's timing rules and
 * validation, callbacks for started and stopped leading and a new leader, release on
 * cancel, a health check, and {@link runWhileLeading} for work that must run in one replica
 * only.
 *
 * Imported from `kube-controller-kit`. Guide: [leader election](../../docs/leader-election.md).
 *
 * ```ts
 * import { LeaderElector, LeaseLock } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer();
 * const lock = LeaseLock.fromKubeConfig(server.kubeConfig(), {
 *   namespace: 'default',
 *   name: 'example-leader',
 *   identity: 'replica-1', // unique per process: hostname and a random id
 * });
 * const stop = new AbortController();
 * const elector = new LeaderElector({
 *   lock,
 *   releaseOnCancel: true, // the next replica takes over at once
 *   callbacks: {
 *     onStartedLeading: async (leading) => {
 *       console.log('leading; the work runs until', leading.aborted ? 'now' : 'the lease is lost');
 *       stop.abort();
 *     },
 *     onStoppedLeading: () => console.log('stopped leading'),
 *     onNewLeader: (identity) => console.log('leader is', identity),
 *   },
 * });
 * await elector.run(stop.signal); // resolves after everything has stopped
 * lock.close();
 * await server.close();
 * ```
 *
 * @module leaderelection
 */
export { LeaderElector } from './leader_elector.js';
export type { LeaderElectorEvents } from './leader_elector.js';
export {
  validateLeaderElectionConfig,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_RENEW_DEADLINE_MS,
  DEFAULT_RETRY_PERIOD_MS,
  JITTER_FACTOR,
} from './config.js';
export type {
  LeaderCallbacks,
  LeaderElectionConfig,
  ResolvedLeaderElectionConfig,
} from './config.js';
export { LeaseLock, leaseSpecToRecord, recordToLeaseSpec } from './lease_lock.js';
export type {
  Lease,
  LeaseClient,
  LeaseLockOptions,
  LeaseLockFromKubeConfigOptions,
  ObservedLockRecord,
  LeaseRequestOptions,
  LeaderElectionRecord,
  ResourceLock,
} from './lease_lock.js';
export type { LeaderElectionMetricsProvider } from './metrics.js';
export { formatMicroTime } from '../apimachinery/micro_time.js';
export { HealthzAdaptor, DEFAULT_HEALTHZ_TOLERANCE_MS } from './healthz.js';
export { LeaderElectedRunner, runWhileLeading } from './run_while_leading.js';
export type {
  LeaderElectedRunOutcome,
  LeaderElectedRunnerOptions,
  OnLeadershipLost,
} from './run_while_leading.js';
export {
  ElectorAlreadyRunningError,
  LeaderElectionConfigError,
  LeadershipLostError,
  LeaseNotInitializedError,
  LeaseRenewalOverdueError,
} from './errors.js';
export type { LeadershipLostReason } from './errors.js';
