/**
 * REST client metrics under client-go's names (`k8s.io/client-go/tools/metrics`, registered
 * by component-base as):
 *
 * | metric | kind | labels | meaning |
 * | --- | --- | --- | --- |
 * | `rest_client_requests_total` | counter | `code`, `method`, `host` | every attempt sent to the server, Retry-After retries and watch starts included; `code` is the HTTP status, or `<error>` when no answer came (connection failure, timeout, abort) |
 * | `rest_client_request_duration_seconds` | histogram | `verb`, `host` | one observation per request/response call, from its start until the body was read, Retry-After sleeps included; watches are not observed (as in client-go) |
 *
 * `method` and `verb` are the HTTP method (`GET`, `POST`, …); `host` is the server's
 * `host:port`. A transport reports to the provider in its options, or else to the one set
 * with {@link setDefaultRestClientMetricsProvider} when the transport was created.
 * Type-only and free of prom-client; the Prometheus adapter is `PrometheusMetricsProvider`
 * in `kube-controller-kit/metrics`.
 *
 * @module
 */

/** Receives the REST client metrics of a transport (client-go's `RequestResult` and `RequestLatency`). */
export interface RestClientMetricsProvider {
  /** `rest_client_requests_total{code,method,host}` + 1. */
  incrementRequestResult(code: string, method: string, host: string): void;
  /** `rest_client_request_duration_seconds{verb,host}`: observe `seconds`. */
  observeRequestLatency(verb: string, host: string, seconds: number): void;
}

/** client-go's names of the REST client metrics. */
export const restClientMetricNames = {
  /** Counter of attempts by code, method and host. */
  requests: 'rest_client_requests_total',
  /** Histogram of call latency by verb and host. */
  requestDuration: 'rest_client_request_duration_seconds',
} as const;

/** client-go's buckets of `rest_client_request_duration_seconds`, in seconds. */
export const restClientDurationBuckets: readonly number[] = [
  0.005, 0.025, 0.1, 0.25, 0.5, 1, 2, 4, 8, 15, 30, 60,
];

/** The `code` label of an attempt that got no HTTP answer. */
export const REQUEST_ERROR_CODE = '<error>';

let defaultProvider: RestClientMetricsProvider | undefined;

/**
 * Sets the provider used by transports created afterwards without a `metricsProvider`
 * option (client-go registers its REST client metrics globally the same way). Pass
 * `undefined` to turn it off again.
 */
export function setDefaultRestClientMetricsProvider(
  provider: RestClientMetricsProvider | undefined,
): void {
  defaultProvider = provider;
}

/** The provider set with {@link setDefaultRestClientMetricsProvider}, if any. */
export function getDefaultRestClientMetricsProvider(): RestClientMetricsProvider | undefined {
  return defaultProvider;
}
