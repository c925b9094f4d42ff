/**
 * The envtest pattern (controller-runtime's `WebhookInstallOptions`): a Manager's webhook
 * configurations (MutatingWebhookConfiguration, ValidatingWebhookConfiguration, and
 * CustomResourceDefinitions whose conversion is a webhook), rewritten to point at the
 * webhook server a test runs: each `clientConfig.service` (or `url`) becomes
 * `<baseUrl><path>`, a conversion webhook `<baseUrl>/convert`, and every caBundle the
 * test's CA.
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';

/** What to install and where it points. */
export interface WebhookInstallOptions {
  /**
   * The configuration objects, as generated for a Service or a URL
   * (MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
   * CustomResourceDefinition with `spec.conversion.strategy: Webhook`).
   */
  configurations: UnstructuredObject[];
  /** Where the webhook server listens: `https://127.0.0.1:9443`. */
  baseUrl: string;
  /** The CA that signed the server's certificate: PEM text or a base64 caBundle. */
  caBundle: string;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function base64Bundle(ca: string): string {
  return ca.includes('-----BEGIN') ? Buffer.from(ca, 'utf8').toString('base64') : ca;
}

function pathOf(cc: Record<string, unknown>, fallback: string): string {
  if (isObject(cc.service) && typeof cc.service.path === 'string') return cc.service.path;
  if (typeof cc.url === 'string') return new URL(cc.url).pathname;
  return fallback;
}

/** The configurations rewritten to point at `baseUrl` with the test's CA. */
export function webhookConfigurationsFor(options: WebhookInstallOptions): UnstructuredObject[] {
  const base = options.baseUrl.replace(/\/$/, '');
  const caBundle = base64Bundle(options.caBundle);
  return options.configurations.map((config) => {
    const copy = structuredClone(config);
    if (copy.kind === 'CustomResourceDefinition') {
      const spec = isObject(copy.spec) ? copy.spec : undefined;
      const conversion =
        spec !== undefined && isObject(spec.conversion) ? spec.conversion : undefined;
      if (conversion?.strategy === 'Webhook') {
        const webhook = isObject(conversion.webhook) ? conversion.webhook : {};
        const cc = isObject(webhook.clientConfig) ? webhook.clientConfig : {};
        webhook.clientConfig = { url: `${base}${pathOf(cc, '/convert')}`, caBundle };
        conversion.webhook = webhook;
      }
      return copy;
    }
    const hooks = Array.isArray(copy.webhooks) ? (copy.webhooks as unknown[]) : [];
    for (const h of hooks) {
      if (!isObject(h)) continue;
      const cc = isObject(h.clientConfig) ? h.clientConfig : {};
      h.clientConfig = { url: `${base}${pathOf(cc, '')}`, caBundle };
    }
    return copy;
  });
}
