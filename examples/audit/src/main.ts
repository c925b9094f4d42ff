/**
 * `npm start`: audits every resource of the cluster. Default: the in-memory API server
 * seeded with a few objects that break each rule and a CRD with one custom resource; the
 * audit syncs, prints its violations and summary, then the CRD is deleted and the audit
 * stops following it; it exits. `--kubeconfig [PATH]`: a real cluster; the summary is
 * printed every `--interval` seconds until Ctrl-C.
 */
import { clusterFlags, openCluster, runProgram } from 'kube-controller-kit';
import { Audit } from './audit.js';
import type { AuditSummary } from './audit.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

function print(s: AuditSummary): void {
  const kinds = Object.entries(s.resources);
  console.log(
    `summary: ${s.objects} objects of ${kinds.length} resources (${kinds.filter(([, m]) => m === 'metadata').length} metadata-only); violations: ${Object.entries(
      s.violations,
    )
      .map(([r, n]) => `${r}=${n}`)
      .join(' ')}`,
  );
}

await runProgram(
  {
    name: 'audit',
    summary:
      'Follows every resource the API server serves, built-in and custom, and records rule violations (required labels, :latest images, Secrets referenced across namespaces) as Events.',
    flags: {
      ...clusterFlags,
      label: {
        value: 'NAME',
        default: 'app.kubernetes.io/name',
        description: 'a label every namespaced object must carry',
      },
      interval: {
        value: 'SECONDS',
        default: '60',
        description: 'how often the summary is printed (real cluster)',
      },
    },
  },
  async ({ flags, signal, logger }) => {
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      logger,
      signal,
    });
    try {
      const server = cluster.server;
      const audit = new Audit({
        logger,
        requiredLabels: [flags.label ?? 'app.kubernetes.io/name'],
        onViolation: (v) => console.log(`violation ${v.rule} ${v.gvr} ${v.key}: ${v.message}`),
      });
      if (server === undefined) {
        const seconds = Number(flags.interval ?? '60');
        if (!(seconds > 0))
          throw new Error(`--interval "${flags.interval}" must be a positive number`);
        const timer = setInterval(() => print(audit.summary()), seconds * 1000);
        try {
          await audit.run(cluster.kubeConfig, signal, () => print(audit.summary()));
        } finally {
          clearInterval(timer);
        }
        return;
      }
      const crdRef = { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' };
      server.create('configmaps', { metadata: { name: 'unlabelled', namespace: 'default' } });
      server.create('pods', {
        metadata: {
          name: 'web',
          namespace: 'default',
          labels: { 'app.kubernetes.io/name': 'web' },
        },
        spec: { containers: [{ name: 'c', image: 'nginx:latest' }] },
      });
      server.create(crdRef, {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'backups.example.com' },
        spec: {
          group: 'example.com',
          scope: 'Namespaced',
          names: { plural: 'backups', singular: 'backup', kind: 'Backup', listKind: 'BackupList' },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
              },
            },
          ],
        },
      });
      server.create(
        { group: 'example.com', resource: 'backups' },
        {
          apiVersion: 'example.com/v1',
          kind: 'Backup',
          metadata: {
            name: 'nightly',
            namespace: 'default',
            labels: { 'app.kubernetes.io/name': 'db' },
          },
          spec: { credentials: { secretRef: { name: 's3', namespace: 'kube-system' } } },
        },
      );
      const stop = new AbortController();
      signal.addEventListener('abort', () => stop.abort(), { once: true });
      const wait = async (cond: () => boolean) => {
        while (!cond() && !stop.signal.aborted) await new Promise((r) => setTimeout(r, 5));
      };
      const running = audit.run(cluster.kubeConfig, stop.signal);
      try {
        await wait(
          () => audit.synced && audit.violations().some((v) => v.rule === 'cross-namespace-secret'),
        );
        print(audit.summary());
        server.delete(crdRef, 'backups.example.com');
        await wait(() => audit.summary().resources['backups.example.com/v1'] === undefined);
        console.log('✓ stopped following backups.example.com/v1 after its CRD was deleted');
        print(audit.summary());
        await wait(() => server.list('events', 'default').length >= 3);
        console.log(
          `events: ${server.list('events', 'default').length} AuditViolation event(s) in default`,
        );
      } finally {
        stop.abort();
        await running;
      }
    } finally {
      await cluster.close();
    }
  },
);
