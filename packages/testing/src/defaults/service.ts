/**
 * Defaults of core/v1 Services (k8s.io/kubernetes `pkg/apis/core/v1/defaults.go`):
 * `type: ClusterIP`, `sessionAffinity: None` (its config dropped), a ClientIP affinity's
 * `timeoutSeconds: 10800`, port `protocol: TCP` and `targetPort` = `port`,
 * `externalTrafficPolicy: Cluster` where the service is reachable from outside,
 * `internalTrafficPolicy: Cluster`, a LoadBalancer's `allocateLoadBalancerNodePorts:
 * true` and its ingress points' `ipMode: VIP`.
 *
 * The addresses and ports kube-apiserver's Service storage allocates are set in
 * `service_allocation.ts`.
 *
 * @module
 */
import type { Obj } from './fields.js';
import { child, ensure, isEmpty, items, setIfEmpty, setIfNil } from './fields.js';

/** Default ClientIP session affinity timeout: three hours. */
const CLIENT_IP_TIMEOUT_SECONDS = 10800;

/** Whether traffic can reach the service from outside the cluster. */
function externallyAccessible(spec: Obj): boolean {
  return (
    spec.type === 'LoadBalancer' ||
    spec.type === 'NodePort' ||
    (spec.type === 'ClusterIP' && Array.isArray(spec.externalIPs) && spec.externalIPs.length > 0)
  );
}

/** Defaults a Service in place. */
export function defaultService(obj: Obj): void {
  const spec = ensure(obj, 'spec');
  setIfEmpty(spec, 'sessionAffinity', 'None');
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP') {
    const clientIP = child(child(spec, 'sessionAffinityConfig') ?? {}, 'clientIP');
    if (clientIP?.timeoutSeconds === undefined || clientIP.timeoutSeconds === null) {
      spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: CLIENT_IP_TIMEOUT_SECONDS } };
    }
  }
  setIfEmpty(spec, 'type', 'ClusterIP');
  for (const port of items(spec, 'ports')) {
    setIfEmpty(port, 'protocol', 'TCP');
    if (isEmpty(port.targetPort) || port.targetPort === 0) port.targetPort = port.port;
  }
  if (externallyAccessible(spec)) setIfEmpty(spec, 'externalTrafficPolicy', 'Cluster');
  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP') {
    setIfNil(spec, 'internalTrafficPolicy', 'Cluster');
  }
  if (spec.type === 'LoadBalancer') {
    setIfNil(spec, 'allocateLoadBalancerNodePorts', true);
    const lb = child(child(obj, 'status') ?? {}, 'loadBalancer');
    for (const ingress of items(lb, 'ingress')) {
      if (!isEmpty(ingress.ip)) setIfNil(ingress, 'ipMode', 'VIP');
    }
  }
}
