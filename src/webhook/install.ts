/**
 * envtest's `WebhookInstallOptions`, as a function: point an API server at a running
 * webhook server by writing its generated configurations there.
 *
 * @module
 */
import { customResourceDefinitionsResource } from '../client/builtins.js';
import { isNotFound } from '../client/errors.js';
import { ResourceClient } from '../client/resource_client.js';
import { toTransport } from '../client/transport.js';
import type { KubeConfigLike, Transport } from '../client/transport.js';
import type { ApiResource, UnstructuredObject } from '../client/types.js';
import type { Logger } from '../util/logger.js';
import { noopLogger } from '../util/logger.js';
import { crdConversion, webhookConfigurations } from './configuration.js';
import type {
  GeneratedWebhookConfiguration,
  WebhookConfigurationOptions,
} from './configuration.js';
import type { WebhookServer } from './server.js';

/** Options of {@link installWebhookConfigurations}. */
export interface InstallWebhookConfigurationsOptions extends WebhookConfigurationOptions {
  /** Field manager of the server-side applies (default `kube-controller-kit-webhook`). */
  fieldManager?: string;
  /** Where a server that does not serve webhook configurations is reported (default: nowhere). */
  logger?: Logger;
}

const configurationResources: Record<GeneratedWebhookConfiguration['kind'], ApiResource> = {
  MutatingWebhookConfiguration: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'mutatingwebhookconfigurations',
    kind: 'MutatingWebhookConfiguration',
    namespaced: false,
  },
  ValidatingWebhookConfiguration: {
    group: 'admissionregistration.k8s.io',
    version: 'v1',
    resource: 'validatingwebhookconfigurations',
    kind: 'ValidatingWebhookConfiguration',
    namespaced: false,
  },
};

/**
 * Install what `server` serves on the cluster behind `source`, as envtest does for a
 * Manager's webhook server: server-side apply the mutating and validating configurations
 * ({@link webhookConfigurations} with `options`), and set `spec.conversion`
 * ({@link crdConversion}) on every CRD whose group and kind are registered for conversion.
 * A server that does not serve `admissionregistration.k8s.io/v1` is logged and skipped.
 * Resolves with what it wrote (`Kind/name`).
 */
export async function installWebhookConfigurations(
  source: Transport | KubeConfigLike,
  server: WebhookServer,
  options: InstallWebhookConfigurationsOptions,
): Promise<string[]> {
  const fieldManager = options.fieldManager ?? 'kube-controller-kit-webhook';
  const logger = options.logger ?? noopLogger;
  const transport = toTransport(source);
  try {
    return await install(transport, server, options, fieldManager, logger);
  } finally {
    // A transport made here from a KubeConfig is closed here; a given one stays open.
    if (transport !== source) transport.close();
  }
}

async function install(
  source: Transport,
  server: WebhookServer,
  options: InstallWebhookConfigurationsOptions,
  fieldManager: string,
  logger: Logger,
): Promise<string[]> {
  const installed: string[] = [];
  const { mutating, validating } = webhookConfigurations(server, options);
  for (const configuration of [mutating, validating]) {
    if (configuration === undefined) continue;
    const resource = configurationResources[configuration.kind];
    const name = configuration.metadata.name ?? '';
    try {
      await new ResourceClient(source, resource).apply(
        { ...configuration, metadata: { ...configuration.metadata, name } },
        { fieldManager, force: true },
      );
      installed.push(`${configuration.kind}/${name}`);
    } catch (err) {
      if (!isNotFound(err)) throw err;
      logger.info(
        `this API server does not serve ${resource.resource}.${resource.group}: ${name} not installed`,
      );
    }
  }
  const kinds = server.conversionKinds();
  if (kinds.length > 0) {
    const crds = new ResourceClient(source, customResourceDefinitionsResource);
    const conversion = crdConversion(options);
    // A merge patch keeps what it does not name: clear the other way of addressing the
    // webhook (url and service exclude each other) and a CA that no longer applies.
    const patch = {
      spec: {
        conversion: {
          ...conversion,
          webhook: {
            ...conversion.webhook,
            clientConfig: {
              url: conversion.webhook.clientConfig.url ?? null,
              service: conversion.webhook.clientConfig.service ?? null,
              caBundle: conversion.webhook.clientConfig.caBundle ?? null,
            },
          },
        },
      },
    };
    for (const crd of (await crds.list()).items as UnstructuredObject[]) {
      const spec = crd.spec as { group?: string; names?: { kind?: string } } | undefined;
      if (!kinds.some((k) => k.group === spec?.group && k.kind === spec.names?.kind)) continue;
      const name = crd.metadata?.name ?? '';
      await crds.patch(name, patch, { type: 'merge' });
      installed.push(`CustomResourceDefinition/${name}`);
    }
  }
  return installed;
}
