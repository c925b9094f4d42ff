/**
 * ValidatingWebhookConfiguration (admissionregistration.k8s.io/v1), read by the admission chain
 * (../../admission), validated as ./webhook_configuration.ts says.
 *
 * @module
 */
import { webhookConfigurationStrategy } from './webhook_configuration.js';
import { defineKind } from '../kind.js';

/** ValidatingWebhookConfigurations. */
export const validatingWebhookConfigurations = defineKind({
  group: 'admissionregistration.k8s.io',
  resource: 'validatingwebhookconfigurations',
  kind: 'ValidatingWebhookConfiguration',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
  strategy: webhookConfigurationStrategy,
});
