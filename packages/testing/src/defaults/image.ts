/**
 * The default `imagePullPolicy` of a container, from its image reference: kube-apiserver
 * parses the reference as a normalized Docker name (k8s.io/kubernetes `pkg/util/parsers`);
 * a reference without tag and digest counts as tag `latest`. Tag `latest` pulls `Always`;
 * any other tag, a digest alone, or a reference that does not parse pulls `IfNotPresent`.
 *
 * @module
 */

const COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const DOMAIN =
  /^(?:[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*|\[[0-9a-fA-F:]+\])(?::[0-9]+)?$/;
const TAG = /^[\w][\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[.+_-][a-z0-9]+)*:[0-9a-fA-F]{32,}$/;

/** Whether the first path component of a name is a registry host (`host:5000`, `a.b`, `localhost`). */
function isDomain(first: string): boolean {
  return (
    (first.includes('.') ||
      first.includes(':') ||
      first === 'localhost' ||
      first !== first.toLowerCase()) &&
    DOMAIN.test(first)
  );
}

/**
 * The tag of an image reference as kube-apiserver reads it: `latest` when it names
 * neither tag nor digest, `''` when it names only a digest; undefined when it does not
 * parse (e.g. upper-case repository letters).
 */
export function imageTag(image: string): string | undefined {
  let name = image;
  let digest = '';
  const at = name.indexOf('@');
  if (at >= 0) {
    digest = name.slice(at + 1);
    name = name.slice(0, at);
    if (!DIGEST.test(digest)) return undefined;
  }
  let tag = '';
  const colon = name.lastIndexOf(':');
  if (colon > name.lastIndexOf('/')) {
    tag = name.slice(colon + 1);
    name = name.slice(0, colon);
    if (!TAG.test(tag)) return undefined;
  }
  const parts = name.split('/');
  if (parts.length > 1 && isDomain(parts[0] ?? '')) parts.shift();
  if (parts.length === 0 || !parts.every((p) => COMPONENT.test(p))) return undefined;
  if (name.length > 255) return undefined;
  return tag === '' && digest === '' ? 'latest' : tag;
}

/** The `imagePullPolicy` a container without one gets: `Always` for tag `latest`, else `IfNotPresent`. */
export function defaultPullPolicy(image: unknown): 'Always' | 'IfNotPresent' {
  return typeof image === 'string' && imageTag(image) === 'latest' ? 'Always' : 'IfNotPresent';
}
