/**
 * Admission and conversion webhooks, served by the operator: a {@link WebhookServer}
 * (HTTPS, certificate reloaded from a cert dir), typed {@link Defaulter} and
 * {@link Validator} handlers, hub-and-spoke conversion, the webhook configurations that
 * point kube-apiserver at them, and development certificates. See docs/webhooks.md.
 *
 * @module
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
