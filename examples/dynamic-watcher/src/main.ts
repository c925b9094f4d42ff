/**
 * `npm start`: prints every event of every custom resource of a group (default
 * `example.com`; `--group NAME` to change). On the in-memory server (default) it applies two
 * CRDs after starting, creates and deletes a few objects of them, and exits; with
 * `--kubeconfig [PATH]` it follows a real cluster until Ctrl-C.
 */
import {
  applyManifests,
  clusterFlags,
  openCluster,
  packageFile,
  readManifests,
  runProgram,
} from 'kube-controller-kit';
import { runDynamicWatcher } from './dynamic_watcher.js';
import type { DynamicEvent } from './dynamic_watcher.js';

/**
 * The in-memory API server, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no `--kubeconfig` is given, so the production image does without it.
 */
const startInMemory = async () =>
  (await import('@kube-controller-kit/testing')).startTestApiServer();

await runProgram(
  {
    name: 'dynamic-watcher',
    summary:
      'Follows every CustomResourceDefinition of one API group as it appears and disappears, printing each event.',
    flags: {
      ...clusterFlags,
      group: { value: 'NAME', default: 'example.com', description: 'the API group to follow' },
    },
  },
  async ({ flags, signal, logger }) => {
    const group = flags.group ?? 'example.com';
    const cluster = await openCluster({
      kubeconfig: flags.kubeconfig,
      inMemory: startInMemory,
      logger,
      signal,
    });
    try {
      const server = cluster.server;
      const stop = new AbortController();
      signal.addEventListener('abort', () => stop.abort(), { once: true });
      const seen: DynamicEvent[] = [];
      const waiters = new Set<() => void>();
      const running = runDynamicWatcher(cluster.kubeConfig, stop.signal, {
        group,
        logger,
        onEvent: (e) => {
          console.log(`${e.gvr}  ${e.type.padEnd(7)} ${e.key}`);
          seen.push(e);
          for (const w of waiters) w();
        },
      });
      if (server !== undefined) {
        // The in-memory story: the CRDs appear after the watcher started, then objects.
        const until = (cond: () => boolean) =>
          new Promise<void>((resolve) => {
            const check = () => {
              if (!cond() && !stop.signal.aborted) return;
              waiters.delete(check);
              resolve();
            };
            waiters.add(check);
            check();
          });
        const crds = await readManifests(packageFile(import.meta.url, 'crds.yaml'));
        await applyManifests(cluster.kubeConfig, crds, {
          fieldManager: 'dynamic-watcher',
          logger,
          signal,
        });
        console.log(`✓ applied ${crds.length} CRDs of ${group}`);
        await server.waitForWatch({ group: 'example.com', resource: 'widgets' }, 1, signal);
        await server.waitForWatch({ group: 'example.com', resource: 'gadgets' }, 1, signal);
        const widgets = { group: 'example.com', resource: 'widgets' };
        for (const name of ['small', 'large']) {
          server.create(widgets, {
            apiVersion: 'example.com/v1',
            kind: 'Widget',
            metadata: { name, namespace: 'default' },
            spec: { size: name === 'small' ? 1 : 10 },
          });
        }
        server.create(
          { group: 'example.com', resource: 'gadgets' },
          {
            apiVersion: 'example.com/v1',
            kind: 'Gadget',
            metadata: { name: 'blue' },
            spec: { color: 'blue' },
          },
        );
        server.delete(widgets, 'large', 'default');
        await until(() => seen.some((e) => e.type === 'deleted'));
        stop.abort();
      }
      await running;
    } finally {
      await cluster.close();
    }
  },
);
