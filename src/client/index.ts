/**
 * Talking to the API server (client-go's `rest`, `kubernetes` and `discovery`): one
 * {@link Transport} per server, which turns a client-node `KubeConfig` into authenticated
 * requests (HTTP/2, retries on `Retry-After`, timeouts, cancellation); typed
 * {@link ResourceClient}s for built-in and custom resources (get, list, watch, create,
 * update, patch, server-side apply, delete); {@link Discovery}; and typed errors
 * ({@link ApiError} with `isNotFound`, `isConflict`, …).
 *
 * Imported from `kube-controller-kit`, like every area of the runtime. Guide:
 * [the client](../../docs/client.md).
 *
 * ```ts
 * import { Transport, configMaps, isNotFound } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer(); // or your cluster: new KubeConfig().loadFromDefault()
 * const transport = new Transport(server.kubeConfig()); // one per server: one connection pool
 * const settings = configMaps(transport).namespace('default');
 *
 * await settings.create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
 * await settings.patch('settings', { data: { mode: 'safe' } }); // a JSON merge patch
 * for await (const cm of settings.listAll()) console.log(cm.metadata?.name, cm.data?.['mode']);
 * try {
 *   await settings.get('missing');
 * } catch (err) {
 *   if (!isNotFound(err)) throw err; // ApiError: code 404, reason NotFound
 * }
 *
 * transport.close();
 * await server.close();
 * ```
 *
 * @module client
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
