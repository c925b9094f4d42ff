/**
 * `npm start`: the fleet-sync operator. Without flags it runs a short story on in-memory API
 * servers — a hub and two members, a third member joining and one leaving while it runs —
 * and exits. With `--hub-kubeconfig FILE --member-kubeconfig-dir DIR` it runs against real
 * clusters until Ctrl-C: each kubeconfig file in DIR is one member, picked up and dropped as
 * files are added and removed.
 */
import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterFlags, openCluster, runProgram, UsageError, usage } from 'kube-controller-kit';
import type { Logger } from 'kube-controller-kit';
import { COPY_LABEL, STATUS_ANNOTATION, SYNC_LABEL, runFleetSync } from './fleet_sync.js';

/**
 * The in-memory API servers, from the development dependency `@kube-controller-kit/testing`:
 * imported only when no kubeconfig is given, so the production image does without them.
 */
const startInMemory = async (namespaces = ['default', 'apps']) =>
  (await import('@kube-controller-kit/testing')).startTestApiServer({ namespaces });

const spec = {
  name: 'fleet-sync',
  summary:
    'Copies the ConfigMaps labelled fleet.example.com/sync=true of a hub cluster into every member cluster.',
  flags: {
    'hub-kubeconfig': {
      value: 'FILE',
      description: 'the hub cluster (default: an in-memory API server and a demo)',
    },
    'member-kubeconfig-dir': {
      value: 'DIR',
      description: 'one kubeconfig file per member cluster, followed as files come and go',
    },
    'leader-elect': {
      description: 'run as one of several replicas: only the leader of the Lease works',
    },
    namespace: {
      value: 'NAME',
      description: 'namespace of the leader Lease (default: $POD_NAMESPACE, else fleet-sync)',
    },
    'log-level': clusterFlags['log-level'],
  },
} as const;

await runProgram(spec, async ({ flags, signal, logger }) => {
  const hubPath = flags['hub-kubeconfig'];
  const memberDir = flags['member-kubeconfig-dir'];
  if ((hubPath === undefined) !== (memberDir === undefined)) {
    throw new UsageError(
      '--hub-kubeconfig and --member-kubeconfig-dir go together (neither: the in-memory demo)',
      usage(spec),
    );
  }
  if (hubPath !== undefined && memberDir !== undefined) {
    const hub = await openCluster({ kubeconfig: hubPath, logger, signal });
    const namespace = flags.namespace ?? process.env.POD_NAMESPACE ?? 'fleet-sync';
    await runFleetSync(hub.kubeConfig, memberDir, signal, {
      logger,
      healthProbeBindAddress: ':8081',
      metricsBindAddress: ':8080',
      ...(flags['leader-elect'] === true
        ? { leaderElection: { id: 'fleet-sync', namespace } }
        : {}),
    });
    return;
  }
  await demo(signal, logger);
});

/** The story on in-memory servers: every step waits for the operator, then says what it saw. */
async function demo(signal: AbortSignal, logger: Logger): Promise<void> {
  const hub = await openCluster({ inMemory: () => startInMemory(), logger, signal });
  const server = hub.server!;
  const members = new Map([
    ['member-a', await startInMemory()],
    ['member-b', await startInMemory(['default'])],
  ]);
  const dir = await mkdtemp(join(tmpdir(), 'fleet-members-'));
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  let running: Promise<void> | undefined;
  try {
    for (const [name, member] of members)
      await member.writeKubeconfig(join(dir, `${name}.kubeconfig`));
    type CM = {
      metadata?: { annotations?: Record<string, string>; labels?: Record<string, string> };
      data?: Record<string, string>;
    };
    const copyOf = (member: string, ns: string, name: string) =>
      members.get(member)?.get<CM>('configmaps', name, ns);
    const statusOf = (ns: string, name: string) =>
      server.get<CM>('configmaps', name, ns)?.metadata?.annotations?.[STATUS_ANNOTATION];
    const until = async (what: string, cond: () => boolean) => {
      const deadline = Date.now() + 30_000;
      while (!cond()) {
        signal.throwIfAborted();
        if (Date.now() > deadline) throw new Error(`the demo timed out waiting for: ${what}`);
        await new Promise((r) => setTimeout(r, 25));
      }
    };
    const configMap = (namespace: string, name: string, data: Record<string, string>) => ({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace, labels: { [SYNC_LABEL]: 'true' } },
      data,
    });
    server.create('configmaps', configMap('default', 'settings', { mode: 'blue' }));
    server.create('configmaps', configMap('apps', 'feature-flags', { beta: 'on' }));
    server.create('configmaps', {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'local-only', namespace: 'default' },
    });
    running = runFleetSync(hub.kubeConfig, dir, stop.signal, {
      logger,
      debounceMs: 200,
      onEvent: (e) =>
        console.log(
          e.type === 'status'
            ? `  status  ${e.namespace}/${e.name}: ${STATUS_ANNOTATION}=${e.members.join(',')}`
            : `  ${e.type.padEnd(7)} ${e.namespace}/${e.name} -> ${e.member}`,
        ),
    });
    await until(
      'the first copies',
      () =>
        copyOf('member-a', 'default', 'settings') !== undefined &&
        copyOf('member-b', 'default', 'settings') !== undefined &&
        copyOf('member-a', 'apps', 'feature-flags') !== undefined &&
        statusOf('default', 'settings') === 'member-a,member-b' &&
        statusOf('apps', 'feature-flags') === 'member-a',
    );
    console.log(
      `✓ default/settings copied to member-a, member-b; apps/feature-flags to member-a only (member-b has no namespace apps); the copies carry ${COPY_LABEL}=hub`,
    );

    const memberC = await startInMemory();
    members.set('member-c', memberC);
    await memberC.writeKubeconfig(join(dir, 'member-c.kubeconfig'));
    await until('member-c', () => statusOf('default', 'settings') === 'member-a,member-b,member-c');
    console.log('✓ member-c joined at runtime: default/settings copied to it');

    const settings = server.get<CM & { metadata: object }>('configmaps', 'settings', 'default')!;
    server.update('configmaps', { ...settings, data: { mode: 'green' } });
    await until('the update', () =>
      ['member-a', 'member-b', 'member-c'].every(
        (m) => copyOf(m, 'default', 'settings')?.data?.mode === 'green',
      ),
    );
    console.log('✓ default/settings changed on the hub: every member’s copy updated');

    await unlink(join(dir, 'member-b.kubeconfig'));
    await until('member-b gone', () => statusOf('default', 'settings') === 'member-a,member-c');
    console.log(
      `✓ member-b left at runtime: ${STATUS_ANNOTATION} of default/settings is now member-a,member-c`,
    );

    const flags = server.get<CM & { metadata: object }>('configmaps', 'feature-flags', 'apps')!;
    server.update('configmaps', { ...flags, metadata: { ...flags.metadata, labels: {} } });
    await until(
      'the unlabelled copy deleted',
      () =>
        copyOf('member-a', 'apps', 'feature-flags') === undefined &&
        statusOf('apps', 'feature-flags') === undefined,
    );
    console.log(
      '✓ apps/feature-flags lost its label: its copy deleted from member-a, its status annotation removed',
    );

    server.delete('configmaps', 'settings', 'default');
    await until(
      'the deleted copies gone',
      () =>
        copyOf('member-a', 'default', 'settings') === undefined &&
        copyOf('member-c', 'default', 'settings') === undefined,
    );
    console.log(
      '✓ default/settings deleted on the hub: its copies deleted from member-a and member-c',
    );
    console.log(
      `done: default/local-only (not labelled) was never copied: ${copyOf('member-a', 'default', 'local-only') === undefined}`,
    );
  } finally {
    stop.abort();
    await running;
    signal.removeEventListener('abort', onAbort);
    await Promise.all([...members.values()].map((m) => m.close()));
    await hub.close();
    await rm(dir, { recursive: true, force: true });
  }
}
