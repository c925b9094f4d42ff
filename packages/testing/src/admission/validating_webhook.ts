/**
 * The `ValidatingAdmissionWebhook` plugin: the validating webhooks of every
 * ValidatingWebhookConfiguration that match a request are called in parallel; the first
 * refusal (in the order of the configurations) is the answer. A failed call fails closed
 * (500) or, under `failurePolicy: Ignore`, open. Requests written in-process are not sent.
 *
 * @module
 */
import type { ApiError, UnstructuredObject } from 'kube-controller-kit';
import { denial } from './admission_review.js';
import type { AdmissionAttributes, ValidationInterface } from './interfaces.js';
import { isExemptResource, webhooksOf } from './webhook.js';
import { callWebhook, failClosed, shouldCall } from './webhook_invocation.js';
import type { Invocation, WebhookPluginDeps } from './webhook_invocation.js';

/** The `ValidatingAdmissionWebhook` validation. */
export function validatingWebhookPlugin(deps: WebhookPluginDeps): ValidationInterface {
  return {
    name: 'ValidatingAdmissionWebhook',
    validate(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (attrs.inProcess || isExemptResource(attrs.type)) return;
      const configurations = deps.configurations();
      if (configurations.length === 0) return;
      const invocations: Invocation[] = [];
      for (const hook of webhooksOf(configurations)) {
        const inv = shouldCall(hook, attrs, obj, deps);
        if (inv !== undefined) invocations.push(inv);
      }
      if (invocations.length === 0) return;
      return dispatch(invocations, attrs, obj, deps);
    },
  };
}

async function dispatch(
  invocations: Invocation[],
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: WebhookPluginDeps,
): Promise<void> {
  const errors = await Promise.all(
    invocations.map(async (inv): Promise<ApiError | undefined> => {
      const outcome = await callWebhook(inv, attrs, obj, false, deps);
      if (!outcome.ok) {
        if ('error' in outcome) return outcome.error;
        return failClosed(inv.webhook, outcome.callError);
      }
      return outcome.response.allowed
        ? undefined
        : denial(inv.webhook.name, outcome.response.status);
    }),
  );
  const first = errors.find((e) => e !== undefined);
  if (first !== undefined) throw first;
}
