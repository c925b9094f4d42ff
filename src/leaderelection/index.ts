/**
 * Leader election over `coordination.k8s.io/v1` Leases, with client-go's rules.
 *
 * @module
 */
export { LeaderElector } from './leader_elector.js';
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
