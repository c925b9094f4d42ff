/**
 * What the two webhook configuration kinds (Mutating and Validating) share: their
 * validation, with kube-apiserver's words for what webhook authors trip on
 * (../../admission/webhook_validation.ts), on create and update.
 *
 * @module
 */
import { validateWebhookConfiguration } from '../../admission/webhook_validation.js';
import type { ResourceStrategy } from '../types.js';

/** The strategy steps of both webhook configuration kinds. */
export const webhookConfigurationStrategy: Partial<ResourceStrategy> = {
  validate: (obj) => validateWebhookConfiguration(obj),
  validateUpdate: (obj) => validateWebhookConfiguration(obj),
};
