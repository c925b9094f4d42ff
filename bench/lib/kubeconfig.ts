// The kubeconfig of a bench server: one cluster at `url`, an anonymous user.
import type { KubeConfig } from '@kubernetes/client-node';

/**
 * A KubeConfig pointing at `url`, loaded lazily with client-node: TLS verified against
 * `caPem` when given, else not verified.
 */
export async function kubeConfigFor(url: string, caPem?: string): Promise<KubeConfig> {
  const { KubeConfig } = await import('@kubernetes/client-node');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [
      caPem === undefined
        ? { name: 'c', server: url, skipTLSVerify: true }
        : { name: 'c', server: url, caData: Buffer.from(caPem).toString('base64') },
    ],
    users: [{ name: 'u' }],
    contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
    currentContext: 'x',
  });
  return kc;
}
