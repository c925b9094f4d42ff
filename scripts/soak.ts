/**
 * `npm run soak -- --minutes 30`: a long run of informers and a controller under a steady
 * event stream with periodic relists, sampling the client's heap to show it stays flat.
 *
 * - The in-memory API server and the event writer run in a child process
 *   (scripts/soak-server.ts), so the heap measured here is the client's alone.
 * - This process runs two SharedIndexInformers (ConfigMaps, Pods) with extra indexers, a
 *   counting handler each, and a Controller (4 workers) whose trivial reconcile reads the
 *   ConfigMap and its Pods through the listers and indexes.
 * - The writer keeps `--rate` events/s (creates, updates, deletes) over `--objects` slots;
 *   every `--relist-seconds` every informer is forced to relist (alternately compaction +
 *   closed watches, and a 410 on the resumed watch); half-way between relists the watch
 *   sockets are destroyed (a resume, no relist).
 * - Every `--sample-seconds`: full GC, then heapUsed, RSS, events applied, queue depth and
 *   cache size. At the end: the table, the least-squares slope of heapUsed over the samples
 *   after the first (warm-up), events/s, relists and a verdict. Then the writer stops, the
 *   cache must converge to the server's objects, and everything shuts down (exit 0).
 * - Ctrl-C stops early and still prints the report.
 *
 * Verdict: "flat" when the slope is below {@link FLAT_THRESHOLD_PER_MINUTE} of the mean
 * heap per minute (0.25 %/min: about 120 KB/min for the default run's ~48 MB heap). Why
 * that bound:
 * - What must be caught is retention per event, per reconcile or per relist. Keeping even
 *   one 16-byte object per event grows the heap by ~940 KB/min at 1000 events/s (8× the
 *   bound), and keeping a cache copy per relist by megabytes a minute.
 * - What must not trip it is V8 warming up: functions reached for the first time get
 *   bytecode, feedback vectors, baseline then optimized code, which stays on the heap. A
 *   heap-snapshot diff of a run shows that growth is only code objects, and it measured
 *   50–150 KB/min in the first minutes, decaying. Sample-to-sample noise (buffers in
 *   flight, a relist's transient copies) is ±0.3 MB, too.
 * The report also gives the slope over the second half of the samples: in a long run the
 * warm-up is over there, and a real leak keeps its slope.
 *
 * @module
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { KubeConfig } from '@kubernetes/client-node';
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { splitMetaNamespaceKey } from '../src/cache/keys.js';
import type { ListerWatcher } from '../src/cache/listwatch.js';
import { listWatchFromClient } from '../src/cache/listwatch.js';
import { metaNamespaceIndexFunc } from '../src/cache/indexer.js';
import { SharedIndexInformer } from '../src/cache/shared_informer.js';
import { configMapsResource, podsResource } from '../src/client/builtins.js';
import { ResourceClient } from '../src/client/resource_client.js';
import { Transport } from '../src/client/transport.js';
import type { Serialized } from '../src/client/types.js';
import { Controller } from '../src/controller/index.js';
import { noopLogger } from '../src/util/logger.js';
import type { Logger } from '../src/util/logger.js';
import type { SoakCommand, SoakReply, SoakSnapshot, WriterStats } from './soak-server.js';

type ConfigMap = Serialized<V1ConfigMap>;
type Pod = Serialized<V1Pod>;

/** The verdict's bound: the heap slope as a fraction of the mean heap, per minute. */
export const FLAT_THRESHOLD_PER_MINUTE = 0.0025;

/** Options of {@link runSoak}. */
export interface SoakOptions {
  /** How long the writer runs, in minutes (default 30). */
  minutes: number;
  /** Events per second the writer aims for (default 1000). */
  rate: number;
  /** Seconds between heap samples (default 60). */
  sampleSeconds: number;
  /** Size of the working set: object slots, half ConfigMaps, half Pods (default 5000). */
  objects: number;
  /** Seconds between forced relists (default 60); watch drops half-way between. 0 disables. */
  relistSeconds: number;
  /** Reconcile workers (default 4). */
  workers: number;
  /** Stops the run early (the report is still produced). */
  signal?: AbortSignal;
  /** Progress lines (one per sample); default none. */
  progress?: (line: string) => void;
}

/** The default {@link SoakOptions}. */
export const defaultSoakOptions: Readonly<SoakOptions> = {
  minutes: 30,
  rate: 1000,
  sampleSeconds: 60,
  objects: 5000,
  relistSeconds: 60,
  workers: 4,
};

/** One heap sample. */
export interface SoakSample {
  /** Seconds since the writer started. */
  seconds: number;
  /** `process.memoryUsage().heapUsed` after a full GC, bytes. */
  heapUsed: number;
  /** Resident set size, bytes. */
  rss: number;
  /** Handler notifications (adds, updates, deletes) delivered so far. */
  eventsApplied: number;
  /** Events the server-side writer had written at the sample. */
  eventsWritten: number;
  /** Keys waiting in the controller's queue. */
  queueDepth: number;
  /** Objects in the two informers' caches. */
  cacheSize: number;
  /** Relists done so far (after the initial lists). */
  relists: number;
  /** Reconciles done so far. */
  reconciles: number;
}

/** The least-squares fit of heapUsed over time. */
export interface HeapSlope {
  /** Slope in KB (1024 bytes) per minute. */
  kbPerMinute: number;
  /** Standard error of the slope, KB/min (NaN with fewer than 3 points). */
  stderrKbPerMinute: number;
  /** Samples used (those after the first). */
  points: number;
  /** Mean heapUsed of those samples, bytes. */
  meanHeapUsed: number;
}

/** The result of {@link runSoak}. */
export interface SoakReport {
  /** The options the run used (without the signal and progress hook). */
  options: Omit<SoakOptions, 'signal' | 'progress'>;
  /** Whether Ctrl-C (the signal) ended the run before its time. */
  stoppedEarly: boolean;
  /** Seconds the writer ran. */
  durationSeconds: number;
  /** The samples, the first one being the warm-up. */
  samples: SoakSample[];
  /** The heap slope over the samples after the first, or undefined with fewer than 2. */
  slope: HeapSlope | undefined;
  /** The heap slope over the second half of the samples (warm-up long over), if ≥ 2. */
  lateSlope: HeapSlope | undefined;
  /** `flat`, `growing`, or `inconclusive` (fewer than 3 samples after the warm-up). */
  verdict: 'flat' | 'growing' | 'inconclusive';
  /** The verdict's bound in KB/min (see {@link FLAT_THRESHOLD_PER_MINUTE}), or undefined. */
  thresholdKbPerMinute: number | undefined;
  /** Events written per second by the server-side writer. */
  writtenPerSecond: number;
  /** Handler notifications per second in this process. */
  appliedPerSecond: number;
  /** The writer's counters at the end. */
  writer: WriterStats;
  /** Forced relists (fault injections) and relists the informers actually did. */
  relists: { forced: number; done: number; watchDrops: number };
  /** Reconciles done. */
  reconciles: number;
  /** Watch or list errors the informers reported (each forced relist causes some). */
  watchErrors: number;
  /** Errors logged by the library or the reconcile (should stay 0). */
  errorCount: number;
  /** The first 20 of those errors. */
  loggedErrors: string[];
  /** Whether both caches equalled the server's objects (key and resourceVersion) at the end. */
  converged: boolean;
  /** Milliseconds from stopping the writer until the caches matched the server. */
  convergeMs: number;
}

/** Parses the command line (`--minutes`, `--rate`, …, `--json`). */
export function parseSoakArgs(argv: readonly string[]): {
  options: Omit<SoakOptions, 'signal' | 'progress'>;
  json: boolean;
} {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      minutes: { type: 'string' },
      rate: { type: 'string' },
      'sample-seconds': { type: 'string' },
      objects: { type: 'string' },
      'relist-seconds': { type: 'string' },
      workers: { type: 'string' },
      json: { type: 'boolean' },
    },
    strict: true,
    allowPositionals: false,
  });
  const num = (name: string, raw: string | undefined, fallback: number, min: number): number => {
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < min) {
      throw new RangeError(`--${name} must be a number ≥ ${min}, got "${raw}"`);
    }
    return n;
  };
  const d = defaultSoakOptions;
  return {
    options: {
      minutes: num('minutes', values.minutes, d.minutes, 0),
      rate: Math.round(num('rate', values.rate, d.rate, 1)),
      sampleSeconds: num('sample-seconds', values['sample-seconds'], d.sampleSeconds, 0.1),
      objects: Math.round(num('objects', values.objects, d.objects, 2)),
      relistSeconds: num('relist-seconds', values['relist-seconds'], d.relistSeconds, 0),
      workers: Math.round(num('workers', values.workers, d.workers, 1)),
    },
    json: values.json === true,
  };
}

/** A full garbage collection, exposing `gc` at run time when node was started without it. */
function fullGc(): () => void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  const collect = gc;
  return () => {
    collect();
    collect();
  };
}

/** Least-squares slope of heapUsed (bytes) over time (minutes), in KB/min. */
export function heapSlope(samples: readonly SoakSample[]): HeapSlope | undefined {
  const pts = samples.slice(1);
  const n = pts.length;
  if (n < 2) return undefined;
  const xs = pts.map((s) => s.seconds / 60);
  const ys = pts.map((s) => s.heapUsed / 1024);
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    const dx = (xs[i] ?? 0) - mx;
    sxx += dx * dx;
    sxy += dx * ((ys[i] ?? 0) - my);
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  let sse = 0;
  for (let i = 0; i < n; i++) {
    const r = (ys[i] ?? 0) - (my + slope * ((xs[i] ?? 0) - mx));
    sse += r * r;
  }
  const stderr = n > 2 ? Math.sqrt(sse / (n - 2) / sxx) : Number.NaN;
  return { kbPerMinute: slope, stderrKbPerMinute: stderr, points: n, meanHeapUsed: my * 1024 };
}

/** A {@link SoakCommand} without its id, other than `snapshot`. */
type SoakRequest = SoakCommand extends infer C
  ? C extends { id: number; type: infer K }
    ? K extends 'snapshot'
      ? never
      : Omit<C, 'id'>
    : never
  : never;

/**
 * The verdict on a heap slope: `flat` below {@link FLAT_THRESHOLD_PER_MINUTE} of the mean
 * heap per minute, `growing` at or above it, `inconclusive` with fewer than 3 samples
 * after the warm-up.
 */
export function soakVerdict(slope: HeapSlope | undefined): {
  verdict: SoakReport['verdict'];
  thresholdKbPerMinute: number | undefined;
} {
  if (slope === undefined) return { verdict: 'inconclusive', thresholdKbPerMinute: undefined };
  const threshold = (slope.meanHeapUsed / 1024) * FLAT_THRESHOLD_PER_MINUTE;
  const verdict =
    slope.points < 3 ? 'inconclusive' : slope.kbPerMinute < threshold ? 'flat' : 'growing';
  return { verdict, thresholdKbPerMinute: threshold };
}

/** The IPC client of the server child process. */
class SoakServer {
  readonly #child: ChildProcess;
  readonly #pending = new Map<number, (reply: SoakReply) => void>();
  readonly #exited: Promise<void>;
  #nextId = 1;
  url = '';

  constructor() {
    const script = fileURLToPath(new URL('./soak-server.ts', import.meta.url));
    this.#child = fork(script, [], {
      // tsx resolved from this package, whatever the working directory.
      execArgv: ['--import', import.meta.resolve('tsx')],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    // A send after the child died surfaces as the command's rejection, not as a crash.
    this.#child.on('error', () => undefined);
    this.#child.on('message', (msg: SoakReply) => {
      if (msg.type === 'ready') return;
      const done = this.#pending.get(msg.id);
      this.#pending.delete(msg.id);
      done?.(msg);
    });
  }

  async ready(): Promise<void> {
    this.url = await new Promise<string>((resolve, reject) => {
      const onMessage = (msg: SoakReply): void => {
        if (msg.type !== 'ready') return;
        this.#child.off('message', onMessage);
        this.#child.off('exit', onExit);
        resolve(msg.url);
      };
      const onExit = (code: number | null): void =>
        reject(new Error(`the soak server exited before it was ready (code ${String(code)})`));
      this.#child.on('message', onMessage);
      this.#child.once('exit', onExit);
    });
  }

  async #call(cmd: SoakCommand): Promise<SoakReply> {
    return new Promise((resolve, reject) => {
      const onExit = (): void => reject(new Error(`the soak server exited during ${cmd.type}`));
      this.#child.once('exit', onExit);
      this.#pending.set(cmd.id, (reply) => {
        this.#child.off('exit', onExit);
        if (reply.type === 'error') reject(new Error(`soak server: ${reply.message}`));
        else resolve(reply);
      });
      if (!this.#child.connected) {
        onExit();
        return;
      }
      this.#child.send(cmd);
    });
  }

  async command(cmd: SoakRequest): Promise<WriterStats> {
    const reply = await this.#call({ ...cmd, id: this.#nextId++ });
    if (reply.type !== 'ok') throw new Error(`soak server: unexpected reply ${reply.type}`);
    return reply.stats;
  }

  async snapshot(): Promise<SoakSnapshot> {
    const reply = await this.#call({ id: this.#nextId++, type: 'snapshot' });
    if (reply.type !== 'snapshot') throw new Error(`soak server: unexpected reply ${reply.type}`);
    return reply.snapshot;
  }

  /** Asks the child to close and waits for it to exit (kills it after 10 s). */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    if (this.#child.connected) this.#child.send({ id: 0, type: 'close' });
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), 10_000);
    await this.#exited;
    clearTimeout(timer);
  }
}

/** Counts the relists of a ListerWatcher: lists without a continue token, streaming lists. */
function countingListerWatcher<T>(lw: ListerWatcher<T>, count: () => void): ListerWatcher<T> {
  return {
    list: (options, signal) => {
      if (options.continue === undefined || options.continue === '') count();
      return lw.list(options, signal);
    },
    watch: (options, signal) => {
      if (options.sendInitialEvents === true) count();
      return lw.watch(options, signal);
    },
  };
}

function keysMatch(
  cache: {
    listKeys(): string[];
    getByKey(
      key: string,
    ): { readonly metadata?: { readonly resourceVersion?: string } } | undefined;
  },
  server: Record<string, string>,
): boolean {
  const keys = cache.listKeys();
  if (keys.length !== Object.keys(server).length) return false;
  for (const key of keys) {
    if (server[key] !== cache.getByKey(key)?.metadata?.resourceVersion) return false;
  }
  return true;
}

const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/**
 * Runs the soak and resolves with its report once everything it started has stopped.
 */
export async function runSoak(input: Partial<SoakOptions> = {}): Promise<SoakReport> {
  const options: SoakOptions = { ...defaultSoakOptions, ...input };
  const { signal, progress } = options;
  const gc = fullGc();
  const loggedErrors: string[] = [];
  let errorCount = 0;
  // Keeps the first few errors only: a broken run must not grow the heap it measures.
  const recordError = (message: string): void => {
    if (errorCount++ < 20) loggedErrors.push(message);
  };
  const logger: Logger = { ...noopLogger, error: recordError };

  const server = new SoakServer();
  const stopInformers = new AbortController();
  const stopController = new AbortController();
  let transport: Transport | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const timers: NodeJS.Timeout[] = [];
  try {
    await server.ready();
    await server.command({ type: 'seed', objects: options.objects });

    const kc = new KubeConfig();
    kc.loadFromOptions({
      clusters: [{ name: 'soak', server: server.url, skipTLSVerify: true }],
      users: [{ name: 'soak' }],
      contexts: [{ name: 'soak', cluster: 'soak', user: 'soak' }],
      currentContext: 'soak',
    });
    transport = new Transport(kc, { logger });
    let lists = 0;
    let watchErrors = 0;
    const informerOptions = {
      logger,
      watchErrorHandler: () => void watchErrors++,
    };
    const cmInformer = new SharedIndexInformer<ConfigMap>(
      countingListerWatcher(
        listWatchFromClient(new ResourceClient(transport, configMapsResource)),
        () => void lists++,
      ),
      {
        ...informerOptions,
        name: 'configmaps',
        indexers: {
          namespace: metaNamespaceIndexFunc,
          app: (cm) => [cm.metadata?.labels?.['app'] ?? ''],
        },
      },
    );
    const podInformer = new SharedIndexInformer<Pod>(
      countingListerWatcher(
        listWatchFromClient(new ResourceClient(transport, podsResource)),
        () => void lists++,
      ),
      {
        ...informerOptions,
        name: 'pods',
        indexers: {
          namespace: metaNamespaceIndexFunc,
          owner: (pod) => {
            const owner = pod.metadata?.labels?.['owner'];
            return owner === undefined ? [] : [`${pod.metadata?.namespace ?? ''}/${owner}`];
          },
          node: (pod) => (pod.spec?.nodeName === undefined ? [] : [pod.spec.nodeName]),
        },
      },
    );
    let applied = 0;
    const counting = {
      onAdd: () => void applied++,
      onUpdate: () => void applied++,
      onDelete: () => void applied++,
    };
    cmInformer.addEventHandler(counting, { name: 'count configmaps' });
    podInformer.addEventHandler(counting, { name: 'count pods' });

    let reconciles = 0;
    const cmLister = cmInformer.lister();
    const podIndex = podInformer.getIndexer();
    const controller = new Controller({
      name: 'soak',
      workers: options.workers,
      logger,
      onError: (err) => recordError(`reconcile: ${String(err)}`),
      reconcile: (key) => {
        reconciles++;
        const [ns, name] = splitMetaNamespaceKey(key);
        const cm = cmLister.byNamespace(ns).tryGet(name);
        if (cm === undefined) return;
        let running = 0;
        for (const pod of podIndex.byIndex('owner', key)) {
          if (pod.status?.phase === 'Running') running++;
        }
        if (running > 1) recordError(`reconcile: ${key} has ${running} running pods`);
      },
    })
      .for(cmInformer)
      .watches(podInformer, (pod) => {
        const owner = pod.metadata?.labels?.['owner'];
        return owner === undefined ? [] : [`${pod.metadata?.namespace ?? ''}/${owner}`];
      });

    running = Promise.all([
      cmInformer.run(stopInformers.signal),
      podInformer.run(stopInformers.signal),
      controller.run(stopController.signal),
    ]);
    const cacheSize = (): number =>
      cmInformer.getStore().listKeys().length + podInformer.getStore().listKeys().length;
    while (!(cmInformer.hasSynced() && podInformer.hasSynced()) && !signal?.aborted) {
      await sleep(20, signal);
    }
    const initialLists = lists;

    let forced = 0;
    let drops = 0;
    const started = performance.now();
    let stats = await server.command({ type: 'start-writer', rate: options.rate });
    const samples: SoakSample[] = [];
    const sample = async (): Promise<void> => {
      stats = await server.command({ type: 'stats' });
      gc();
      const mem = process.memoryUsage();
      const s: SoakSample = {
        seconds: (performance.now() - started) / 1000,
        heapUsed: mem.heapUsed,
        rss: mem.rss,
        eventsApplied: applied,
        eventsWritten: stats.written,
        queueDepth: controller.queue.len(),
        cacheSize: cacheSize(),
        relists: lists - initialLists,
        reconciles,
      };
      samples.push(s);
      progress?.(formatSampleRow(s));
    };
    const failures: unknown[] = [];
    const guard = (p: Promise<unknown>): void => void p.catch((e: unknown) => failures.push(e));
    if (options.relistSeconds > 0) {
      const every = options.relistSeconds * 1000;
      timers.push(
        setInterval(() => {
          forced++;
          guard(server.command({ type: 'relist', mode: forced % 2 === 1 ? 'compact' : 'gone' }));
        }, every),
      );
      const half = setTimeout(() => {
        const drop = (): void => {
          drops++;
          guard(server.command({ type: 'drop-watches' }));
        };
        drop();
        timers.push(setInterval(drop, every));
      }, every / 2);
      timers.push(half);
    }

    const endAt = started + options.minutes * 60_000;
    let nextSample = started + options.sampleSeconds * 1000;
    while (!signal?.aborted && failures.length === 0) {
      const now = performance.now();
      if (now >= endAt) break;
      await sleep(Math.min(nextSample, endAt) - now, signal);
      if (signal?.aborted || performance.now() < nextSample) continue;
      await sample();
      nextSample += options.sampleSeconds * 1000;
    }
    const stoppedEarly = signal?.aborted === true;
    for (const t of timers) clearTimeout(t);
    timers.length = 0;
    if (failures.length > 0) throw failures[0];
    const writer = await server.command({ type: 'stop-writer' });
    const durationSeconds = (performance.now() - started) / 1000;
    const appliedAtStop = applied;

    // Convergence: the caches must come to equal the server's objects.
    const stopWriterAt = performance.now();
    const snapshot = await server.snapshot();
    let converged = false;
    const convergeDeadline = stopWriterAt + 30_000;
    while (performance.now() < convergeDeadline) {
      converged =
        keysMatch(cmInformer.getStore(), snapshot.configmaps) &&
        keysMatch(podInformer.getStore(), snapshot.pods);
      if (converged) break;
      await sleep(20);
    }
    const convergeMs = performance.now() - stopWriterAt;

    stopController.abort();
    stopInformers.abort();
    await running;
    const slope = heapSlope(samples);
    // heapSlope skips its first point: hand it the sample before the second half.
    const lateSlope = heapSlope(samples.slice(Math.max(0, Math.floor(samples.length / 2) - 1)));
    const { verdict, thresholdKbPerMinute: threshold } = soakVerdict(slope);
    return {
      options: {
        minutes: options.minutes,
        rate: options.rate,
        sampleSeconds: options.sampleSeconds,
        objects: options.objects,
        relistSeconds: options.relistSeconds,
        workers: options.workers,
      },
      stoppedEarly,
      durationSeconds,
      samples,
      slope,
      lateSlope,
      verdict,
      thresholdKbPerMinute: threshold,
      writtenPerSecond: writer.written / durationSeconds,
      appliedPerSecond: appliedAtStop / durationSeconds,
      writer,
      relists: { forced, done: lists - initialLists, watchDrops: drops },
      reconciles,
      watchErrors,
      errorCount,
      loggedErrors,
      converged,
      convergeMs,
    };
  } finally {
    for (const t of timers) clearTimeout(t);
    stopController.abort();
    stopInformers.abort();
    await running.catch(() => undefined);
    transport?.close();
    await server.close();
  }
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(2);

function formatSampleRow(s: SoakSample): string {
  return [
    (s.seconds / 60).toFixed(2).padStart(7),
    mb(s.heapUsed).padStart(9),
    mb(s.rss).padStart(8),
    String(s.eventsWritten).padStart(10),
    String(s.eventsApplied).padStart(10),
    String(s.queueDepth).padStart(6),
    String(s.cacheSize).padStart(6),
    String(s.relists).padStart(7),
  ].join(' ');
}

/** The table header matching the sample rows. */
const HEADER = [
  'min'.padStart(7),
  'heap MB'.padStart(9),
  'rss MB'.padStart(8),
  'written'.padStart(10),
  'applied'.padStart(10),
  'queue'.padStart(6),
  'cache'.padStart(6),
  'relists'.padStart(7),
].join(' ');

/** The report as text: the sample table, slope, rates, relists and verdict. */
export function formatSoakReport(r: SoakReport): string {
  const lines = [
    `soak: ${r.durationSeconds.toFixed(1)} s, target ${r.options.rate} events/s over ${r.options.objects} objects, relist every ${r.options.relistSeconds} s${r.stoppedEarly ? ' (stopped early)' : ''}`,
    HEADER,
    ...r.samples.map(formatSampleRow),
    '',
  ];
  if (r.slope !== undefined) {
    const perEvent = (r.slope.kbPerMinute * 1024) / (r.writtenPerSecond * 60);
    lines.push(
      `heap slope (samples 2..${r.samples.length}): ${r.slope.kbPerMinute.toFixed(1)} KB/min ± ${r.slope.stderrKbPerMinute.toFixed(1)} (${perEvent.toFixed(3)} bytes/event), mean heap ${mb(r.slope.meanHeapUsed)} MB`,
    );
    if (r.lateSlope !== undefined && r.lateSlope.points < r.slope.points) {
      lines.push(
        `heap slope over the second half (last ${r.lateSlope.points} samples): ${r.lateSlope.kbPerMinute.toFixed(1)} KB/min ± ${r.lateSlope.stderrKbPerMinute.toFixed(1)}`,
      );
    }
  } else {
    lines.push('heap slope: not enough samples (need 2 after the warm-up sample)');
  }
  lines.push(
    `events: ${r.writtenPerSecond.toFixed(0)}/s written, ${r.appliedPerSecond.toFixed(0)}/s applied (writer at most ${r.writer.maxBehind} behind, ${r.writer.skipped} skipped); ${r.writer.creates} creates, ${r.writer.updates} updates, ${r.writer.deletes} deletes; ${r.reconciles} reconciles`,
    `relists: ${r.relists.done} done for ${r.relists.forced} forced (2 informers), ${r.relists.watchDrops} watch drops, ${r.watchErrors} watch errors reported`,
    `cache: ${r.converged ? `converged to the server's ${r.writer.live} objects in ${r.convergeMs.toFixed(0)} ms` : `NOT converged after ${r.convergeMs.toFixed(0)} ms`}; logged errors: ${r.errorCount}`,
    r.thresholdKbPerMinute === undefined
      ? `verdict: ${r.verdict}`
      : `verdict: ${r.verdict} (flat means slope < ${r.thresholdKbPerMinute.toFixed(1)} KB/min = ${(FLAT_THRESHOLD_PER_MINUTE * 100).toFixed(2)}% of the mean heap per minute)`,
  );
  for (const e of r.loggedErrors.slice(0, 5)) lines.push(`  error: ${e}`);
  return lines.join('\n');
}

/** The command: parses arguments, runs, prints the report; Ctrl-C stops early. */
export async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parseSoakArgs>;
  try {
    parsed = parseSoakArgs(argv);
  } catch (err) {
    console.error(err instanceof Error ? err.message : String(err));
    console.error(
      'usage: npm run soak -- [--minutes 30] [--rate 1000] [--sample-seconds 60] [--objects 5000] [--relist-seconds 60] [--workers 4] [--json]',
    );
    return 2;
  }
  const stop = new AbortController();
  const onSigint = (): void => stop.abort();
  process.on('SIGINT', onSigint);
  try {
    if (!parsed.json) console.log(HEADER);
    const report = await runSoak({
      ...parsed.options,
      signal: stop.signal,
      ...(parsed.json ? {} : { progress: (line: string) => console.log(line) }),
    });
    console.log(parsed.json ? JSON.stringify(report, null, 2) : `\n${formatSoakReport(report)}`);
    return report.converged && report.errorCount === 0 ? 0 : 1;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (err: unknown) => {
      console.error(err instanceof Error ? (err.stack ?? err.message) : String(err));
      process.exitCode = 1;
    },
  );
}
