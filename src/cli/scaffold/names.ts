/**
 * The names a scaffold is made of, checked with Kubernetes' rules before a file is written:
 * the domain and group (DNS-1123 subdomains, the group qualified by the domain as
 * kubebuilder qualifies it), the version (`v1`, `v2beta1`, `v1alpha1`: the versions
 * kube-apiserver orders by priority), the kind (PascalCase, a DNS-1035 label in lower
 * case), the plural resource, and the project name (an npm package name whose last part is a
 * DNS-1123 label, for the Namespace and the ServiceAccount). Every refusal says what was
 * given, which rule it breaks, and an example that passes.
 *
 * @module
 */
import { KubeControllerKitError } from '../../util/errors.js';

/** A name or flag of a scaffold command is wrong, or the project is not in the state asked for. */
export class ScaffoldError extends KubeControllerKitError {}

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS1035_LABEL = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

/** Whether `name` is a DNS-1123 subdomain (lower case labels joined by dots, 253 at most). */
function isDns1123Subdomain(name: string): boolean {
  return (
    name.length > 0 &&
    name.length <= 253 &&
    name.split('.').every((l) => l.length <= 63 && DNS1123_LABEL.test(l))
  );
}

const SUBDOMAIN_RULE =
  'lower-case letters, digits and "-", in labels joined by "." (a DNS-1123 subdomain)';

/** Checks `--domain`; kubebuilder's default is `my.domain`. */
export function checkDomain(domain: string): string {
  if (!isDns1123Subdomain(domain)) {
    throw new ScaffoldError(
      `--domain "${domain}" is not a valid domain: ${SUBDOMAIN_RULE}, e.g. example.com`,
    );
  }
  return domain;
}

/** Checks `--group` and returns the fully qualified API group, `<group>.<domain>`. */
export function qualifiedGroup(group: string, domain: string): string {
  if (group === '') throw new ScaffoldError('--group is required, e.g. --group webapp');
  if (!isDns1123Subdomain(group)) {
    throw new ScaffoldError(`--group "${group}" is not a valid API group: ${SUBDOMAIN_RULE}`);
  }
  const qualified = `${group}.${domain}`;
  if (!isDns1123Subdomain(qualified)) {
    throw new ScaffoldError(
      `the API group "${qualified}" (--group and --domain) is longer than 253 characters`,
    );
  }
  return qualified;
}

const VERSION = /^v[1-9][0-9]*(?:(?:alpha|beta)[1-9][0-9]*)?$/;

/** Checks `--version`: `v1`, `v2`, `v1beta1`, `v1alpha2`. */
export function checkVersion(version: string): string {
  if (version === '') throw new ScaffoldError('--version is required, e.g. --version v1');
  if (!VERSION.test(version) || version.length > 63) {
    throw new ScaffoldError(
      `--version "${version}" is not a Kubernetes API version: "v" and a number, optionally ` +
        'followed by "alpha" or "beta" and a number (v1, v2, v1beta1, v1alpha2)',
    );
  }
  return version;
}

/** Checks `--kind`: PascalCase, a letter first, letters and digits, 63 characters at most. */
export function checkKind(kind: string): string {
  if (kind === '') throw new ScaffoldError('--kind is required, e.g. --kind Guestbook');
  if (!/^[A-Z][A-Za-z0-9]*$/.test(kind) || kind.length > 63) {
    const suggestion = kind
      .split(/[^A-Za-z0-9]+/)
      .filter((p) => p !== '')
      .map((p) => p[0]!.toUpperCase() + p.slice(1))
      .join('');
    throw new ScaffoldError(
      `--kind "${kind}" must be PascalCase: an upper-case letter, then letters and digits, ` +
        `63 at most${/^[A-Z][A-Za-z0-9]*$/.test(suggestion) ? ` (e.g. ${suggestion})` : ''}`,
    );
  }
  return kind;
}

/**
 * The plural resource name of a kind, in lower case, by English rules (`Policy` →
 * `policies`, `Box` → `boxes`, `Guestbook` → `guestbooks`); `--plural` overrides it.
 */
export function pluralize(kind: string): string {
  const lower = kind.toLowerCase();
  if (/(?:s|x|z|ch|sh)$/.test(lower)) return `${lower}es`;
  if (/[^aeiou]y$/.test(lower)) return `${lower.slice(0, -1)}ies`;
  return `${lower}s`;
}

/** Checks `--plural` (a DNS-1035 label: what a resource name in a URL must be). */
export function checkPlural(plural: string): string {
  if (!DNS1035_LABEL.test(plural) || plural.length > 63) {
    throw new ScaffoldError(
      `--plural "${plural}" is not a valid resource name: lower-case letters, digits and "-", ` +
        'a letter first (a DNS-1035 label), e.g. guestbooks',
    );
  }
  return plural;
}

/**
 * Checks `--project-name`, the npm package name (optionally scoped), and returns the name of
 * its Kubernetes objects: the package name without its scope, a DNS-1123 label short enough
 * for `<name>-system` and `<name>-controller-manager`.
 */
export function checkProjectName(name: string): string {
  const m = /^(?:@([a-z0-9][a-z0-9._-]*)\/)?([^/]+)$/.exec(name);
  const base = m?.[2] ?? '';
  if (m === null || name.length > 214) {
    throw new ScaffoldError(
      `--project-name "${name}" is not an npm package name: lower case, optionally @scope/name`,
    );
  }
  if (!DNS1123_LABEL.test(base) || base.length > 40) {
    throw new ScaffoldError(
      `--project-name "${name}": "${base}" also names the operator's Namespace and ServiceAccount, ` +
        'so it must be lower-case letters, digits and "-", 40 characters at most ' +
        '(a DNS-1123 label with room for "-controller-manager"), e.g. guestbook-operator',
    );
  }
  return base;
}

/** Everything the templates of one kind at one version are written from. */
export interface ApiNames {
  /** The group as given (`webapp`). */
  group: string;
  /** The fully qualified group (`webapp.my.domain`). */
  qualifiedGroup: string;
  /** `v1`. */
  version: string;
  /** `Guestbook`. */
  kind: string;
  /** `guestbooks`. */
  plural: string;
  /** `guestbook`: the kind in lower case (file names, the singular). */
  lower: string;
  /** `guestbook`: the kind with a lower-case first letter (variables). */
  camel: string;
  /** Whether the kind is namespaced. */
  namespaced: boolean;
  /** `webapp.my.domain/v1`. */
  apiVersion: string;
  /** `webappv1`: the module's name when imported as a namespace (kubebuilder's import alias). */
  alias: string;
  /** `guestbook_v1`: the file `gen types` writes (`src/api/<module>.ts`). */
  module: string;
  /** `webapp.my.domain_guestbooks`: the CRD's file in `config/crd/bases`. */
  crdFile: string;
  /** `guestbooks.webapp.my.domain`: the CRD's name. */
  crdName: string;
}

/** The names of one kind at one version, checked. */
export function apiNames(options: {
  group: string;
  domain: string;
  version: string;
  kind: string;
  plural?: string | undefined;
  namespaced: boolean;
}): ApiNames {
  const kind = checkKind(options.kind);
  const version = checkVersion(options.version);
  const group = qualifiedGroup(options.group, options.domain);
  const plural = checkPlural(options.plural ?? pluralize(kind));
  // kubebuilder's alias: the group's first label without dashes, then the version; an
  // identifier cannot start with a digit, so such a group gets a prefix.
  const first = options.group.split('.')[0]!.replace(/-/g, '');
  const alias = `${/^[0-9]/.test(first) ? 'api' : ''}${first}${version}`;
  return {
    group: options.group,
    qualifiedGroup: group,
    version,
    kind,
    plural,
    lower: kind.toLowerCase(),
    camel: kind[0]!.toLowerCase() + kind.slice(1),
    namespaced: options.namespaced,
    apiVersion: `${group}/${version}`,
    alias,
    module: `${kind.toLowerCase()}_${version}`,
    crdFile: `${group}_${plural}`,
    crdName: `${plural}.${group}`,
  };
}

/** `Guestbook` `v1` → `GuestbookV1` (a version's part of an identifier). */
export function upperFirst(text: string): string {
  return (text[0] ?? '').toUpperCase() + text.slice(1);
}
