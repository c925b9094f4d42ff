// Memory of the audit example (examples/audit) at 10k+ objects across many kinds: heap per
// watched object once every informer has synced, measured after GC. Three columns, same
// run, same in-memory server:
// - audit: metadata-only informers where the rules need only metadata (the example's way);
// - audit, all full: the same audit caching every object in full (what metadata-only saves);
// - raw lower bound: each kind's list fetched once and JSON.parse'd, nothing else kept.
// The budget the example states (examples/audit/README.md) is checked at the end: the
// process exits non-zero when the median heap per object of the audit is above it.
//
// Usage: node --expose-gc --import tsx bench/audit.bench.ts   (BENCH_N per kind, BENCH_RUNS)
import { Audit } from '../examples/audit/src/audit.js';
import { startTestApiServer } from '../packages/testing/src/index.js';
import { noopLogger } from '../src/util/logger.js';
import { fmt, heapUsedAfterGc, machineLoad, printTable, summarize } from './lib/report.js';

/** The stated budget: heap per watched object of the audit (metadata-only where possible). */
const BUDGET_BYTES = 2048;
const PER_KIND = Number(process.env.BENCH_N ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const NAMESPACES = Array.from({ length: 20 }, (_, i) => `ns-${i}`);
const CUSTOM = ['widgets', 'gadgets', 'gizmos', 'backups', 'snapshots', 'tunnels'];

const server = await startTestApiServer({ namespaces: NAMESPACES });
for (const plural of CUSTOM) {
  const kind = plural[0]!.toUpperCase() + plural.slice(1, -1);
  server.create(
    { group: 'apiextensions.k8s.io', resource: 'customresourcedefinitions' },
    {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: `${plural}.example.com` },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural, singular: plural.slice(0, -1), kind },
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
    },
  );
}
const meta = (i: number, prefix: string) => ({
  name: `${prefix}-${i}`,
  namespace: NAMESPACES[i % NAMESPACES.length]!,
  labels: i % 3 === 0 ? { tier: 'web' } : { 'app.kubernetes.io/name': `app-${i % 50}` },
  annotations: { 'example.com/owner': `team-${i % 9}` },
});
const pad = 'x'.repeat(512);
const kinds: [string | { group: string; resource: string }, (i: number) => object][] = [
  ['configmaps', (i) => ({ metadata: meta(i, 'cm'), data: { config: pad, n: String(i) } })],
  [
    'secrets',
    (i) => ({ metadata: meta(i, 's'), data: { token: Buffer.from(pad).toString('base64') } }),
  ],
  [
    'services',
    (i) => ({
      metadata: meta(i, 'svc'),
      spec: { ports: [{ port: 80 }], selector: { app: `a${i}` } },
    }),
  ],
  [
    'pods',
    (i) => ({
      metadata: meta(i, 'pod'),
      spec: {
        containers: [{ name: 'c', image: i % 10 === 0 ? 'nginx' : 'nginx:1.27', args: [pad] }],
      },
    }),
  ],
  [
    { group: 'apps', resource: 'deployments' },
    (i) => ({
      metadata: meta(i, 'd'),
      spec: {
        selector: { matchLabels: { app: `a${i}` } },
        template: {
          metadata: { labels: { app: `a${i}` } },
          spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] },
        },
      },
    }),
  ],
  ...CUSTOM.map(
    (plural) =>
      [
        { group: 'example.com', resource: plural },
        (i: number) => ({
          apiVersion: 'example.com/v1',
          kind: plural[0]!.toUpperCase() + plural.slice(1, -1),
          metadata: meta(i, plural),
          spec: {
            size: i,
            credentials: {
              secretRef: { name: 's', namespace: i % 25 === 0 ? 'other' : undefined },
            },
            blob: pad,
          },
        }),
      ] as [{ group: string; resource: string }, (i: number) => object],
  ),
];
for (const [ref, make] of kinds) {
  server.seed(
    ref,
    (function* () {
      for (let i = 0; i < PER_KIND; i++) yield make(i) as never;
    })(),
  );
}
const total = kinds.length * PER_KIND;
const kc = server.kubeConfig();

async function audit(
  metadataOnly: boolean,
): Promise<{ ms: number; perObject: number; objects: number }> {
  const before = heapUsedAfterGc();
  const t0 = performance.now();
  const ac = new AbortController();
  const a = new Audit({ logger: noopLogger, metadataOnly, recordEvents: false });
  let synced!: () => void;
  const ready = new Promise<void>((r) => (synced = r));
  const running = a.run(kc, ac.signal, synced);
  await ready;
  const ms = performance.now() - t0;
  const objects = a.summary().objects;
  const heap = heapUsedAfterGc() - before;
  ac.abort();
  await running;
  return { ms, perObject: heap / objects, objects };
}

/** client-node 1.4: one makeInformer per kind (full objects; no metadata-only informer there). */
async function clientNode(): Promise<{ ms: number; perObject: number; objects: number }> {
  const k8s = await import('@kubernetes/client-node');
  const before = heapUsedAfterGc();
  const t0 = performance.now();
  const objectApi = k8s.KubernetesObjectApi.makeApiClient(kc);
  const informers = kinds.map(([ref]) => {
    const r = typeof ref === 'string' ? { group: '', resource: ref } : ref;
    const apiVersion = r.group === '' ? 'v1' : `${r.group}/v1`;
    const path = r.group === '' ? `/api/v1/${r.resource}` : `/apis/${r.group}/v1/${r.resource}`;
    const kind =
      {
        configmaps: 'ConfigMap',
        secrets: 'Secret',
        services: 'Service',
        pods: 'Pod',
        deployments: 'Deployment',
      }[r.resource] ?? r.resource[0]!.toUpperCase() + r.resource.slice(1, -1);
    const informer = k8s.makeInformer(kc, path, () => objectApi.list(apiVersion, kind));
    informer.on('error', () => undefined);
    return informer;
  });
  await Promise.all(informers.map((i) => i.start()));
  const ms = performance.now() - t0;
  const objects = informers.reduce((n, i) => n + i.list().length, 0);
  const heap = heapUsedAfterGc() - before;
  await Promise.all(informers.map((i) => i.stop()));
  return { ms, perObject: heap / objects, objects };
}

async function raw(): Promise<{ ms: number; perObject: number; objects: number }> {
  const before = heapUsedAfterGc();
  const t0 = performance.now();
  const kept: unknown[] = [];
  for (const [ref] of kinds) {
    const r = typeof ref === 'string' ? { group: '', resource: ref } : ref;
    const path = r.group === '' ? `/api/v1/${r.resource}` : `/apis/${r.group}/v1/${r.resource}`;
    const res = await fetch(`${server.url}${path}`);
    kept.push(...(JSON.parse(await res.text()) as { items: unknown[] }).items);
  }
  const ms = performance.now() - t0;
  const heap = heapUsedAfterGc() - before;
  const objects = kept.length;
  kept.length = 0;
  return { ms, perObject: heap / objects, objects };
}

const results: [string, ReturnType<typeof summarize>, ReturnType<typeof summarize>, number][] = [];
for (const [name, fn] of [
  ['audit (metadata-only where enough)', () => audit(true)],
  ['audit, every object in full', () => audit(false)],
  ['client-node 1.4 makeInformer per kind', clientNode],
  ['raw lower bound: lists JSON.parse’d', raw],
] as const) {
  await fn(); // warm-up
  const samples = [];
  for (let i = 0; i < RUNS; i++) samples.push(await fn());
  results.push([
    name,
    summarize(samples.map((s) => s.ms)),
    summarize(samples.map((s) => s.perObject)),
    samples[0]!.objects,
  ]);
}
const base = results[3]![2].median;
printTable(
  `${total} objects of ${kinds.length} kinds (${PER_KIND} each) plus the server's own; heap per watched object after sync (${RUNS} runs; ${machineLoad()})`,
  ['implementation', 'objects', 'start → synced', 'heap/object', 'vs raw'],
  results.map(([name, ms, heap, objects]) => [
    name,
    String(objects),
    fmt(ms, 0, ' ms'),
    fmt(heap, 0, ' B'),
    `${(heap.median / base).toFixed(2)}×`,
  ]),
);
await server.close();
const measured = results[0]![2].median;
console.log(
  `budget: ${BUDGET_BYTES} B per watched object; measured median ${measured.toFixed(0)} B: ${measured <= BUDGET_BYTES ? 'within' : 'OVER'}`,
);
if (measured > BUDGET_BYTES) process.exitCode = 1;
