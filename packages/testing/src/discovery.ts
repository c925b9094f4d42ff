/**
 * Discovery documents of the test API server (the legacy, non-aggregated JSON forms that
 * kubectl and dynamic clients fall back to).
 *
 * @module
 */
import { compareGroups } from './registry/apiregistration/priorities.js';
import type { ResourceRegistry, ResourceType } from './registry/resource_registry.js';

const VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/**
 * The Kubernetes release the test server follows: its behaviour and the transcripts it is
 * checked against come from this kube-apiserver (client-go v0.36.3).
 */
export const KUBERNETES_VERSION = 'v1.36.3';

/**
 * `/version`, as kube-apiserver v1.36.3 answers it (`version.Info`, fields in its order):
 * since compatibility versions (1.31) it also says the version it emulates (by default its
 * own) and the oldest it stays compatible with (by default the minor before).
 */
export function versionInfo(): Record<string, string> {
  return {
    major: '1',
    minor: '36',
    emulationMajor: '1',
    emulationMinor: '36',
    minCompatibilityMajor: '1',
    minCompatibilityMinor: '35',
    gitVersion: KUBERNETES_VERSION,
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2026-01-01T00:00:00Z',
    goVersion: 'go1.26.1',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

/** `/api`. */
export function coreVersions(serverAddress: string): Record<string, unknown> {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(group: string, versions: string[]): Record<string, unknown> {
  const vs = versions.map((v) => ({ groupVersion: `${group}/${v}`, version: v }));
  return { name: group, versions: vs, preferredVersion: vs[0] };
}

/** `/apis`. */
export function groupList(registry: ResourceRegistry): Record<string, unknown> {
  const groups: Record<string, unknown>[] = [];
  // In the aggregator's order: its own group, then by group priority (kube-apiserver 1.36).
  const served = registry.groups();
  const names = [...served.keys()].filter((g) => g !== '').sort(compareGroups);
  for (const g of names) groups.push(groupDoc(g, served.get(g) ?? []));
  return { kind: 'APIGroupList', apiVersion: 'v1', groups };
}

/** `/apis/{group}`, or undefined when the group is not served. */
export function group(
  registry: ResourceRegistry,
  name: string,
): Record<string, unknown> | undefined {
  const vs = registry.groups().get(name);
  if (!vs || name === '') return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(name, vs) };
}

function resourceEntries(t: ResourceType): Record<string, unknown>[] {
  const main: Record<string, unknown> = {
    name: t.resource,
    singularName: t.singular,
    namespaced: t.namespaced,
    kind: t.kind,
    verbs: t.virtual === true ? ['create'] : (t.verbs ?? VERBS),
  };
  if (t.shortNames.length > 0) main.shortNames = t.shortNames;
  if (t.categories.length > 0) main.categories = t.categories;
  const out = [main];
  if (t.statusSubresource) {
    out.push({
      name: `${t.resource}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (t.scale !== undefined) {
    out.push({
      name: `${t.resource}/scale`,
      singularName: '',
      namespaced: t.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  }
  return out;
}

/** `/api/v1` or `/apis/{group}/{version}`, or undefined when not served. */
export function resourceList(
  registry: ResourceRegistry,
  group: string,
  version: string,
): Record<string, unknown> | undefined {
  const types = registry.inGroupVersion(group, version);
  if (types.length === 0) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: group === '' ? version : `${group}/${version}`,
    resources: types.flatMap(resourceEntries),
  };
}
