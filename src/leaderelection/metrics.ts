/**
 * Leader election metrics under client-go's names.
 *
 * An elector reports to a {@link LeaderElectionMetricsProvider} when one is given in its
 * config. A Prometheus adapter maps the calls to:
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `leader_election_master_status{name}` | gauge | 1 while this process leads, else 0 |
 * | `leader_election_slowpath_total{name}` | counter | renewals that had to re-read the Lease |
 *
 * @module
 */

/** Receives leader election metrics; every call carries the elector's name. */
export interface LeaderElectionMetricsProvider {
  /** This process became leader (`leader_election_master_status` = 1). */
  leaderOn(name: string): void;
  /** This process stopped leading (`leader_election_master_status` = 0). */
  leaderOff(name: string): void;
  /** A renewal fell back to reading the Lease (`leader_election_slowpath_total` + 1). */
  slowpathExercised(name: string): void;
}

/** client-go's names of the leader election metrics. */
export const leaderElectionMetricNames = {
  /** Gauge: 1 while this process leads, else 0. */
  masterStatus: 'leader_election_master_status',
  /** Counter of renewals that had to re-read the Lease. */
  slowpath: 'leader_election_slowpath_total',
} as const;
