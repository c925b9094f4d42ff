/**
 * The seeded webhook chaos harness (issue #34, "Chaos for webhooks").
 *
 * The operator's admission webhooks, served by the kit's {@link WebhookServer} on
 * 127.0.0.1 behind a small TCP proxy, guard ConfigMaps of one namespace of the in-memory
 * API server, which calls them as kube-apiserver does (HTTPS, the caBundle checked,
 * `timeoutSeconds: 1`). Two objects' worth of policy: objects labelled `chaos-policy: fail`
 * go through a mutating and a validating webhook with `failurePolicy: Fail`, objects
 * labelled `ignore` through the same pair with `Ignore`. The mutating webhook records the
 * write it saw in an annotation; the validating one refuses a write whose `data.verdict` is
 * `deny` (deletes are always allowed).
 *
 * A seed fixes a schedule that interleaves a writer's puts and deletes (over HTTP, one at a
 * time) with webhook faults: the server **down** (stopped; the proxy's upstream refuses),
 * **slow** past the timeout (each handler waits 1.3 s), **flapping** (every other
 * connection reset by the proxy), and **certificate rotation**, published as kubelet
 * updates a Secret volume (the `..data` link swapped): a new leaf from the same CA
 * (reloaded at once, invisible to callers), or a new CA whose bundle the configurations
 * learn only at a later step (until then every call fails its TLS check). A ConfigMap
 * informer watches throughout and records every version it is given. After the faults are
 * lifted and the system is quiet, the checks:
 *
 * - nothing is stored that a webhook refused, or whose call failed under `Fail`: the write's
 *   id is in neither the server's objects nor anything the informer ever saw;
 * - nothing admitted is lost: every admitted write's resourceVersion reached the informer,
 *   and each object ends as its last admitted write left it;
 * - the policies hold: under `Fail` a write is admitted only after both webhooks answered
 *   (so its mutation is there); under `Ignore` a failed call never refuses; while the
 *   webhooks are healthy, `allow` is admitted and mutated, `deny` refused in the webhook's
 *   words;
 * - the informer's cache equals the server; the webhook server serves the last certificate
 *   published; no unhandled rejection or uncaught exception; nothing logged an error (but
 *   a cert read across a volume swap, counted: see the logger); everything stops in time.
 *
 * The schedule is a pure function of the seed (replay with CHAOS_SEED=<seed>
 * CHAOS_RUNS=1, or `npm run chaos -- --webhooks --seed <seed> --verbose`); the interleaving
 * with real sockets is not.
 *
 * @module
 */
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import type { AddressInfo, Server, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import type { V1ConfigMap } from '@kubernetes/client-node';
import { startTestApiServer } from '@kube-controller-kit/testing';
import type { TestApiServer } from '@kube-controller-kit/testing';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import { configMapsResource } from '../../src/client/builtins.js';
import { ApiError } from '../../src/client/errors.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { Serialized, UnstructuredObject } from '../../src/client/types.js';
import { errorMessage } from '../../src/util/errors.js';
import type { Logger } from '../../src/util/logger.js';
import {
  WebhookServer,
  allowed,
  denied,
  generateCertificateAuthority,
  patched,
} from '../../src/webhook/index.js';
import type { AdmissionRequest, CertificateAuthority } from '../../src/webhook/index.js';
import { mulberry32 } from '../support/random.js';

type ConfigMap = Serialized<V1ConfigMap>;

/** The two failure policies, by the label value that routes an object to them. */
export type PolicyLabel = 'fail' | 'ignore';

/** One step of a webhook chaos schedule. */
export type WebhookChaosStep =
  | {
      /** Create or replace an object (create when the writer believes it absent). */
      readonly kind: 'put';
      readonly name: string;
      readonly policy: PolicyLabel;
      /** What the validating webhook will answer for this write. */
      readonly verdict: 'allow' | 'deny';
    }
  | { readonly kind: 'delete'; readonly name: string; readonly policy: PolicyLabel }
  | { readonly kind: 'down' }
  | { readonly kind: 'up' }
  | { readonly kind: 'slow' }
  | { readonly kind: 'fast' }
  | { readonly kind: 'flap' }
  | { readonly kind: 'steady' }
  | { readonly kind: 'rotateLeaf' }
  | { readonly kind: 'rotateCA' }
  | { readonly kind: 'updateBundle' }
  | { readonly kind: 'settle' };

/** Options of {@link runWebhookSchedule}. */
export interface WebhookScheduleOptions {
  /** Steps of the seed's schedule before the faults are lifted. Default 24. */
  steps?: number;
  /** Plays this schedule instead of the seed's. */
  schedule?: readonly WebhookChaosStep[];
  /** Called with each step as it is played. */
  onStep?: (step: WebhookChaosStep, index: number) => void;
  /** Real time allowed for the informer to catch up after the last step. Default 10 000 ms. */
  quietTimeoutMs?: number;
  /**
   * Plants a bug in the harness's own webhook configuration, for the checker's own test:
   * `ignore-as-fail` installs the `ignore` pair with `Fail`. The run is expected to fail.
   */
  sabotage?: 'ignore-as-fail';
}

/** The outcome of one webhook schedule. */
export interface WebhookChaosResult {
  /** The seed. */
  seed: number;
  /** True when every check held. */
  ok: boolean;
  /** What failed, one line each. */
  failures: string[];
  /** The schedule played. */
  steps: WebhookChaosStep[];
  /** Real time of the run, ms. */
  durationMs: number;
  /** Steps by kind. */
  counts: Record<string, number>;
  /** What the writes came to. */
  observed: {
    admitted: number;
    denied: number;
    failedClosed: number;
    failedOpen: number;
    webhookCalls: number;
    /** Cert reads that straddled a Secret-volume swap (see the harness). */
    certReadRaces: number;
  };
}

/** The command that replays one seed. */
export function webhookReplayCommand(seed: number): string {
  return `npm run chaos -- --webhooks --seed ${seed} --verbose`;
}

/** One step as text. */
export function describeWebhookStep(step: WebhookChaosStep): string {
  switch (step.kind) {
    case 'put':
      return `put ${step.name} (${step.policy}) verdict ${step.verdict}`;
    case 'delete':
      return `delete ${step.name} (${step.policy})`;
    default:
      return step.kind;
  }
}

// ── Schedules ─────────────────────────────────────────────────────────────────────────

class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<V>(values: readonly V[]): V {
    return values[Math.floor(this.next() * values.length)] as V;
  }
}

const names: Record<PolicyLabel, readonly string[]> = {
  fail: ['fail-0', 'fail-1', 'fail-2'],
  ignore: ['ignore-0', 'ignore-1', 'ignore-2'],
};

/**
 * The schedule of a seed: a pure function of it. Writes throughout; each fault is switched
 * on and, later, off (a slow window holds at most two writes: each costs a real timeout);
 * every fault is lifted at the end, followed by healthy writes to every object and a settle.
 */
export function generateWebhookSchedule(
  seed: number,
  options: { steps?: number } = {},
): WebhookChaosStep[] {
  const rng = new Rng(seed);
  const total = options.steps ?? 24;
  const out: WebhookChaosStep[] = [];
  const write = (): WebhookChaosStep => {
    const policy: PolicyLabel = rng.chance(0.5) ? 'fail' : 'ignore';
    const name = rng.pick(names[policy]);
    if (rng.chance(0.15)) return { kind: 'delete', name, policy };
    return { kind: 'put', name, policy, verdict: rng.chance(0.3) ? 'deny' : 'allow' };
  };
  let down = false;
  let flapping = false;
  let caRotated = false;
  let slowUsed = false;
  while (out.length < total) {
    const r = rng.next();
    if (r < 0.65) {
      out.push(write());
    } else if (r < 0.72) {
      out.push({ kind: down ? 'up' : 'down' });
      down = !down;
    } else if (r < 0.79) {
      out.push({ kind: flapping ? 'steady' : 'flap' });
      flapping = !flapping;
    } else if (r < 0.84) {
      out.push({ kind: 'rotateLeaf' });
    } else if (r < 0.9) {
      out.push({ kind: caRotated ? 'updateBundle' : 'rotateCA' });
      caRotated = !caRotated;
    } else if (r < 0.95 && !slowUsed && !down) {
      slowUsed = true;
      out.push({ kind: 'slow' });
      for (let i = rng.int(1, 2); i > 0; i--) out.push(write());
      out.push({ kind: 'fast' });
    } else {
      out.push({ kind: 'settle' });
    }
  }
  if (down) out.push({ kind: 'up' });
  if (flapping) out.push({ kind: 'steady' });
  if (caRotated) out.push({ kind: 'updateBundle' });
  for (const policy of ['fail', 'ignore'] as const)
    for (const name of names[policy]) out.push({ kind: 'put', name, policy, verdict: 'allow' });
  out.push({ kind: 'settle' });
  return out;
}

/** Steps by kind. */
export function countWebhookSteps(steps: readonly WebhookChaosStep[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const s of steps) {
    const k = s.kind === 'put' ? `put ${s.verdict}` : s.kind;
    counts[k] = (counts[k] ?? 0) + 1;
  }
  return counts;
}

// ── The proxy in front of the webhook server ──────────────────────────────────────────

/**
 * A TCP proxy whose upstream can change (the webhook server gets a new port each start) and
 * which can reset every other connection (flapping).
 */
class WebhookProxy {
  readonly #server: Server;
  readonly #open = new Set<Socket>();
  #upstream = 0;
  #flapping = false;
  #connections = 0;
  port = 0;

  constructor() {
    this.#server = createServer((client) => {
      this.#connections++;
      if (this.#flapping && this.#connections % 2 === 0) {
        client.resetAndDestroy();
        return;
      }
      const upstream = connect(this.#upstream, '127.0.0.1');
      for (const s of [client, upstream]) {
        this.#open.add(s);
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
        s.on('close', () => {
          this.#open.delete(s);
          (s === client ? upstream : client).destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(0, '127.0.0.1', () => resolve());
    });
    this.port = (this.#server.address() as AddressInfo).port;
  }

  set upstream(port: number) {
    this.#upstream = port;
  }

  set flapping(on: boolean) {
    this.#flapping = on;
    if (on) for (const s of this.#open) s.destroy();
  }

  async close(): Promise<void> {
    for (const s of this.#open) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

// ── Running a schedule ────────────────────────────────────────────────────────────────

const namespace = 'hooks';
const policyLabel = 'chaos-policy';
const mutatedAnnotation = 'chaos/mutated';
/** How long a slow handler takes: past the configurations' `timeoutSeconds: 1`. */
const slowMs = 1300;

/** What the writer knows of one write. */
interface WriteRecord {
  readonly index: number;
  readonly id: string;
  readonly step: WebhookChaosStep & { kind: 'put' | 'delete' };
  /** The webhooks were up, fast, steady and trusted when it was sent. */
  readonly healthy: boolean;
  outcome: 'admitted' | 'denied' | 'failedClosed' | 'other';
  /** An admitted put's resourceVersion and whether its mutation is in the answer. */
  rv?: string;
  mutated?: boolean;
  error?: string;
}

interface Seen {
  readonly key: string;
  readonly rv: string | undefined;
  readonly write: string | undefined;
  readonly deleted: boolean;
}

/** Two CAs shared by every schedule of a process (RSA keys are slow to make). */
let sharedCAs: [CertificateAuthority, CertificateAuthority] | undefined;

function cas(): [CertificateAuthority, CertificateAuthority] {
  sharedCAs ??= [
    generateCertificateAuthority({ commonName: 'chaos-ca-a' }),
    generateCertificateAuthority({ commonName: 'chaos-ca-b' }),
  ];
  return sharedCAs;
}

function configurations(
  registrations: readonly { type: 'mutating' | 'validating'; name: string; path: string }[],
  policyOf: (name: string) => { label: PolicyLabel; failurePolicy: 'Fail' | 'Ignore' },
): UnstructuredObject[] {
  const hooks = (type: 'mutating' | 'validating'): Record<string, unknown>[] =>
    registrations
      .filter((r) => r.type === type)
      .map((r) => ({
        name: r.name,
        clientConfig: { url: `https://chaos.invalid${r.path}` },
        rules: [
          {
            operations: type === 'mutating' ? ['CREATE', 'UPDATE'] : ['CREATE', 'UPDATE', 'DELETE'],
            apiGroups: [''],
            apiVersions: ['v1'],
            resources: ['configmaps'],
          },
        ],
        failurePolicy: policyOf(r.name).failurePolicy,
        objectSelector: { matchLabels: { [policyLabel]: policyOf(r.name).label } },
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': namespace } },
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        timeoutSeconds: 1,
        ...(type === 'mutating' ? { reinvocationPolicy: 'Never' } : {}),
      }));
  return [
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'chaos-mutating' },
      webhooks: hooks('mutating'),
    },
    {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'chaos-validating' },
      webhooks: hooks('validating'),
    },
  ];
}

/** Resolves to the value, or to `timedOut` after `ms` of real time. */
async function within<V>(p: Promise<V>, ms: number, timedOut: V): Promise<V> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      p,
      new Promise<V>((resolve) => (timer = setTimeout(() => resolve(timedOut), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Plays the schedule of `seed` (see the module documentation) and checks it. Never throws
 * for a failed check: the result lists the failures. Everything it starts is stopped before
 * it resolves.
 */
export async function runWebhookSchedule(
  seed: number,
  options: WebhookScheduleOptions = {},
): Promise<WebhookChaosResult> {
  const started = performance.now();
  const steps =
    options.schedule !== undefined ? [...options.schedule] : generateWebhookSchedule(seed, options);
  const failures: string[] = [];
  const fail = (what: string): void => {
    if (failures.length < 40) failures.push(what);
  };
  const onUnhandled = (reason: unknown): void =>
    fail(`unhandled rejection: ${errorMessage(reason)}`);
  const onUncaught = (err: unknown): void => fail(`uncaught exception: ${errorMessage(err)}`);
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUncaught);

  // The cert watcher reads tls.crt and tls.key one after the other; a file event in the
  // middle of a Secret-volume swap (the new generation's directory appears, then `..data`
  // moves) can pair the old certificate with the new key. It logs that at error level (as
  // controller-runtime's does), keeps the last good pair and reads the new one at the next
  // event. Counted, not failed; the served certificate is checked at the end instead.
  let certReadRaces = 0;
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (message) => {
      if (/^certwatcher: .*the private key does not match the certificate$/.test(message))
        certReadRaces++;
      else fail(`error logged: ${message}`);
    },
  };
  const [caA, caB] = cas();
  let servingCA = caA;
  let trustedCA = caA;
  const certDir = await mkdtemp(join(tmpdir(), 'kck-webhook-chaos-'));
  // Published as kubelet updates a Secret volume: each generation in its own directory,
  // `..data` swapped to it in one rename, tls.crt and tls.key links through `..data`; so
  // the certificate and its key change together.
  let generation = 0;
  let published = '';
  const publish = async (ca: CertificateAuthority): Promise<void> => {
    const pair = ca.issue({ ipAddresses: ['127.0.0.1'] });
    published = pair.cert;
    const dir = `..gen-${++generation}`;
    await mkdir(join(certDir, dir));
    await writeFile(join(certDir, dir, 'tls.crt'), pair.cert);
    await writeFile(join(certDir, dir, 'tls.key'), pair.key, { mode: 0o600 });
    await symlink(dir, join(certDir, '..data_tmp'));
    await rename(join(certDir, '..data_tmp'), join(certDir, '..data'));
  };
  await publish(servingCA);
  await symlink('..data/tls.crt', join(certDir, 'tls.crt'));
  await symlink('..data/tls.key', join(certDir, 'tls.key'));

  // The webhooks: the same rules for both policies; a slow switch for the "slow" fault.
  let slow = false;
  let calls = 0;
  const handler =
    (type: 'mutating' | 'validating') => async (request: AdmissionRequest, signal: AbortSignal) => {
      calls++;
      if (slow) {
        try {
          await delay(slowMs, undefined, { signal });
        } catch {
          // the server is stopping: answer at once
        }
      }
      const object = (request.operation === 'DELETE' ? request.oldObject : request.object) as
        ConfigMap | undefined;
      const write = object?.data?.write ?? '';
      if (type === 'mutating') {
        return patched([
          {
            op: 'add',
            path: '/metadata/annotations',
            value: { ...object?.metadata?.annotations, [mutatedAnnotation]: write },
          },
        ]);
      }
      if (request.operation !== 'DELETE' && object?.data?.verdict === 'deny')
        return denied(`chaos: write ${write} is refused`);
      return allowed();
    };
  const webhookServer = new WebhookServer({ host: '127.0.0.1', port: 0, certDir, logger });
  for (const policy of ['fail', 'ignore'] as const) {
    for (const type of ['mutating', 'validating'] as const) {
      webhookServer.registerAdmission({
        type,
        name: `${type === 'mutating' ? 'm' : 'v'}-${policy}.chaos.example.com`,
        path: `/${type}-${policy}`,
        rules: [],
        handler: handler(type),
        failurePolicy: policy === 'fail' ? 'Fail' : 'Ignore',
        timeoutSeconds: 1,
      });
    }
  }
  const policyOf = (hook: string): { label: PolicyLabel; failurePolicy: 'Fail' | 'Ignore' } => {
    const label: PolicyLabel = hook.includes('-fail.') ? 'fail' : 'ignore';
    const failurePolicy =
      label === 'fail' || options.sabotage === 'ignore-as-fail' ? 'Fail' : 'Ignore';
    return { label, failurePolicy };
  };
  let serverStop: AbortController | undefined;
  let serverRun: Promise<void> | undefined;
  const proxy = new WebhookProxy();
  const startWebhooks = async (): Promise<void> => {
    serverStop = new AbortController();
    serverRun = webhookServer.start(serverStop.signal);
    serverRun.catch((err: unknown) => fail(`webhook server start failed: ${errorMessage(err)}`));
    await webhookServer.started();
    proxy.upstream = webhookServer.address?.port ?? 0;
  };
  const stopWebhooks = async (): Promise<void> => {
    serverStop?.abort();
    const stopped = await within(
      (serverRun ?? Promise.resolve()).then(
        () => true,
        () => true,
      ),
      5000,
      false,
    );
    if (!stopped) fail('the webhook server did not stop within 5 s');
    serverStop = undefined;
    serverRun = undefined;
  };

  const api: TestApiServer = await startTestApiServer({ namespaces: [namespace] });
  const install = (): void =>
    api.installWebhooks({
      configurations: configurations(webhookServer.admissionWebhooks(), policyOf),
      baseUrl: `https://127.0.0.1:${proxy.port}`,
      caBundle: trustedCA.caBundle,
    });
  const kc = api.kubeConfig();
  const client = new ResourceClient(kc, configMapsResource, { namespace });
  const watchClient = new ResourceClient(kc, configMapsResource, { namespace });

  // The watching informer records every version it is given.
  const seen: Seen[] = [];
  const record = (obj: ConfigMap, deleted: boolean): void => {
    seen.push({
      key: obj.metadata?.name ?? '',
      rv: obj.metadata?.resourceVersion,
      write: obj.data?.write,
      deleted,
    });
  };
  const informer = new SharedIndexInformer<ConfigMap>(listWatchFromClient(watchClient), {
    name: 'hooks-configmaps',
    logger,
    watchList: false,
    backoff: { durationMs: 20, factor: 2, capMs: 200, steps: 10 },
  });
  informer.addEventHandler({
    onAdd: (obj) => record(obj as ConfigMap, false),
    onUpdate: (_old, obj) => record(obj as ConfigMap, false),
    onDelete: (obj) => {
      const o = ('obj' in obj ? (obj as { obj: unknown }).obj : obj) as ConfigMap;
      record(o, true);
    },
  });
  const stopInformer = new AbortController();
  const informerRun = informer.run(stopInformer.signal);
  informerRun.catch((err: unknown) => fail(`informer run rejected: ${errorMessage(err)}`));

  const writes: WriteRecord[] = [];
  const exists = new Set<string>();
  let up = true;
  let flapping = false;
  const healthy = (): boolean => up && !slow && !flapping && servingCA === trustedCA;

  const classify = (err: unknown): { outcome: WriteRecord['outcome']; error: string } => {
    const message = errorMessage(err);
    if (err instanceof ApiError && err.code === 500 && message.includes('failed calling webhook'))
      return { outcome: 'failedClosed', error: message };
    if (err instanceof ApiError && message.includes('denied the request'))
      return { outcome: 'denied', error: message };
    return { outcome: 'other', error: message };
  };

  const playWrite = async (
    step: WebhookChaosStep & { kind: 'put' | 'delete' },
    index: number,
  ): Promise<void> => {
    const id = `w${index}`;
    const w: WriteRecord = { index, id, step, healthy: healthy(), outcome: 'other' };
    writes.push(w);
    try {
      if (step.kind === 'delete') {
        if (!exists.has(step.name)) {
          w.outcome = 'admitted';
          w.error = 'skipped: absent';
          return;
        }
        await client.delete(step.name);
        exists.delete(step.name);
        w.outcome = 'admitted';
        return;
      }
      const body: ConfigMap = {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: step.name, namespace, labels: { [policyLabel]: step.policy } },
        data: { write: id, verdict: step.verdict },
      };
      const stored = exists.has(step.name) ? await client.update(body) : await client.create(body);
      exists.add(step.name);
      w.outcome = 'admitted';
      const rv = stored.metadata?.resourceVersion;
      if (rv !== undefined) w.rv = rv;
      w.mutated = stored.metadata?.annotations?.[mutatedAnnotation] === id;
    } catch (err) {
      const c = classify(err);
      w.outcome = c.outcome;
      w.error = c.error;
    }
  };

  const quiet = async (timeoutMs: number): Promise<string[]> => {
    const deadline = performance.now() + timeoutMs;
    let diff = divergence();
    while (diff.length > 0 && performance.now() < deadline) {
      await delay(5);
      diff = divergence();
    }
    return diff;
  };
  const divergence = (): string[] => {
    const out: string[] = [];
    if (!informer.hasSynced()) out.push('informer not synced');
    const server = new Map(
      api.list<ConfigMap>('configmaps', namespace).map((o) => [o.metadata?.name ?? '', o]),
    );
    const cache = new Map(
      informer
        .getIndexer()
        .list()
        .map((o) => [o.metadata?.name ?? '', o]),
    );
    for (const [k, o] of server)
      if (cache.get(k)?.metadata?.resourceVersion !== o.metadata?.resourceVersion)
        out.push(
          `informer cache: ${k} at rv ${cache.get(k)?.metadata?.resourceVersion ?? 'none'}, server ${o.metadata?.resourceVersion}`,
        );
    for (const k of cache.keys())
      if (!server.has(k)) out.push(`informer cache: holds ${k}, the server does not`);
    return out;
  };

  let setupOk = true;
  try {
    await proxy.listen();
    await startWebhooks();
    install();
  } catch (err) {
    setupOk = false;
    fail(`setup: ${errorMessage(err)}`);
  }
  try {
    for (let i = 0; setupOk && i < steps.length; i++) {
      const step = steps[i]!;
      options.onStep?.(step, i);
      switch (step.kind) {
        case 'put':
        case 'delete':
          await playWrite(step, i);
          break;
        case 'down':
          up = false;
          await stopWebhooks();
          break;
        case 'up':
          await startWebhooks();
          up = true;
          break;
        case 'slow':
          slow = true;
          break;
        case 'fast':
          slow = false;
          break;
        case 'flap':
          flapping = true;
          proxy.flapping = true;
          break;
        case 'steady':
          flapping = false;
          proxy.flapping = false;
          break;
        case 'rotateLeaf':
        case 'rotateCA': {
          if (step.kind === 'rotateCA') servingCA = servingCA === caA ? caB : caA;
          await publish(servingCA);
          // Read at once instead of waiting for the file event or the 10 s poll. A stopped
          // server reads the files when it starts again.
          if (up) await webhookServer.certWatcher?.readCertificate();
          break;
        }
        case 'updateBundle':
          trustedCA = servingCA;
          install();
          break;
        case 'settle': {
          const diff = await quiet(options.quietTimeoutMs ?? 10_000);
          if (diff.length > 0) fail(`settle step ${i}: not converged: ${diff[0] ?? ''}`);
          break;
        }
      }
    }
    const diff = await quiet(options.quietTimeoutMs ?? 10_000);
    for (const d of diff.slice(0, 10)) fail(`not converged: ${d}`);
    if (webhookServer.certWatcher?.current?.cert !== published)
      fail('the webhook server does not serve the last certificate published');
    check();
  } catch (err) {
    fail(`harness error: ${errorMessage(err)}`);
  } finally {
    stopInformer.abort();
    const stopped = await within(
      informerRun.then(
        () => true,
        () => true,
      ),
      5000,
      false,
    );
    if (!stopped) fail('the informer did not stop within 5 s');
    await stopWebhooks();
    client.transport.close();
    watchClient.transport.close();
    await proxy.close();
    await api.close();
    await rm(certDir, { recursive: true, force: true });
    await new Promise<void>((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUncaught);
  }

  function check(): void {
    const server = new Map(
      api.list<ConfigMap>('configmaps', namespace).map((o) => [o.metadata?.name ?? '', o]),
    );
    const seenWrites = new Set(seen.map((s) => s.write).filter((x) => x !== undefined));
    const storedWrites = new Set([...server.values()].map((o) => o.data?.write));
    const lastAdmitted = new Map<string, WriteRecord>();
    for (const w of writes) {
      const what = `${w.id} ${describeWebhookStep(w.step)}${w.healthy ? '' : ' (faulty)'}`;
      const policy = w.step.policy;
      if (w.outcome === 'other') {
        fail(`${what}: unexpected answer: ${w.error ?? ''}`);
        continue;
      }
      if (w.outcome !== 'admitted') {
        // Nothing refused is stored, or ever seen by a watcher.
        if (w.step.kind === 'put' && (seenWrites.has(w.id) || storedWrites.has(w.id)))
          fail(`${what}: refused (${w.outcome}) but stored: ${w.error ?? ''}`);
        if (w.outcome === 'failedClosed' && policy === 'ignore')
          fail(
            `${what}: failurePolicy Ignore refused a write because a call failed: ${w.error ?? ''}`,
          );
        if (w.healthy && w.outcome === 'failedClosed')
          fail(`${what}: a call failed while the webhooks were healthy: ${w.error ?? ''}`);
        if (w.step.kind === 'delete' && w.outcome === 'denied')
          fail(`${what}: a delete was denied, the webhook allows every delete`);
        if (w.step.kind === 'put' && w.outcome === 'denied' && w.step.verdict !== 'deny')
          fail(`${what}: an allowed write was denied: ${w.error ?? ''}`);
        if (w.healthy && w.step.kind === 'put' && w.step.verdict === 'allow')
          fail(`${what}: refused while healthy: ${w.error ?? ''}`);
        continue;
      }
      if (w.error === 'skipped: absent') continue;
      lastAdmitted.set(w.step.name, w);
      if (w.step.kind !== 'put') continue;
      if (w.step.verdict === 'deny' && (policy === 'fail' || w.healthy))
        fail(`${what}: admitted, but the webhook refuses it (failurePolicy ${policy})`);
      if (w.mutated !== true && (policy === 'fail' || w.healthy))
        fail(`${what}: admitted without its mutation (failurePolicy ${policy})`);
      // Every admitted write reached the watching informer.
      if (!seen.some((s) => s.key === w.step.name && s.rv === w.rv && s.write === w.id))
        fail(`${what}: admitted at rv ${w.rv ?? '?'} but the informer never saw it`);
    }
    // Nothing admitted is lost: each object is as its last admitted write left it.
    for (const policy of ['fail', 'ignore'] as const) {
      for (const name of names[policy]) {
        const last = lastAdmitted.get(name);
        const stored = server.get(name);
        if (last === undefined) {
          if (stored !== undefined)
            fail(`${name}: stored (${stored.data?.write}) but no write of it was admitted`);
        } else if (last.step.kind === 'delete') {
          if (stored !== undefined)
            fail(`${name}: its admitted delete ${last.id} is lost (still stored)`);
        } else if (stored?.data?.write !== last.id) {
          fail(
            `${name}: last admitted write ${last.id}, the server has ${stored?.data?.write ?? 'nothing'}`,
          );
        }
      }
    }
  }

  const observed = {
    admitted: 0,
    denied: 0,
    failedClosed: 0,
    failedOpen: 0,
    webhookCalls: calls,
    certReadRaces,
  };
  for (const w of writes) {
    if (w.error === 'skipped: absent') continue;
    if (w.outcome === 'admitted') {
      observed.admitted++;
      if (w.step.kind === 'put' && w.mutated !== true) observed.failedOpen++;
    } else if (w.outcome === 'denied') observed.denied++;
    else if (w.outcome === 'failedClosed') observed.failedClosed++;
  }
  return {
    seed,
    ok: failures.length === 0,
    failures,
    steps,
    durationMs: performance.now() - started,
    counts: countWebhookSteps(steps),
    observed,
  };
}
