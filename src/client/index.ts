/**
 * Talking to the API server: the transport, typed resource clients, discovery and errors.
 *
 * @module
 */
export * from './types.js';
export * from './errors.js';
export { Transport, toTransport } from './transport.js';
export type {
  HttpMethod,
  KubeConfigCluster,
  KubeConfigLike,
  KubeConfigUserName,
  OpenStream,
  QueryParams,
  RequestSpec,
  TransportOptions,
} from './transport.js';
export { ResourceClient, NamespaceMismatchError } from './resource_client.js';
export type {
  ApplyConfiguration,
  DeepPartial,
  DeleteOptions,
  ListAllOptions,
  PagedList,
  PatchOptions,
  PatchType,
  Preconditions,
  RequestOptions,
  ResourceClientOptions,
  WriteOptions,
} from './resource_client.js';
export * from './builtins.js';
export { Discovery, DEFAULT_DISCOVERY_CONCURRENCY } from './discovery.js';
export type {
  DiscoveredGroup,
  DiscoveredResource,
  DiscoveryOptions,
  GroupVersionKind,
} from './discovery.js';
export { decodeWatchStream, defaultMaxWatchEventBytes } from './watch_decoder.js';
export type { BufferedWatchIterator, WatchDecodeOptions } from './watch_decoder.js';
export { redactUrl, redactHeaders, REDACTED } from './redact.js';
export {
  REQUEST_ERROR_CODE,
  getDefaultRestClientMetricsProvider,
  restClientDurationBuckets,
  restClientMetricNames,
  setDefaultRestClientMetricsProvider,
} from './metrics.js';
export type { RestClientMetricsProvider } from './metrics.js';
export { VERSION } from './version.js';
export { createToken } from './token_request.js';
export type { IssuedServiceAccountToken, TokenRequestOptions } from './token_request.js';
