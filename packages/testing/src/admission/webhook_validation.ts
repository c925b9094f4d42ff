/**
 * Validation of MutatingWebhookConfiguration and ValidatingWebhookConfiguration objects
 * (`admissionregistration.k8s.io/v1`), with kube-apiserver's field paths and words for
 * the rules a webhook author most often trips on: a fully qualified webhook name, unique
 * names, `sideEffects` (`None` or `NoneOnDryRun` in v1), `admissionReviewVersions`,
 * `timeoutSeconds` between 1 and 30, and exactly one of `url` or `service`.
 *
 * @module
 */
import type { StatusCause, UnstructuredObject } from 'kube-controller-kit';

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** The causes of an invalid webhook configuration (empty when valid). */
export function validateWebhookConfiguration(config: UnstructuredObject): StatusCause[] {
  const causes: StatusCause[] = [];
  const hooks = Array.isArray(config.webhooks) ? (config.webhooks as unknown[]) : [];
  const names = new Set<string>();
  hooks.forEach((raw, i) => {
    const at = `webhooks[${i}]`;
    const h = isObject(raw) ? raw : {};
    const name = typeof h.name === 'string' ? h.name : '';
    if (name === '') {
      causes.push({ reason: 'FieldValueRequired', field: `${at}.name`, message: 'Required value' });
    } else if (name.split('.').length < 3) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${at}.name`,
        message: `Invalid value: ${JSON.stringify(name)}: should be a domain with at least three segments separated by dots`,
      });
    } else if (names.has(name)) {
      causes.push({
        reason: 'FieldValueDuplicate',
        field: `${at}.name`,
        message: `Duplicate value: ${JSON.stringify(name)}`,
      });
    }
    names.add(name);
    const sideEffects = h.sideEffects;
    if (sideEffects === undefined) {
      causes.push({
        reason: 'FieldValueRequired',
        field: `${at}.sideEffects`,
        message: 'Required value: must specify one of None, NoneOnDryRun',
      });
    } else if (sideEffects !== 'None' && sideEffects !== 'NoneOnDryRun') {
      causes.push({
        reason: 'FieldValueNotSupported',
        field: `${at}.sideEffects`,
        message: `Unsupported value: ${JSON.stringify(sideEffects)}: supported values: "None", "NoneOnDryRun"`,
      });
    }
    const versions = Array.isArray(h.admissionReviewVersions) ? h.admissionReviewVersions : [];
    if (versions.length === 0) {
      causes.push({
        reason: 'FieldValueRequired',
        field: `${at}.admissionReviewVersions`,
        message: 'Required value: must specify one of v1, v1beta1',
      });
    }
    if (
      h.timeoutSeconds !== undefined &&
      (typeof h.timeoutSeconds !== 'number' || h.timeoutSeconds < 1 || h.timeoutSeconds > 30)
    ) {
      causes.push({
        reason: 'FieldValueInvalid',
        field: `${at}.timeoutSeconds`,
        message: `Invalid value: ${JSON.stringify(h.timeoutSeconds)}: the timeout value must be between 1 and 30 seconds`,
      });
    }
    const cc = isObject(h.clientConfig) ? h.clientConfig : {};
    if ((cc.url === undefined) === (cc.service === undefined)) {
      causes.push({
        reason: 'FieldValueRequired',
        field: `${at}.clientConfig`,
        message: 'Required value: exactly one of url or service is required',
      });
    }
  });
  return causes;
}

/** Whether a resource is one of the webhook configuration kinds. */
export function isWebhookConfiguration(group: string, resource: string): boolean {
  return (
    group === 'admissionregistration.k8s.io' &&
    (resource === 'mutatingwebhookconfigurations' || resource === 'validatingwebhookconfigurations')
  );
}
