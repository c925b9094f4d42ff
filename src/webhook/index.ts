/**
 * Admission and conversion webhooks served by the operator (controller-runtime's
 * `webhook`): a {@link WebhookServer} (HTTPS, its certificate reloaded from a cert dir),
 * typed {@link Defaulter} and {@link Validator} handlers and raw admission handlers,
 * hub-and-spoke conversion between a CRD's versions, the webhook configurations that point
 * kube-apiserver at them, and certificates for development and tests.
 *
 * Imported from `kube-controller-kit`. Guide: [webhooks](../../docs/webhooks.md).
 *
 * ```ts
 * import { mkdtemp, rm } from 'node:fs/promises';
 * import { tmpdir } from 'node:os';
 * import { join } from 'node:path';
 * import {
 *   Transport,
 *   WebhookServer,
 *   allowed,
 *   configMaps,
 *   denied,
 *   generateCertificateAuthority,
 *   installWebhookConfigurations,
 *   writeCertificateFiles,
 * } from 'kube-controller-kit';
 * import { startTestApiServer } from '@kube-controller-kit/testing';
 *
 * const certDir = await mkdtemp(join(tmpdir(), 'webhook-'));
 * const ca = generateCertificateAuthority(); // on a cluster: cert-manager
 * await writeCertificateFiles(certDir, ca.issue({ ipAddresses: ['127.0.0.1'] }));
 *
 * const webhooks = new WebhookServer({ host: '127.0.0.1', port: 0, certDir });
 * webhooks.registerAdmission({
 *   type: 'validating',
 *   name: 'configmaps.example.com',
 *   path: '/validate-configmaps',
 *   rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
 *   handler: (request) =>
 *     request.object?.metadata?.labels?.['owner'] ? allowed() : denied('a ConfigMap needs an owner label'),
 * });
 * const stop = new AbortController();
 * const serving = webhooks.start(stop.signal); // a Manager does this for its webhookServer
 * await webhooks.started();
 *
 * const server = await startTestApiServer(); // calls webhooks as kube-apiserver does
 * const transport = new Transport(server.kubeConfig());
 * await installWebhookConfigurations(transport, webhooks, {
 *   endpoint: { url: `https://127.0.0.1:${webhooks.address?.port}` },
 *   caBundle: ca.caBundle,
 * });
 * await configMaps(transport)
 *   .namespace('default')
 *   .create({ metadata: { name: 'settings' } })
 *   .catch((err: unknown) => console.log(String(err))); // … denied the request: a ConfigMap needs an owner label
 *
 * transport.close();
 * await server.close();
 * stop.abort();
 * await serving;
 * await rm(certDir, { recursive: true });
 * ```
 *
 * @module webhook
 */
export { WebhookServer, DEFAULT_WEBHOOK_PORT, defaultCertDir } from './server.js';
export type {
  AdmissionRegistration,
  FailurePolicy,
  RegisterAdmissionOptions,
  RegisterForOptions,
  SideEffectClass,
  WebhookRule,
  WebhookServerAddress,
  WebhookServerOptions,
} from './server.js';
export { AdmissionWebhook, allowed, denied, errored, patched } from './admission.js';
export type { AdmissionDecision, AdmissionHandler, AdmissionWebhookOptions } from './admission.js';
export { AdmissionDenial, defaultingHandler, validatingHandler } from './typed.js';
export type { Defaulter, ValidationWarnings, Validator } from './typed.js';
export { ConversionError, ConversionWebhook } from './conversion.js';
export type {
  ConversionWebhookOptions,
  ConvertibleKind,
  DefaultSpoke,
  SpokeConverter,
} from './conversion.js';
export { CertWatcher, DEFAULT_CERT_WATCH_INTERVAL_MS } from './certwatcher.js';
export type { CertWatcherOptions } from './certwatcher.js';
export {
  CertificateAuthority,
  generateCertificateAuthority,
  writeCertificateFiles,
} from './certificates.js';
export type {
  CertificateAuthorityOptions,
  CertificateKeyPair,
  IssueCertificateOptions,
  WriteCertificateFilesOptions,
} from './certificates.js';
export { crdConversion, webhookConfigurations } from './configuration.js';
export type {
  AdmissionWebhookSource,
  GeneratedCrdConversion,
  GeneratedWebhook,
  GeneratedWebhookConfiguration,
  GeneratedWebhookConfigurations,
  WebhookClientConfig,
  WebhookConfigurationOptions,
  WebhookEndpoint,
  WebhookServiceRef,
  WebhookServiceTarget,
} from './configuration.js';
export { installWebhookConfigurations } from './install.js';
export type { InstallWebhookConfigurationsOptions } from './install.js';
export { CONVERT_PATH, defaultWebhookName, mutatePath, validatePath } from './paths.js';
export type { WebhookTarget } from './paths.js';
export { MAX_REQUEST_BYTES, isJsonContentType } from './http.js';
export type { HttpWebhook, WebhookHttpRequest, WebhookHttpResponse } from './http.js';
export { createJsonPatch } from './json_patch.js';
export {
  getDefaultWebhookMetricsProvider,
  setDefaultWebhookMetricsProvider,
  webhookLatencyBuckets,
  webhookMetricNames,
} from './metrics.js';
export type { CertWatcherMetricsProvider, WebhookMetricsProvider } from './metrics.js';
export { WebhookError } from './errors.js';
export type {
  AdmissionOperation,
  AdmissionRequest,
  AdmissionResponse,
  AdmissionReview,
  AdmissionUserInfo,
  ConversionRequest,
  ConversionResponse,
  ConversionReview,
  GroupVersionKindRef,
  GroupVersionResourceRef,
  JsonPatchOperation,
} from './types.js';
