/**
 * `npm start`: runs the Application operator until Ctrl-C.
 * Default: the in-memory API server, with the CRD applied and one sample Application.
 * `--kubeconfig [PATH]`: a real cluster (apply crd.yaml and deploy/ there first; in a Pod,
 * `--kubeconfig` alone uses the service account). controller-runtime's flags:
 * `--leader-elect`, `--health-probe-bind-address`, `--metrics-bind-address`,
 * `--metrics-secure` with `--metrics-cert-path`; kubebuilder's
 * webhook flags `--webhook-cert-path`, `--webhook-cert-name`, `--webhook-cert-key`,
 * `--webhook-port`. On the in-memory server, without `--webhook-cert-path`, it makes its
 * own CA and serving certificate and installs its webhook configurations pointing at itself.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  clusterFlags,
  errorMessage,
  generateCertificateAuthority,
  openCluster,
  packageFile,
  runProgram,
  setDefaultControllerMetricsProvider,
  setDefaultMetricsProvider,
  setDefaultRestClientMetricsProvider,
  setDefaultWebhookMetricsProvider,
  WebhookServer,
  writeCertificateFiles,
} from 'kube-controller-kit';
import {
  PrometheusControllerMetricsProvider,
  PrometheusMetricsProvider,
  PrometheusWebhookMetricsProvider,
} from 'kube-controller-kit/metrics';
import { runOperator } from './operator.js';
import { installApplicationWebhooks, registerApplicationWebhooks } from './webhooks.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

await runProgram(
  {
    name: 'application-operator',
    summary:
      'Keeps a Deployment and a Service for every Application (example.com/v1), writes its status, and cleans up through a finalizer.',
    flags: {
      ...clusterFlags,
      namespace: { value: 'NAME', description: 'watch one namespace (default: all)' },
      'leader-elect': {
        description:
          'hold the Lease application-operator before reconciling (run several replicas)',
      },
      'leader-election-namespace': {
        value: 'NAME',
        description:
          'namespace of the Lease (default: the Pod namespace; default on the in-memory server)',
      },
      'health-probe-bind-address': {
        value: 'ADDR',
        default: ':8081',
        description: '/healthz and /readyz address; 0 disables',
      },
      'metrics-bind-address': {
        value: 'ADDR',
        default: ':8080',
        description: '/metrics address; 0 disables',
      },
      'metrics-secure': {
        description:
          'serve /metrics over HTTPS to callers allowed get on /metrics (TokenReview + SubjectAccessReview); self-signed certificate unless --metrics-cert-path',
      },
      'metrics-cert-path': {
        value: 'DIR',
        description:
          'directory holding tls.crt and tls.key for --metrics-secure (reloaded on change)',
      },
      'webhook-cert-path': {
        value: 'DIR',
        description:
          'directory of the webhook serving certificate (default: $TMPDIR/k8s-webhook-server/serving-certs; on the in-memory server, a generated one)',
      },
      'webhook-cert-name': {
        value: 'FILE',
        default: 'tls.crt',
        description: 'certificate file in --webhook-cert-path',
      },
      'webhook-cert-key': {
        value: 'FILE',
        default: 'tls.key',
        description: 'key file in --webhook-cert-path',
      },
      'webhook-port': {
        value: 'PORT',
        default: '9443',
        description: 'webhook server port; 0 picks a free one, -1 disables the webhooks',
      },
    },
  },
  async ({ flags, signal, logger }) => {
    const certPath = flags['metrics-cert-path'];
    if (flags['metrics-bind-address'] !== '0') {
      // /metrics serves prom-client's global registry: register the series Go users know
      // (workqueue_*, rest_client_*, controller_runtime_*) before any controller exists.
      const metrics = new PrometheusMetricsProvider();
      setDefaultMetricsProvider(metrics);
      setDefaultRestClientMetricsProvider(metrics);
      setDefaultControllerMetricsProvider(new PrometheusControllerMetricsProvider());
      setDefaultWebhookMetricsProvider(new PrometheusWebhookMetricsProvider());
    }
    // Found from src/main.ts under tsx and from dist/main.js after tsc alike.
    const crd = packageFile(import.meta.url, 'crd.yaml');
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      manifests: [crd],
      fieldManager: 'application-operator',
      logger,
      signal,
    });
    const webhookPort = Number(flags['webhook-port'] ?? '9443');
    // On the in-memory server, without a cert dir: a CA and a certificate for 127.0.0.1 of our own.
    let generatedCertDir: string | undefined;
    let caBundle: string | undefined;
    if (
      cluster.server !== undefined &&
      flags['webhook-cert-path'] === undefined &&
      webhookPort >= 0
    ) {
      generatedCertDir = await mkdtemp(join(tmpdir(), 'application-operator-certs-'));
      const ca = generateCertificateAuthority({ commonName: 'application-operator-dev-ca' });
      await writeCertificateFiles(
        generatedCertDir,
        ca.issue({ dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'] }),
        {
          certName: flags['webhook-cert-name'] ?? 'tls.crt',
          keyName: flags['webhook-cert-key'] ?? 'tls.key',
        },
      );
      caBundle = ca.caBundle;
    }
    const certDir = flags['webhook-cert-path'] ?? generatedCertDir;
    const webhookServer = new WebhookServer({
      port: webhookPort,
      ...(cluster.server !== undefined ? { host: '127.0.0.1' } : {}),
      ...(certDir !== undefined ? { certDir } : {}),
      certName: flags['webhook-cert-name'] ?? 'tls.crt',
      keyName: flags['webhook-cert-key'] ?? 'tls.key',
      logger,
    });
    registerApplicationWebhooks(webhookServer);
    if (cluster.server !== undefined && webhookPort >= 0) {
      // envtest's pattern: once serving, point the (in-memory) server at ourselves.
      void webhookServer
        .started()
        .then(async () => {
          const address = webhookServer.address;
          if (address === undefined) return;
          caBundle ??= Buffer.from(
            await readFile(join(webhookServer.certDir, flags['webhook-cert-name'] ?? 'tls.crt')),
          ).toString('base64');
          const installed = await installApplicationWebhooks(cluster.kubeConfig, webhookServer, {
            endpoint: { url: `https://${address.host}:${address.port}` },
            caBundle,
            logger,
          });
          logger.info(`webhooks serving at https://${address.host}:${address.port}`, {
            installed: installed.join(', '),
          });
        })
        .catch((err: unknown) => {
          logger.error(`installing the webhook configurations failed: ${errorMessage(err)}`);
        });
    }
    try {
      if (cluster.server !== undefined) {
        cluster.server.create(
          { group: 'example.com', resource: 'applications' },
          {
            apiVersion: 'example.com/v1',
            kind: 'Application',
            metadata: { name: 'sample', namespace: 'default' },
            spec: { image: 'nginx:1.27', replicas: 2, port: 8080 },
          },
        );
        logger.info('created Application default/sample; Ctrl-C to stop');
      }
      await runOperator(cluster.kubeConfig, signal, {
        logger,
        healthProbeBindAddress: flags['health-probe-bind-address'] ?? ':8081',
        metricsBindAddress: flags['metrics-bind-address'] ?? ':8080',
        ...(flags['metrics-secure'] === true
          ? { metricsSecure: certPath !== undefined ? { certPath } : {} }
          : {}),
        ...(flags['leader-elect'] === true
          ? {
              leaderElection: {
                id: 'application-operator',
                // On a real cluster the Manager finds the Pod's namespace itself.
                ...(flags['leader-election-namespace'] !== undefined
                  ? { namespace: flags['leader-election-namespace'] }
                  : cluster.server !== undefined
                    ? { namespace: 'default' }
                    : {}),
              },
            }
          : {}),
        ...(flags.namespace !== undefined ? { namespace: flags.namespace } : {}),
        webhookServer,
        onEvent: (e) => console.log(JSON.stringify(e)),
      });
    } finally {
      await cluster.close();
      if (generatedCertDir !== undefined)
        await rm(generatedCertDir, { recursive: true, force: true });
    }
  },
);
