/**
 * MutatingWebhookConfiguration (admissionregistration.k8s.io/v1), read by the admission chain
 * (../../admission), validated as ./webhook_configuration.ts says.
 *
 * @module
 */
import { webhookConfigurationStrategy } from './webhook_configuration.js';
import { defineKind } from '../kind.js';

/** MutatingWebhookConfigurations. */
export const mutatingWebhookConfigurations = defineKind({
  group: 'admissionregistration.k8s.io',
  resource: 'mutatingwebhookconfigurations',
  kind: 'MutatingWebhookConfiguration',
  namespaced: false,
  categories: ['api-extensions'],
  tracksGeneration: true,
  strategy: webhookConfigurationStrategy,
});
