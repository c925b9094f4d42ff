/**
 * Webhook configurations generated from what a {@link WebhookServer} serves, as
 * controller-gen writes them from kubebuilder markers and envtest installs them: a
 * `MutatingWebhookConfiguration` and a `ValidatingWebhookConfiguration` with one webhook
 * per registered handler, and the `spec.conversion` of a CRD pointing at `/convert`, each
 * with its `caBundle`, addressed by URL (out of cluster, tests) or by Service.
 *
 * @module
 */
import type { ObjectMeta } from '../client/types.js';
import type {
  AdmissionRegistration,
  FailurePolicy,
  SideEffectClass,
  WebhookRule,
} from './server.js';
import { CONVERT_PATH } from './paths.js';

/** A Service that fronts the webhook server in the cluster. */
export interface WebhookServiceRef {
  /** Namespace of the Service. */
  namespace: string;
  /** Name of the Service. */
  name: string;
  /** Port of the Service (default 443). */
  port?: number;
}

/** Where kube-apiserver calls the webhooks: a base URL, or a Service. */
export type WebhookEndpoint =
  | {
      /** Base URL of the server, e.g. `https://127.0.0.1:9443` (paths are appended). */
      url: string;
    }
  | {
      /** The Service in front of the server. */
      service: WebhookServiceRef;
    };

/** A Service and the path on it (a WebhookClientConfig's `service`). */
export interface WebhookServiceTarget extends WebhookServiceRef {
  /** The webhook's path, e.g. `/convert`. */
  path: string;
}

/** `admissionregistration.k8s.io/v1` WebhookClientConfig. */
export interface WebhookClientConfig {
  /** URL of the webhook (with `url` endpoints). */
  url?: string;
  /** Service and path of the webhook (with Service endpoints). */
  service?: WebhookServiceTarget;
  /** Base64 PEM of the CA that signed the server's certificate. */
  caBundle?: string;
}

/** One webhook of a generated configuration. */
export interface GeneratedWebhook {
  /** The webhook's name. */
  name: string;
  /** How to call it. */
  clientConfig: WebhookClientConfig;
  /** Which requests it gets. */
  rules: WebhookRule[];
  /** `Fail` or `Ignore`. */
  failurePolicy: FailurePolicy;
  /** `None`, `NoneOnDryRun`, … */
  sideEffects: SideEffectClass;
  /** Seconds kube-apiserver waits. */
  timeoutSeconds: number;
  /** `['v1']`. */
  admissionReviewVersions: string[];
  /** `Equivalent` (kube-apiserver's default, written out as controller-gen does not). */
  matchPolicy: 'Equivalent' | 'Exact';
  /** Mutating webhooks only: `Never`. */
  reinvocationPolicy?: 'Never' | 'IfNeeded';
}

/** A generated `MutatingWebhookConfiguration` or `ValidatingWebhookConfiguration`. */
export interface GeneratedWebhookConfiguration {
  /** `admissionregistration.k8s.io/v1`. */
  apiVersion: 'admissionregistration.k8s.io/v1';
  /** The configuration kind. */
  kind: 'MutatingWebhookConfiguration' | 'ValidatingWebhookConfiguration';
  /** Its name (`<name>-mutating` / `<name>-validating`) and labels. */
  metadata: ObjectMeta;
  /** One per registered handler of that type. */
  webhooks: GeneratedWebhook[];
}

/** A CRD's `spec.conversion` for conversion by webhook. */
export interface GeneratedCrdConversion {
  /** `Webhook`. */
  strategy: 'Webhook';
  /** Where and how to call it. */
  webhook: {
    /** How to call `/convert`. */
    clientConfig: WebhookClientConfig;
    /** `['v1']`. */
    conversionReviewVersions: string[];
  };
}

/** What {@link webhookConfigurations} returns: each configuration, or undefined when no webhook has that type. */
export interface GeneratedWebhookConfigurations {
  /** The `MutatingWebhookConfiguration` (`<name>-mutating`). */
  mutating: GeneratedWebhookConfiguration | undefined;
  /** The `ValidatingWebhookConfiguration` (`<name>-validating`). */
  validating: GeneratedWebhookConfiguration | undefined;
}

/** Options of {@link webhookConfigurations} and {@link crdConversion}. */
export interface WebhookConfigurationOptions {
  /** Where kube-apiserver reaches the server. */
  endpoint: WebhookEndpoint;
  /** Base64 of the PEM CA that signed the serving certificate (`CertificateAuthority.caBundle`). */
  caBundle?: string;
  /** Base of the configurations' names (default `kube-controller-kit-webhook`). */
  name?: string;
  /** Labels on the configurations. */
  labels?: Record<string, string>;
}

function clientConfig(options: WebhookConfigurationOptions, path: string): WebhookClientConfig {
  const config: WebhookClientConfig =
    'url' in options.endpoint
      ? { url: `${options.endpoint.url.replace(/\/+$/, '')}${path}` }
      : {
          service: {
            ...options.endpoint.service,
            port: options.endpoint.service.port ?? 443,
            path,
          },
        };
  if (options.caBundle !== undefined) config.caBundle = options.caBundle;
  return config;
}

/** Anything that lists its admission webhooks (a {@link WebhookServer}). */
export interface AdmissionWebhookSource {
  /** The registered admission webhooks. */
  admissionWebhooks(): readonly AdmissionRegistration[];
}

/**
 * The webhook configurations for the admission webhooks registered with `server`: one
 * `MutatingWebhookConfiguration` (`<name>-mutating`) and one
 * `ValidatingWebhookConfiguration` (`<name>-validating`); a type with no webhook is
 * left out (`undefined`).
 */
export function webhookConfigurations(
  server: AdmissionWebhookSource,
  options: WebhookConfigurationOptions,
): GeneratedWebhookConfigurations {
  const base = options.name ?? 'kube-controller-kit-webhook';
  const build = (type: 'mutating' | 'validating'): GeneratedWebhookConfiguration | undefined => {
    const webhooks = server
      .admissionWebhooks()
      .filter((w) => w.type === type)
      .map((w): GeneratedWebhook => {
        const generated: GeneratedWebhook = {
          name: w.name,
          clientConfig: clientConfig(options, w.path),
          rules: w.rules.map((r) => ({ ...r })),
          failurePolicy: w.failurePolicy,
          sideEffects: w.sideEffects,
          timeoutSeconds: w.timeoutSeconds,
          admissionReviewVersions: [...w.admissionReviewVersions],
          matchPolicy: 'Equivalent',
        };
        if (type === 'mutating') generated.reinvocationPolicy = 'Never';
        return generated;
      });
    if (webhooks.length === 0) return undefined;
    const metadata: ObjectMeta = { name: `${base}-${type}` };
    if (options.labels !== undefined) metadata.labels = { ...options.labels };
    return {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: type === 'mutating' ? 'MutatingWebhookConfiguration' : 'ValidatingWebhookConfiguration',
      metadata,
      webhooks,
    };
  };
  return { mutating: build('mutating'), validating: build('validating') };
}

/**
 * A CRD's `spec.conversion` that sends conversions to the server's `/convert`
 * (`conversionReviewVersions: ['v1']`).
 */
export function crdConversion(options: WebhookConfigurationOptions): GeneratedCrdConversion {
  return {
    strategy: 'Webhook',
    webhook: {
      clientConfig: clientConfig(options, CONVERT_PATH),
      conversionReviewVersions: ['v1'],
    },
  };
}
