/**
 * The `MutatingAdmissionWebhook` plugin: the mutating webhooks of every
 * MutatingWebhookConfiguration, called one after another in the order of their
 * configurations' names; each answer's JSON Patch is applied before the next call. A
 * webhook with `reinvocationPolicy: IfNeeded` is called once more, in the chain's second
 * run (./reinvocation.ts), when a later webhook or another plugin changed the object
 * after it ran. A failed call fails closed (500) or, under
 * `failurePolicy: Ignore`, open (recorded as the `failed-open.mutation.webhook…` audit
 * annotation). Requests written in-process are not sent (they cannot wait).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { applyJsonPatch } from '../patch.js';
import { denial, internalError, objectAt } from './admission_review.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';
import { ReinvocationContext } from './reinvocation.js';
import type { Webhook } from './webhook.js';
import { isExemptResource, webhooksOf } from './webhook.js';
import { callWebhook, failClosed, shouldCall } from './webhook_invocation.js';
import type { WebhookPluginDeps } from './webhook_invocation.js';

const MUTATION_ANNOTATION = 'mutation.webhook.admission.k8s.io';
const FAILED_OPEN_ANNOTATION = `failed-open.${MUTATION_ANNOTATION}`;

/** The `MutatingAdmissionWebhook` mutation. */
export function mutatingWebhookPlugin(deps: WebhookPluginDeps): MutationInterface {
  return {
    name: 'MutatingAdmissionWebhook',
    admit(attrs: AdmissionAttributes, obj: UnstructuredObject | undefined) {
      if (attrs.inProcess || isExemptResource(attrs.type)) return obj;
      const configurations = deps.configurations();
      if (configurations.length === 0) return obj;
      return dispatch(webhooksOf(configurations), attrs, obj, deps);
    },
  };
}

/** The key of a webhook in the reinvocation state (kube-apiserver: the webhook's UID). */
function hookKey(hook: Webhook, index: number): string {
  return `${hook.configurationName}/${hook.name}/${index}`;
}

async function dispatch(
  hooks: Webhook[],
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: WebhookPluginDeps,
): Promise<UnstructuredObject | undefined> {
  let current = obj;
  const context = attrs.reinvocation ?? new ReinvocationContext();
  const state = context.plugin('MutatingAdmissionWebhook');
  const round = context.isReinvoke ? 1 : 0;
  if (context.isReinvoke && state.outputChangedSinceLastInvocation(current)) {
    // another plugin changed the object since the webhooks ran
    state.requireReinvokingPreviouslyInvoked();
  }
  const callOne = async (hook: Webhook, index: number): Promise<void> => {
    const key = hookKey(hook, index);
    if (context.isReinvoke && !state.shouldReinvoke(key)) return;
    const inv = shouldCall(hook, attrs, current, deps);
    if (inv === undefined) return;
    const outcome = await callWebhook(inv, attrs, current, true, deps);
    const annotation = `round_${round}_index_${index}`;
    if (!outcome.ok) {
      if ('error' in outcome) throw outcome.error;
      const closed = failClosed(hook, outcome.callError);
      if (closed !== undefined) throw closed;
      deps.recordAuditAnnotation(attrs, `${FAILED_OPEN_ANNOTATION}/${annotation}`, hook.name);
      return;
    }
    const { response } = outcome;
    if (!response.allowed) throw denial(hook.name, response.status);
    let mutated = false;
    if (response.patch !== undefined && response.patch.length > 0) {
      if (current === undefined) {
        throw internalError(
          `admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`,
        );
      }
      const storedVersion = current.apiVersion;
      const at = objectAt(outcome.convert, current, attrs, inv.version);
      let patched: unknown;
      try {
        patched = applyJsonPatch(at, response.patch);
      } catch (err) {
        throw internalError(err instanceof Error ? err.message : String(err));
      }
      const next = patched as UnstructuredObject;
      let back = next;
      if (inv.version !== attrs.version && attrs.kind === undefined) {
        back =
          deps.convertAsync === undefined
            ? deps.convert(next, attrs, attrs.version)
            : await deps.convertAsync(next, attrs, attrs.version);
      }
      const out: UnstructuredObject = { ...back };
      if (storedVersion !== undefined) out.apiVersion = storedVersion;
      mutated = JSON.stringify(out) !== JSON.stringify(current);
      current = out;
    }
    deps.recordAuditAnnotation(
      attrs,
      `${MUTATION_ANNOTATION}/${annotation}`,
      JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated }),
    );
    if (mutated) {
      state.requireReinvokingPreviouslyInvoked();
      context.shouldReinvoke = true;
    }
    if (hook.reinvocationPolicy === 'IfNeeded') state.addReinvocable(key);
  };
  try {
    for (let i = 0; i < hooks.length; i++) await callOne(hooks[i] as Webhook, i);
  } finally {
    state.setLastInvocationOutput(current);
  }
  return current;
}
