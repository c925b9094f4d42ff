/**
 * What kube-apiserver's Service storage fills in beyond defaulting
 * (k8s.io/kubernetes `pkg/registry/core/service/storage`): the cluster IP, the IP family
 * fields, and node ports.
 *
 * - `clusterIP`/`clusterIPs`: the first free address of 10.96.0.0/12 from 10.96.0.2 on
 *   (10.96.0.1 is the `kubernetes` Service's on clusters with this range), in order, so
 *   tests see the same addresses on every run; a requested address is kept as given.
 *   Headless services (`clusterIP: None`) get `clusterIPs: [None]`; ExternalName
 *   services get none.
 * - `ipFamilies: [IPv4]` and `ipFamilyPolicy: SingleStack` (a headless service without
 *   selector: `RequireDualStack`, as kube-apiserver sets it), the server being single-stack.
 * - NodePort and LoadBalancer services: each port's `nodePort`, the first free one of
 *   30000–32767; with `externalTrafficPolicy: Local` a LoadBalancer's
 *   `healthCheckNodePort`.
 * - On update, allocated values the new object leaves out are carried over from the
 *   stored one, as kube-apiserver does, instead of being allocated again.
 *
 * @module
 */
import type { Obj } from './fields.js';
import { isEmpty, items, setIfNil } from './fields.js';

const RANGE_START = (10 << 24) | (96 << 16); // 10.96.0.0
const RANGE_SIZE = 1 << 20; // a /12
const FIRST_OFFSET = 2;
const NODE_PORT_MIN = 30000;
const NODE_PORT_MAX = 32767;

function ipString(n: number): string {
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** The addresses and ports that stored services hold. */
interface InUse {
  ips: Set<string>;
  ports: Set<number>;
}

function inUse(services: Iterable<Obj>): InUse {
  const used: InUse = { ips: new Set(), ports: new Set() };
  for (const svc of services) {
    const spec = (svc.spec ?? {}) as Obj;
    for (const ip of Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [spec.clusterIP]) {
      if (typeof ip === 'string') used.ips.add(ip);
    }
    for (const p of items(spec, 'ports')) {
      if (typeof p.nodePort === 'number') used.ports.add(p.nodePort);
    }
    if (typeof spec.healthCheckNodePort === 'number') used.ports.add(spec.healthCheckNodePort);
  }
  return used;
}

function nextIP(used: InUse): string {
  for (let offset = FIRST_OFFSET; offset < RANGE_SIZE - 1; offset++) {
    const ip = ipString(RANGE_START + offset);
    if (!used.ips.has(ip)) {
      used.ips.add(ip);
      return ip;
    }
  }
  throw new Error('the service cluster IP range 10.96.0.0/12 is full');
}

function nextPort(used: InUse): number {
  for (let port = NODE_PORT_MIN; port <= NODE_PORT_MAX; port++) {
    if (!used.ports.has(port)) {
      used.ports.add(port);
      return port;
    }
  }
  throw new Error('the node port range 30000-32767 is full');
}

/** Carries allocated values the new spec leaves out over from the stored one. */
function keepAllocated(spec: Obj, old: Obj): void {
  const needsIP = spec.type !== 'ExternalName';
  if (needsIP && isEmpty(spec.clusterIP) && spec.clusterIPs === undefined) {
    for (const key of ['clusterIP', 'clusterIPs', 'ipFamilies', 'ipFamilyPolicy']) {
      if (old[key] !== undefined) setIfNil(spec, key, old[key]);
    }
  }
  const oldPorts = items(old, 'ports');
  for (const p of items(spec, 'ports')) {
    if (p.nodePort !== undefined && p.nodePort !== null && p.nodePort !== 0) continue;
    const match = oldPorts.find((o) => o.port === p.port && (o.protocol ?? 'TCP') === p.protocol);
    if (typeof match?.nodePort === 'number') p.nodePort = match.nodePort;
  }
  if (spec.healthCheckNodePort === undefined && typeof old.healthCheckNodePort === 'number') {
    spec.healthCheckNodePort = old.healthCheckNodePort;
  }
}

/**
 * Fills in a Service's allocated fields (after {@link defaultService}). `services` are
 * the stored services (the one being updated among them); `old` is its stored spec on
 * update.
 */
export function allocateServiceFields(
  spec: Obj,
  old: Obj | undefined,
  hasSelector: boolean,
  services: () => Iterable<Obj>,
): void {
  if (spec.type === 'ExternalName') return;
  if (old !== undefined) keepAllocated(spec, old);
  let used: InUse | undefined;
  const usedNow = (): InUse => (used ??= inUse(services()));
  const ips = Array.isArray(spec.clusterIPs) ? spec.clusterIPs : [];
  if (isEmpty(spec.clusterIP)) {
    spec.clusterIP = typeof ips[0] === 'string' && ips[0] !== '' ? ips[0] : nextIP(usedNow());
  }
  if (ips.length === 0) spec.clusterIPs = [spec.clusterIP];
  const headless = spec.clusterIP === 'None';
  setIfNil(spec, 'ipFamilyPolicy', headless && !hasSelector ? 'RequireDualStack' : 'SingleStack');
  setIfNil(spec, 'ipFamilies', ['IPv4']);
  const nodePorts =
    spec.type === 'NodePort' ||
    (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts !== false);
  if (nodePorts) {
    for (const p of items(spec, 'ports')) {
      if (p.nodePort === undefined || p.nodePort === null || p.nodePort === 0) {
        p.nodePort = nextPort(usedNow());
      }
    }
  }
  if (
    spec.type === 'LoadBalancer' &&
    spec.externalTrafficPolicy === 'Local' &&
    (spec.healthCheckNodePort === undefined || spec.healthCheckNodePort === 0)
  ) {
    spec.healthCheckNodePort = nextPort(usedNow());
  }
}
