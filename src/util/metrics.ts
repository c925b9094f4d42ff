/**
 * The metric interfaces shared by several modules (the work queue, the controller, the
 * event recorder): each module's metrics provider returns these, and the Prometheus
 * adapter (`kube-controller-kit/metrics`) implements them.
 *
 * @module
 */

/** A counter: only goes up. */
export interface CounterMetric {
  /** Add one. */
  inc(): void;
}

/** A gauge that moves up and down by steps. */
export interface GaugeMetric {
  /** Add one. */
  inc(): void;
  /** Subtract one. */
  dec(): void;
}

/** A gauge that is set to a value. */
export interface SettableGaugeMetric {
  /** Set the current value. */
  set(value: number): void;
}

/** A histogram (or summary) of observed values. */
export interface HistogramMetric {
  /** Record one observation. */
  observe(value: number): void;
}
