/**
 * `@kube-controller-kit/testing`: an in-memory Kubernetes API server for tests and local
 * runs, speaking the real wire protocol on 127.0.0.1 (discovery, list and watch with
 * resourceVersions and bookmarks, server-side apply, CRDs with schemas and CEL, RBAC,
 * admission and conversion webhooks) with fault injection; real clients — this library,
 * client-node, kubectl — work against it unchanged.
 *
 * Start with {@link startTestApiServer}, which resolves to a {@link TestApiServer}: its
 * `kubeConfig()` for the code under test, `get`/`list`/`create` to arrange and assert
 * without a client, {@link TestApiServer.faults | faults} to break things, `close()`.
 * {@link waitFor} polls until a condition holds.
 *
 * A package of its own, a development dependency
 * (`npm install --save-dev @kube-controller-kit/testing`), so an operator's production
 * install holds the runtime alone. Guide: [testing](../../../docs/testing.md).
 *
 * ```ts
 * import { Transport, configMaps, isInternalError } from 'kube-controller-kit';
 * import { startTestApiServer, waitFor } from '@kube-controller-kit/testing';
 *
 * const server = await startTestApiServer(); // a free port on 127.0.0.1, plain HTTP
 * const transport = new Transport(server.kubeConfig()); // what your controller gets
 * const client = configMaps(transport).namespace('default');
 *
 * server.faults.failNext(1, { verb: 'create', resource: 'configmaps', code: 500 });
 * await client.create({ metadata: { name: 'settings' } }).catch((err: unknown) => {
 *   console.log('injected:', isInternalError(err)); // true
 * });
 * await client.create({ metadata: { name: 'settings' }, data: { mode: 'fast' } });
 *
 * const stored = await waitFor(() => server.get('configmaps', 'settings', 'default'));
 * console.log('stored at resourceVersion', stored.metadata?.resourceVersion); // no client needed
 *
 * transport.close();
 * await server.close(); // ends every watch, socket and timer
 * ```
 *
 * @module @kube-controller-kit/testing
 */
export { startTestApiServer, TestApiServerError } from './apiserver.js';
export { FeatureGatesParseError, knownFeatureGates, parseFeatureGates } from './feature_gates.js';
export type { TestApiServerFeatureGates } from './feature_gates.js';
export type {
  AdmissionAuditAnnotation,
  InProcessWebhook,
  RecordedRequest,
  ResourceRef,
  WebhookInstallOptions,
  WebhookServiceReference,
  TestApiServer,
  TestApiServerAuth,
  TestApiServerOptions,
  TestUser,
  TestUserCredentials,
} from './apiserver.js';
export type { UserInfo } from './authentication.js';
export type { AuthorizationMode } from './authorization.js';
export type { BoundObjectReference, TokenRequestSpec } from './service_account_tokens.js';
export { TestApiServerFaults } from './faults.js';
export type {
  FailureSpec,
  InjectedFailure,
  FaultTarget,
  RequestFilter,
  RequestInfo,
  RequestVerb,
  WatchSelector,
} from './faults.js';
export type { FieldGetter } from './registry/resource_registry.js';
export { CertificateGenerationError, generateTestCertificates } from './certs.js';
export type { TestCertificateOptions, TestCertificates } from './certs.js';
export { runTestApiServerCli } from './cli.js';
export type { CliIo } from './cli.js';
export { WaitForTimeoutError, waitFor } from './wait_for.js';
export type { WaitForOptions, WaitForResult } from './wait_for.js';
export { FakeClock } from 'kube-controller-kit';
