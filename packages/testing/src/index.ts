/**
 * `@kube-controller-kit/testing`: an in-memory Kubernetes API server for tests, with fault
 * injection, and its CLI.
 *
 * @module
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
