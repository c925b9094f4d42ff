/**
 * The `MutatingAdmissionWebhook` plugin: the mutating webhooks of every
 * MutatingWebhookConfiguration, called one after another in the order of their
 * configurations' names; each answer's JSON Patch is applied before the next call. A
 * webhook with `reinvocationPolicy: IfNeeded` is called once more when a later webhook
 * changed the object after it ran. A failed call fails closed (500) or, under
 * `failurePolicy: Ignore`, open (recorded as the `failed-open.mutation.webhook…` audit
 * annotation). Requests written in-process are not sent (they cannot wait).
 *
 * @module
 */
import type { UnstructuredObject } from 'kube-controller-kit';
import { applyJsonPatch } from '../patch.js';
import { denial, internalError, objectAt } from './admission_review.js';
import type { AdmissionAttributes, MutationInterface } from './interfaces.js';
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

async function dispatch(
  hooks: Webhook[],
  attrs: AdmissionAttributes,
  obj: UnstructuredObject | undefined,
  deps: WebhookPluginDeps,
): Promise<UnstructuredObject | undefined> {
  let current = obj;
  // IfNeeded webhooks called in round 0, with the object as they left it.
  const reinvocable = new Map<Webhook, string>();
  const callOne = async (hook: Webhook, round: number, index: number): Promise<void> => {
    const inv = shouldCall(hook, attrs, current, deps);
    if (inv === undefined) return;
    const outcome = await callWebhook(inv, attrs, current, true, deps);
    const key = `round_${round}_index_${index}`;
    if (!outcome.ok) {
      if ('error' in outcome) throw outcome.error;
      const closed = failClosed(hook, outcome.callError);
      if (closed !== undefined) throw closed;
      deps.recordAuditAnnotation(attrs, `${FAILED_OPEN_ANNOTATION}/${key}`, hook.name);
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
      `${MUTATION_ANNOTATION}/${key}`,
      JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated }),
    );
    if (round === 0 && hook.reinvocationPolicy === 'IfNeeded') {
      reinvocable.set(hook, JSON.stringify(current));
    }
  };
  for (let i = 0; i < hooks.length; i++) await callOne(hooks[i] as Webhook, 0, i);
  const finalJson = JSON.stringify(current);
  const again = hooks.filter((h) => {
    const after = reinvocable.get(h);
    return after !== undefined && after !== finalJson;
  });
  for (let i = 0; i < again.length; i++) await callOne(again[i] as Webhook, 1, i);
  return current;
}
