/**
 * The Application operator's webhooks, served by a `WebhookServer` on the Manager:
 *
 * - a defaulting webhook (`/mutate-example-com-v1-application`): `replicas` 1 and `port` 80
 *   when absent;
 * - a validating webhook (`/validate-example-com-v1-application`): refuses an image with
 *   no tag or with the tag `latest` (a digest pins an image too, and is accepted);
 * - the conversion webhook (`/convert`): v1 is the hub (and the storage version), v2 a
 *   spoke whose `spec.image` is split into `repository`, `tag` and `digest`.
 *
 * Both admission webhooks are for v1; kube-apiserver sends v2 requests to them converted to
 * v1 (`matchPolicy: Equivalent`).
 */
import { AdmissionDenial, installWebhookConfigurations } from 'kube-controller-kit';
import type {
  KubeConfigLike,
  Logger,
  SpokeConverter,
  WebhookEndpoint,
  WebhookServer,
} from 'kube-controller-kit';
// One module per version, imported as a namespace (as Go imports a package per version):
// v1.Application and v2.Application side by side, no alias per name.
import type * as v1 from './generated/application_v1.js';
import type * as v2 from './generated/application_v2.js';

/** What the Application webhooks are for. */
export const applicationTarget = {
  group: 'example.com',
  version: 'v1',
  kind: 'Application',
  resource: 'applications',
  scope: 'Namespaced',
} as const;

/** An image reference in parts: `repository[:tag][@digest]`. */
export interface ImageReference {
  /** Everything before the tag and digest, registry and path included. */
  repository: string;
  /** The tag, if any. */
  tag?: string | undefined;
  /** The digest (`sha256:…`), if any. */
  digest?: string | undefined;
}

/** Split `registry:5000/team/app:1.2@sha256:…` into its parts (a `:` in the registry's port is not a tag). */
export function parseImage(image: string): ImageReference {
  const at = image.indexOf('@');
  const name = at < 0 ? image : image.slice(0, at);
  const digest = at < 0 ? undefined : image.slice(at + 1);
  const colon = name.lastIndexOf(':');
  const hasTag = colon > name.lastIndexOf('/');
  const ref: ImageReference = { repository: hasTag ? name.slice(0, colon) : name };
  if (hasTag) ref.tag = name.slice(colon + 1);
  if (digest !== undefined) ref.digest = digest;
  return ref;
}

/** Join an {@link ImageReference} back into one string. */
export function formatImage(ref: ImageReference): string {
  return `${ref.repository}${ref.tag !== undefined ? `:${ref.tag}` : ''}${ref.digest !== undefined ? `@${ref.digest}` : ''}`;
}

/** Why `image` is refused, or undefined when it is pinned by a tag other than `latest` or a digest. */
export function imageProblem(image: string): string | undefined {
  const ref = parseImage(image);
  if (ref.digest !== undefined) return undefined;
  if (ref.tag === undefined || ref.tag === '') {
    return `spec.image "${image}" has no tag: pin a version (e.g. ${ref.repository}:1.0)`;
  }
  if (ref.tag === 'latest') {
    return `spec.image "${image}" uses the tag "latest": pin a version`;
  }
  return undefined;
}

/** The v2 ↔ v1 converter (v1 is the hub), typed by the generated types of both versions. */
export const applicationV2Converter: SpokeConverter<v1.Application, v2.Application> = {
  toHub(app) {
    return {
      ...app,
      apiVersion: 'example.com/v1',
      spec: { ...app.spec, image: formatImage(app.spec.image) },
    };
  },
  fromHub(hub) {
    return {
      ...hub,
      apiVersion: 'example.com/v2',
      spec: { ...hub.spec, image: parseImage(hub.spec.image) },
    };
  },
};

/** Register the defaulting, validating and conversion webhooks of Application. */
export function registerApplicationWebhooks(server: WebhookServer): void {
  server.registerFor<v1.Application>(applicationTarget, {
    defaulter: {
      default(app) {
        app.spec.replicas ??= 1;
        app.spec.port ??= 80;
      },
    },
    validator: {
      validateCreate(app) {
        const problem = imageProblem(app.spec.image);
        if (problem !== undefined) throw new AdmissionDenial(problem);
      },
      validateUpdate(_old, app) {
        const problem = imageProblem(app.spec.image);
        if (problem !== undefined) throw new AdmissionDenial(problem);
      },
    },
  });
  server.registerConversion<v1.Application>({
    group: 'example.com',
    kind: 'Application',
    hub: 'v1',
    spokes: { v2: applicationV2Converter },
  });
}

/**
 * Point the cluster at this process's webhooks, as envtest's `WebhookInstallOptions` does:
 * the mutating and validating configurations with `endpoint` and the CA, and the CRD's
 * `spec.conversion` set to this server's `/convert` (the library's
 * `installWebhookConfigurations`). A server that does not serve
 * `admissionregistration.k8s.io/v1` is told so in the log and skipped. Returns what it
 * installed.
 */
export function installApplicationWebhooks(
  kubeConfig: KubeConfigLike,
  server: WebhookServer,
  options: { endpoint: WebhookEndpoint; caBundle: string; logger: Logger },
): Promise<string[]> {
  return installWebhookConfigurations(kubeConfig, server, {
    ...options,
    name: 'application-operator',
    fieldManager: 'application-operator',
  });
}
