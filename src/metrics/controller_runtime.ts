/**
 * The Prometheus adapter of the controller metrics: controller-runtime's
 * `controller_runtime_*` series on prom-client.
 *
 * @module
 */
import { Counter, Gauge, Histogram, register as globalRegistry } from 'prom-client';
import type { Registry } from 'prom-client';
import type {
  ControllerMetricsProvider,
  ControllerState,
  ReconcileResultLabel,
} from '../controller/metrics.js';
import { controllerMetricNames, reconcileTimeBuckets } from '../controller/metrics.js';
import type {
  CounterMetric,
  GaugeMetric,
  HistogramMetric,
  SettableGaugeMetric,
} from '../workqueue/metrics.js';

/** Options of {@link PrometheusControllerMetricsProvider}. */
export interface PrometheusControllerMetricsProviderOptions {
  /** The registry to register the metrics in (default: prom-client's global registry). */
  registry?: Registry;
  /** Buckets of the reconcile-time histogram in seconds (default: controller-runtime's). */
  buckets?: number[];
}

/**
 * Registers controller-runtime's controller metrics in a prom-client registry and hands
 * each controller its labelled series, created at zero.
 *
 * @example
 * ```ts
 * import { Registry } from 'prom-client';
 * import { PrometheusControllerMetricsProvider } from 'kube-controller-kit/metrics';
 * const registry = new Registry();
 * const controller = new Controller({
 *   name: 'apps',
 *   reconcile,
 *   controllerMetricsProvider: new PrometheusControllerMetricsProvider({ registry }),
 * });
 * ```
 */
export class PrometheusControllerMetricsProvider implements ControllerMetricsProvider {
  readonly #total: Counter<'controller' | 'result'>;
  readonly #errors: Counter<'controller'>;
  readonly #time: Histogram<'controller'>;
  readonly #active: Gauge<'controller'>;
  readonly #max: Gauge<'controller'>;
  readonly #timeouts: Counter<'controller'>;
  readonly #state: Gauge<'controller' | 'state'>;

  /** Create the metrics and register them in the registry. */
  constructor(options: PrometheusControllerMetricsProviderOptions = {}) {
    const registers = [options.registry ?? globalRegistry];
    const n = controllerMetricNames;
    this.#total = new Counter({
      name: n.reconcileTotal,
      help: 'Total number of reconciliations per controller',
      labelNames: ['controller', 'result'] as const,
      registers,
    });
    this.#errors = new Counter({
      name: n.reconcileErrors,
      help: 'Total number of reconciliation errors per controller',
      labelNames: ['controller'] as const,
      registers,
    });
    this.#time = new Histogram({
      name: n.reconcileTime,
      help: 'Length of time per reconciliation per controller',
      labelNames: ['controller'] as const,
      buckets: options.buckets ?? [...reconcileTimeBuckets],
      registers,
    });
    this.#active = new Gauge({
      name: n.activeWorkers,
      help: 'Number of currently used workers per controller',
      labelNames: ['controller'] as const,
      registers,
    });
    this.#max = new Gauge({
      name: n.maxConcurrentReconciles,
      help: 'Maximum number of concurrent reconciles per controller',
      labelNames: ['controller'] as const,
      registers,
    });
    this.#timeouts = new Counter({
      name: n.reconcileTimeouts,
      help: 'Total number of reconciliation timeouts per controller',
      labelNames: ['controller'] as const,
      registers,
    });
    this.#state = new Gauge({
      name: n.state,
      help: 'Whether the controller is in the state (1) or not (0): standby, waiting for its informers, timedOut, running, stopped',
      labelNames: ['controller', 'state'] as const,
      registers,
    });
  }
  /** {@inheritDoc ControllerMetricsProvider.newControllerStateMetric} */
  newControllerStateMetric(controller: string, state: ControllerState): SettableGaugeMetric {
    const child = this.#state.labels({ controller, state });
    child.set(0);
    return child;
  }

  /** {@inheritDoc ControllerMetricsProvider.newReconcileTotalMetric} */
  newReconcileTotalMetric(controller: string, result: ReconcileResultLabel): CounterMetric {
    const child = this.#total.labels({ controller, result });
    child.inc(0);
    return child;
  }
  /** {@inheritDoc ControllerMetricsProvider.newReconcileTimeoutsMetric} */
  newReconcileTimeoutsMetric(controller: string): CounterMetric {
    const child = this.#timeouts.labels({ controller });
    child.inc(0);
    return child;
  }
  /** {@inheritDoc ControllerMetricsProvider.newReconcileErrorsMetric} */
  newReconcileErrorsMetric(controller: string): CounterMetric {
    const child = this.#errors.labels({ controller });
    child.inc(0);
    return child;
  }
  /** {@inheritDoc ControllerMetricsProvider.newReconcileTimeMetric} */
  newReconcileTimeMetric(controller: string): HistogramMetric {
    return this.#time.labels({ controller });
  }
  /** {@inheritDoc ControllerMetricsProvider.newActiveWorkersMetric} */
  newActiveWorkersMetric(controller: string): GaugeMetric {
    const child = this.#active.labels({ controller });
    child.set(0);
    return child;
  }
  /** {@inheritDoc ControllerMetricsProvider.newMaxConcurrentReconcilesMetric} */
  newMaxConcurrentReconcilesMetric(controller: string): SettableGaugeMetric {
    return this.#max.labels({ controller });
  }
}
