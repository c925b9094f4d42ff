/**
 * Controller metrics under controller-runtime's names.
 *
 * A {@link Controller} reports to a {@link ControllerMetricsProvider} given in its options
 * or set with {@link setDefaultControllerMetricsProvider}; the Prometheus adapter
 * (`PrometheusControllerMetricsProvider` in `kube-controller-kit/metrics`) maps the calls to:
 *
 * | metric | kind | meaning |
 * | --- | --- | --- |
 * | `controller_runtime_reconcile_total{controller,result}` | counter | reconciles by result: `success`, `error`, `requeue`, `requeue_after` |
 * | `controller_runtime_reconcile_errors_total{controller}` | counter | reconciles that threw or rejected |
 * | `controller_runtime_reconcile_time_seconds{controller}` | histogram | time per reconcile |
 * | `controller_runtime_active_workers{controller}` | gauge | workers reconciling right now |
 * | `controller_runtime_max_concurrent_reconciles{controller}` | gauge | the controller's worker count |
 * | `controller_runtime_reconcile_timeouts_total{controller}` | counter | reconciles the framework's `reconcileTimeoutMs` cut short |
 * | `kube_controller_kit_controller_state{controller,state}` | gauge | 1 for the controller's current {@link ControllerState}, 0 for the others (the kit's own; controller-runtime has none) |
 *
 * Types only and free of prom-client, so the controller does not depend on Prometheus.
 *
 * @module
 */
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';

/** The `result` label of `controller_runtime_reconcile_total`, as controller-runtime sets it. */
export type ReconcileResultLabel = 'success' | 'error' | 'requeue' | 'requeue_after';

/** Every value of {@link ReconcileResultLabel}, in controller-runtime's order. */
export const reconcileResultLabels: readonly ReconcileResultLabel[] = [
  'error',
  'requeue_after',
  'requeue',
  'success',
];

/**
 * Where a controller is in its life:
 *
 * - `standby`: `run()` not called yet (under a Manager: this replica does not lead, or the
 *   controller's group has not started);
 * - `waiting`: `run()` waits for its own informers to sync, within its `cacheSyncTimeoutMs`;
 * - `timedOut`: its informers did not sync within `cacheSyncTimeoutMs` (controller-runtime's
 *   `CacheSyncTimeout`): `run()` rejected with a `CacheSyncTimeoutError`, or — with
 *   `onCacheSyncTimeout: 'keepWaiting'` — it still waits, and runs if they sync later;
 * - `running`: its informers synced; its workers reconcile;
 * - `stopped`: `run()` returned (its signal aborted).
 */
export type ControllerState = 'standby' | 'waiting' | 'timedOut' | 'running' | 'stopped';

/** Every {@link ControllerState}, in life order: the `state` label's values. */
export const controllerStates: readonly ControllerState[] = [
  'standby',
  'waiting',
  'timedOut',
  'running',
  'stopped',
];

/**
 * Creates the metrics of one named controller. Each method is called when the controller
 * is created; implementations return the same series for the same name (prom-client's
 * labelled children do), and should create the series at zero so that a controller that
 * never failed still shows `controller_runtime_reconcile_errors_total 0`.
 */
export interface ControllerMetricsProvider {
  /** `controller_runtime_reconcile_total{controller,result}`. */
  newReconcileTotalMetric(controller: string, result: ReconcileResultLabel): CounterMetric;
  /** `controller_runtime_reconcile_errors_total{controller}`. */
  newReconcileErrorsMetric(controller: string): CounterMetric;
  /** `controller_runtime_reconcile_time_seconds{controller}`, in seconds. */
  newReconcileTimeMetric(controller: string): HistogramMetric;
  /** `controller_runtime_active_workers{controller}`. */
  newActiveWorkersMetric(controller: string): GaugeMetric;
  /** `controller_runtime_max_concurrent_reconciles{controller}`. */
  newMaxConcurrentReconcilesMetric(controller: string): SettableGaugeMetric;
  /**
   * `controller_runtime_reconcile_timeouts_total{controller}`: reconciles whose
   * `reconcileTimeoutMs` deadline fired (only the framework's own deadline). Optional.
   */
  newReconcileTimeoutsMetric?(controller: string): CounterMetric;
  /**
   * `kube_controller_kit_controller_state{controller,state}`: set to 1 for the state the
   * controller is in and 0 for the others, so a dashboard or an alert sees which controllers
   * run and which wait (`max by (controller) (…{state="timedOut"}) == 1`). Optional.
   */
  newControllerStateMetric?(controller: string, state: ControllerState): SettableGaugeMetric;
}

/** controller-runtime's metric names, for providers and dashboards. */
export const controllerMetricNames = {
  /** Counter of reconciles by result. */
  reconcileTotal: 'controller_runtime_reconcile_total',
  /** Counter of failed reconciles. */
  reconcileErrors: 'controller_runtime_reconcile_errors_total',
  /** Histogram of reconcile durations. */
  reconcileTime: 'controller_runtime_reconcile_time_seconds',
  /** Gauge of busy workers. */
  activeWorkers: 'controller_runtime_active_workers',
  /** Gauge of the worker count. */
  maxConcurrentReconciles: 'controller_runtime_max_concurrent_reconciles',
  /** Counter of reconciles cut short by the controller's own deadline. */
  reconcileTimeouts: 'controller_runtime_reconcile_timeouts_total',
  /** Gauge per state: 1 for the controller's current state (the kit's own metric). */
  state: 'kube_controller_kit_controller_state',
} as const;

/** controller-runtime's buckets of `controller_runtime_reconcile_time_seconds`, in seconds. */
export const reconcileTimeBuckets: readonly number[] = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
  1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60,
];

let defaultProvider: ControllerMetricsProvider | undefined;

/**
 * Set the provider used by controllers created afterwards without a
 * `controllerMetricsProvider` option. Pass `undefined` to turn it off again.
 */
export function setDefaultControllerMetricsProvider(
  provider: ControllerMetricsProvider | undefined,
): void {
  defaultProvider = provider;
}

/** The provider set with {@link setDefaultControllerMetricsProvider}, if any. */
export function getDefaultControllerMetricsProvider(): ControllerMetricsProvider | undefined {
  return defaultProvider;
}

/** The metrics of one controller, bound to their series (internal). @internal */
export interface BoundControllerMetrics {
  readonly total: Readonly<Record<ReconcileResultLabel, CounterMetric>>;
  readonly errors: CounterMetric;
  readonly time: HistogramMetric;
  readonly activeWorkers: GaugeMetric;
  readonly maxConcurrent: SettableGaugeMetric;
  readonly timeouts: CounterMetric | undefined;
  /** One gauge per state, when the provider has the state metric. */
  readonly state: Readonly<Record<ControllerState, SettableGaugeMetric>> | undefined;
}

/** Bind a controller's series (internal). @internal */
export function bindControllerMetrics(
  provider: ControllerMetricsProvider,
  controller: string,
): BoundControllerMetrics {
  const total = {} as Record<ReconcileResultLabel, CounterMetric>;
  for (const result of reconcileResultLabels) {
    total[result] = provider.newReconcileTotalMetric(controller, result);
  }
  let state: Record<ControllerState, SettableGaugeMetric> | undefined;
  if (provider.newControllerStateMetric !== undefined) {
    state = {} as Record<ControllerState, SettableGaugeMetric>;
    for (const s of controllerStates) state[s] = provider.newControllerStateMetric(controller, s);
  }
  return {
    state,
    total,
    errors: provider.newReconcileErrorsMetric(controller),
    time: provider.newReconcileTimeMetric(controller),
    activeWorkers: provider.newActiveWorkersMetric(controller),
    maxConcurrent: provider.newMaxConcurrentReconcilesMetric(controller),
    timeouts: provider.newReconcileTimeoutsMetric?.(controller),
  };
}
