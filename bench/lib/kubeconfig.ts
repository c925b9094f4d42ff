// The kubeconfig of a bench server: one cluster at `url`, an anonymous user.
import type { KubeConfig } from '@kubernetes/client-node';

/** A KubeConfig pointing at `url` (TLS not verified), loaded lazily with client-node. */
export async function kubeConfigFor(url: string): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: url, skipTLSVerify: true }],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
