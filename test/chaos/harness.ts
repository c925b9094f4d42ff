/**
 * The seeded chaos harness (issue #9, "Chaos suite").
 *
 * A seed fixes a schedule: a list of steps that interleave a writer's operations (create,
 * update, status update, relabel and delete of ConfigMaps and Pods, done in-process on the
 * server) with faults from `server.faults` (failed lists and watches with 410/429/500/503,
 * closed, destroyed, paused and poisoned watches, compaction — also while the watches are
 * down — server restarts, latency) and short real-time waits. {@link runSchedule} starts a
 * fresh in-memory API server, two informers (ConfigMaps of one namespace with paged lists;
 * Pods of every namespace through a label selector, with streaming lists, resync and an
 * index function that throws for one pod, `other/pod-5`, which must then be the only object
 * missing from that cache and its handlers, with the skip logged), a `watcher()` stream of
 * the same ConfigMaps reflected into an Indexer by a reader that stalls now and then (its
 * buffer of 4 fills, so the watch is paused), three
 * handlers on each (recording, slow, throwing) plus a recording one added a third of the
 * way through (it starts from the cache replay), and a controller; plays the schedule
 * (informers run on a {@link ScaledClock}); lifts every fault; waits (polling against a
 * deadline) until the system is quiet; and checks:
 *
 * - each informer's cache, and the watcher stream's, equals the server's objects (keys,
 *   resourceVersions, content);
 * - each handler's view (built only from its own notifications) equals the server's, so
 *   every deletion reached it (as the object or a tombstone); every notification is
 *   consistent with the view (add of an absent key, update whose old object is the last one
 *   seen, delete of a present key);
 * - the controller's last successful reconcile of every key saw the server's latest state
 *   (or the object's absence);
 * - the throwing handler's errors all reached `onHandlerError`; nothing else logged an
 *   error; no unhandled rejection or uncaught exception; everything stops in time.
 *
 * The schedule is a pure function of the seed; the interleaving with real sockets is not,
 * so a replay reruns the same schedule, not the same instruction order.
 *
 * @module
 */
import { isDeepStrictEqual } from 'node:util';
import { setTimeout as delay } from 'node:timers/promises';
import type { V1ConfigMap, V1Pod } from '@kubernetes/client-node';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import { Indexer, metaNamespaceIndexFunc } from '../../src/cache/indexer.js';
import { watcher } from '../../src/cache/watcher.js';
import { reflect } from '../../src/cache/watcher_combinators.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SelectorParseError } from '../../src/apimachinery/selector_error.js';
import type { DeepReadonly } from '../../src/cache/deep_readonly.js';
import type { ResourceEventHandler } from '../../src/cache/processor.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import type { ResourceEventHandlerRegistration } from '../../src/cache/shared_informer.js';
import { configMapsResource, podsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { KubeObject, Serialized } from '../../src/client/types.js';
import { Controller } from '../../src/controller/index.js';
import { startTestApiServer } from '../../packages/testing/src/index.js';
import type { TestApiServer, WatchSelector } from '../../packages/testing/src/index.js';
import type { Timer } from '../../src/util/clock.js';
import { RealClock } from '../../src/util/clock.js';
import { errorMessage } from '../../src/util/errors.js';
import type { Logger } from '../../src/util/logger.js';
import { mulberry32 } from '../support/random.js';

type ConfigMap = Serialized<V1ConfigMap>;
type Pod = Serialized<V1Pod>;

// ── PRNG ──────────────────────────────────────────────────────────────────────────────

/** Helpers over a PRNG. */
class Rng {
  readonly next: () => number;
  constructor(seed: number) {
    this.next = mulberry32(seed);
  }
  /** An integer in [lo, hi]. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<V>(values: readonly V[]): V {
    if (values.length === 0) throw new Error('pick from an empty list');
    return values[Math.floor(this.next() * values.length)] as V;
  }
  /** Picks a key of `weights` with probability proportional to its weight. */
  weighted<K extends string>(weights: Readonly<Record<K, number>>): K {
    const entries = Object.entries(weights) as [K, number][];
    let total = 0;
    for (const [, w] of entries) total += w;
    let r = this.next() * total;
    for (const [k, w] of entries) {
      r -= w;
      if (r < 0) return k;
    }
    return entries[entries.length - 1]![0];
  }
}

// ── Schedules ─────────────────────────────────────────────────────────────────────────

/** The two resources the writer changes. */
export type ChaosResource = 'configmaps' | 'pods';

/** A write the writer does in-process on the server. */
export type WriteStep =
  | {
      readonly kind: 'create';
      readonly resource: ChaosResource;
      readonly namespace: string;
      readonly name: string;
      /** Pods: whether the pod matches the pod informer's label selector. */
      readonly selected: boolean;
    }
  | {
      readonly kind: 'update' | 'status' | 'relabel';
      readonly resource: ChaosResource;
      readonly namespace: string;
      readonly name: string;
    }
  | {
      readonly kind: 'delete';
      readonly resource: ChaosResource;
      readonly namespace: string;
      readonly name: string;
    };

/** A fault injected through `server.faults`, or a pause of the schedule. */
export type FaultStep =
  | {
      readonly kind: 'failNext';
      readonly verb: 'list' | 'watch';
      readonly resource: ChaosResource | undefined;
      readonly code: 410 | 429 | 500 | 503;
      readonly count: number;
      readonly retryAfterSeconds: number | undefined;
    }
  | {
      readonly kind:
        | 'closeWatches'
        | 'destroyWatches'
        | 'pauseWatches'
        | 'resumeWatches'
        | 'writeMalformedLine'
        | 'writeTruncatedLineAndClose';
      readonly resource: ChaosResource | undefined;
    }
  | {
      readonly kind: 'closeWatchesAfter';
      readonly resource: ChaosResource | undefined;
      readonly events: number;
    }
  | { readonly kind: 'compact' }
  | {
      /** Destroy the watches, write while they are down, then compact: resumes get 410. */
      readonly kind: 'compactWhileDisconnected';
      readonly resource: ChaosResource | undefined;
      readonly writes: readonly WriteStep[];
    }
  | { readonly kind: 'restart'; readonly forgetHistory: boolean }
  | {
      readonly kind: 'addLatency';
      readonly id: number;
      readonly ms: number;
      readonly verb: 'list' | 'watch' | undefined;
    }
  | { readonly kind: 'removeLatency'; readonly id: number }
  | { readonly kind: 'wait'; readonly ms: number };

/**
 * Waits until the system has converged (as the final check defines it), up to the quiet
 * timeout. Never generated; for hand-written schedules that need a known starting point.
 */
export interface SettleStep {
  readonly kind: 'settle';
}

/** One step of a schedule. */
export type ChaosStep = WriteStep | FaultStep | SettleStep;

/** Options of {@link generateSchedule}. */
export interface ScheduleOptions {
  /** Number of top-level steps. Default 60. */
  steps?: number;
}

/** The namespaces objects live in; the ConfigMap informer sees only the first. */
export const chaosNamespaces = ['default', 'other'] as const;
/** The ConfigMap informer's namespace. */
export const configMapNamespace = 'default';
/** The Pod informer's label selector (`chaos=in`). */
export const podSelector = { key: 'chaos', value: 'in' } as const;
const namePool = 6;

/** What the generator knows of the server: which objects exist. */
class Model {
  readonly existing = new Set<string>();
  static key(resource: ChaosResource, namespace: string, name: string): string {
    return `${resource}:${namespace}/${name}`;
  }
}

function generateWrite(rng: Rng, model: Model): WriteStep {
  const resource = rng.pick<ChaosResource>(['configmaps', 'pods']);
  const namespace = rng.chance(0.75) ? 'default' : 'other';
  const prefix = resource === 'configmaps' ? 'cm' : 'pod';
  const name = `${prefix}-${rng.int(0, namePool - 1)}`;
  const key = Model.key(resource, namespace, name);
  if (!model.existing.has(key)) {
    model.existing.add(key);
    return { kind: 'create', resource, namespace, name, selected: rng.chance(0.8) };
  }
  const kind = rng.weighted({
    update: 4,
    status: resource === 'pods' ? 2 : 0,
    relabel: resource === 'pods' ? 2 : 0,
    delete: 3,
  });
  if (kind === 'delete') model.existing.delete(key);
  return { kind, resource, namespace, name };
}

const resourceOrAll = (rng: Rng): ChaosResource | undefined =>
  rng.weighted({ configmaps: 2, pods: 2, all: 1 }) === 'all'
    ? undefined
    : rng.chance(0.5)
      ? 'configmaps'
      : 'pods';

/**
 * The schedule of a seed: a pure function of it. Starts with a few creates, then mixes
 * bursts of writes, faults and short waits; latencies added are removed and paused watches
 * resumed later in the schedule (the harness also lifts every fault at the end).
 */
export function generateSchedule(seed: number, options: ScheduleOptions = {}): ChaosStep[] {
  const rng = new Rng(seed);
  const model = new Model();
  const total = options.steps ?? 60;
  const steps: ChaosStep[] = [];
  for (let i = 0; i < 6; i++) steps.push(generateWrite(rng, model));
  const pendingUndo: { at: number; step: FaultStep }[] = [];
  let latencyId = 0;
  for (let i = 0; steps.length < total; i++) {
    for (const u of pendingUndo.filter((p) => p.at <= i)) steps.push(u.step);
    for (let j = pendingUndo.length - 1; j >= 0; j--) {
      if (pendingUndo[j]!.at <= i) pendingUndo.splice(j, 1);
    }
    const what = rng.weighted({ write: 10, fault: 7, wait: 5 });
    if (what === 'write') {
      const n = rng.int(1, 4);
      for (let k = 0; k < n; k++) steps.push(generateWrite(rng, model));
      continue;
    }
    if (what === 'wait') {
      steps.push({ kind: 'wait', ms: rng.pick([0, 1, 2, 5, 10, 20]) });
      continue;
    }
    const fault = rng.weighted({
      failNext: 6,
      closeWatches: 2,
      destroyWatches: 2,
      closeWatchesAfter: 2,
      pauseWatches: 1,
      writeMalformedLine: 1,
      writeTruncatedLineAndClose: 1,
      compact: 1,
      compactWhileDisconnected: 2,
      restart: 1,
      addLatency: 1,
    });
    switch (fault) {
      case 'failNext': {
        const code = rng.pick([410, 429, 500, 503] as const);
        const retryAfter =
          code === 429 || code === 503 ? rng.pick([undefined, 0, 1] as const) : undefined;
        steps.push({
          kind: 'failNext',
          verb: rng.pick(['list', 'watch'] as const),
          resource: resourceOrAll(rng),
          code,
          count: rng.int(1, 3),
          retryAfterSeconds: retryAfter,
        });
        break;
      }
      case 'closeWatches':
      case 'destroyWatches':
      case 'writeMalformedLine':
      case 'writeTruncatedLineAndClose':
        steps.push({ kind: fault, resource: resourceOrAll(rng) });
        break;
      case 'pauseWatches': {
        const resource = resourceOrAll(rng);
        steps.push({ kind: 'pauseWatches', resource });
        pendingUndo.push({ at: i + rng.int(1, 6), step: { kind: 'resumeWatches', resource } });
        break;
      }
      case 'closeWatchesAfter':
        steps.push({ kind: fault, resource: resourceOrAll(rng), events: rng.int(0, 3) });
        break;
      case 'compact':
        steps.push({ kind: 'compact' });
        break;
      case 'compactWhileDisconnected': {
        const writes: WriteStep[] = [];
        const n = rng.int(1, 5);
        for (let k = 0; k < n; k++) writes.push(generateWrite(rng, model));
        steps.push({ kind: 'compactWhileDisconnected', resource: resourceOrAll(rng), writes });
        break;
      }
      case 'restart':
        steps.push({ kind: 'restart', forgetHistory: rng.chance(0.5) });
        break;
      case 'addLatency': {
        const id = ++latencyId;
        steps.push({
          kind: 'addLatency',
          id,
          ms: rng.pick([1, 5, 20]),
          verb: rng.pick([undefined, 'list', 'watch'] as const),
        });
        pendingUndo.push({ at: i + rng.int(1, 8), step: { kind: 'removeLatency', id } });
        break;
      }
    }
  }
  for (const u of pendingUndo) steps.push(u.step);
  return steps;
}

/** A one-line description of a step (for `--verbose` and failure reports). */
export function describeStep(step: ChaosStep): string {
  switch (step.kind) {
    case 'create':
      return `create ${step.resource} ${step.namespace}/${step.name}${step.resource === 'pods' && !step.selected ? ' (not selected)' : ''}`;
    case 'update':
    case 'status':
    case 'relabel':
    case 'delete':
      return `${step.kind} ${step.resource} ${step.namespace}/${step.name}`;
    case 'failNext':
      return `failNext ${step.count}× ${step.verb} ${step.resource ?? '*'} ${step.code}${step.retryAfterSeconds !== undefined ? ` Retry-After ${step.retryAfterSeconds}s` : ''}`;
    case 'closeWatchesAfter':
      return `closeWatchesAfter ${step.events} ${step.resource ?? '*'}`;
    case 'compact':
      return 'compact';
    case 'compactWhileDisconnected':
      return `compactWhileDisconnected ${step.resource ?? '*'} [${step.writes.map(describeStep).join('; ')}]`;
    case 'restart':
      return `restart${step.forgetHistory ? ' (forget history)' : ''}`;
    case 'addLatency':
      return `addLatency #${step.id} ${step.ms} ms ${step.verb ?? '*'}`;
    case 'removeLatency':
      return `removeLatency #${step.id}`;
    case 'wait':
      return `wait ${step.ms} ms`;
    case 'settle':
      return 'settle';
    default:
      return `${step.kind} ${step.resource ?? '*'}`;
  }
}

// ── Time ──────────────────────────────────────────────────────────────────────────────

/**
 * The real clock, running `scale` times faster: timers fire after `delay / scale` real
 * milliseconds and `now()` advances `scale` ms per real ms. The informers run on it, so
 * client-go's timing rules (Retry-After in whole seconds, the one-second "very short
 * watch", resync, backoff) keep their proportions while a schedule takes well under a
 * second of real time. The sockets and the server stay on real time.
 */
export class ScaledClock extends RealClock {
  readonly #scale: number;
  readonly #origin = Date.now();

  /** @param scale - how many clock milliseconds pass per real millisecond. */
  constructor(scale: number) {
    super();
    this.#scale = scale;
  }

  /** {@inheritDoc Clock.now} */
  override now(): number {
    return this.#origin + (Date.now() - this.#origin) * this.#scale;
  }

  /** {@inheritDoc Clock.setTimeout} (`sleep` is the real clock's, over this one.) */
  override setTimeout(callback: () => void, delayMs: number): Timer {
    return super.setTimeout(callback, delayMs / this.#scale);
  }
}

// ── Consumers ─────────────────────────────────────────────────────────────────────────

/** The consumer bugs the harness can plant, to prove its checks are not vacuous. */
export type ChaosSabotage =
  /** The recording handlers ignore onDelete (a handler that drops deletes). */
  | 'drop-deletes'
  /** The cache check compares the server with a snapshot of the cache taken mid-schedule. */
  | 'stale-cache'
  /** The controller's reconcile records nothing for keys it finds deleted. */
  | 'ignore-absent';

const rvOf = (obj: unknown): string =>
  (obj as { metadata?: { resourceVersion?: string } } | undefined)?.metadata?.resourceVersion ?? '';

function keyOf(obj: unknown): string {
  const m = (obj as { metadata?: { namespace?: string; name?: string } }).metadata;
  return m?.namespace ? `${m.namespace}/${m.name ?? ''}` : (m?.name ?? '');
}

/**
 * A handler's view of the world, built only from its notifications, with the sequence
 * rules checked on every call.
 */
class HandlerView<T extends KubeObject> {
  readonly objects = new Map<string, DeepReadonly<T>>();
  readonly violations: string[] = [];
  deletes = 0;
  tombstones = 0;
  readonly name: string;

  constructor(name: string) {
    this.name = name;
  }

  add(obj: DeepReadonly<T>): void {
    const key = keyOf(obj);
    if (this.objects.has(key)) {
      this.#violate(
        `onAdd of ${key} (rv ${rvOf(obj)}) while it already holds rv ${rvOf(this.objects.get(key))}`,
      );
    }
    this.objects.set(key, obj);
  }

  update(oldObj: DeepReadonly<T>, newObj: DeepReadonly<T>): void {
    const key = keyOf(newObj);
    const last = this.objects.get(key);
    if (last === undefined) {
      this.#violate(`onUpdate of ${key} (rv ${rvOf(newObj)}) it never saw added`);
    } else if (rvOf(last) !== rvOf(oldObj)) {
      this.#violate(
        `onUpdate of ${key}: old rv ${rvOf(oldObj)} is not the last it saw (${rvOf(last)})`,
      );
    }
    this.objects.set(key, newObj);
  }

  delete(obj: DeepReadonly<T> | DeletedFinalStateUnknown<DeepReadonly<T>>): void {
    this.deletes++;
    let key: string;
    if (obj instanceof DeletedFinalStateUnknown) {
      this.tombstones++;
      key = obj.key;
      const last = this.objects.get(key);
      if (last !== undefined && rvOf(last) !== rvOf(obj.obj)) {
        this.#violate(
          `tombstone of ${key} carries rv ${rvOf(obj.obj)}, not the last it saw (${rvOf(last)})`,
        );
      }
    } else {
      key = keyOf(obj);
    }
    if (!this.objects.has(key)) this.#violate(`onDelete of ${key} it does not hold`);
    this.objects.delete(key);
  }

  #violate(what: string): void {
    if (this.violations.length < 20) this.violations.push(`${this.name}: ${what}`);
  }
}

/** How a handler behaves besides keeping its view. */
type HandlerMode = 'record' | 'slow' | 'throw';

function makeHandler<T extends KubeObject>(
  view: HandlerView<T>,
  mode: HandlerMode,
  rng: Rng,
  sabotage: ChaosSabotage | undefined,
  thrown: { count: number },
): ResourceEventHandler<T> {
  const after = async (): Promise<void> => {
    if (mode === 'slow') {
      const r = rng.next();
      if (r < 0.3) await delay(rng.int(0, 2));
      else if (r < 0.6) await new Promise<void>((resolve) => setImmediate(resolve));
      else {
        const until = performance.now() + 0.2; // synchronous busy work
        while (performance.now() < until);
      }
    }
  };
  const maybeThrow = (): void | Promise<void> => {
    if (mode !== 'throw' || !rng.chance(0.3)) return;
    thrown.count++;
    if (rng.chance(0.5)) throw new Error(`chaos: ${view.name} throws`);
    return Promise.reject(new Error(`chaos: ${view.name} rejects`));
  };
  if (mode === 'slow') {
    return {
      onAdd: async (obj) => {
        await after();
        view.add(obj);
      },
      onUpdate: async (o, n) => {
        await after();
        view.update(o, n);
      },
      onDelete: async (obj) => {
        await after();
        view.delete(obj);
      },
    };
  }
  return {
    onAdd: (obj) => {
      view.add(obj);
      return maybeThrow();
    },
    onUpdate: (o, n) => {
      view.update(o, n);
      return maybeThrow();
    },
    onDelete: (obj) => {
      if (sabotage === 'drop-deletes' && mode === 'record') return;
      view.delete(obj);
      return maybeThrow();
    },
  };
}

// ── The run ───────────────────────────────────────────────────────────────────────────

/** Options of {@link runSchedule}. */
export interface RunScheduleOptions extends ScheduleOptions {
  /** Clock speed-up of the informers (see {@link ScaledClock}). Default 10. */
  timeScale?: number;
  /** Real time allowed for the system to go quiet after the faults stop. Default 10 000 ms. */
  quietTimeoutMs?: number;
  /** Real time a `settle` step may wait. Default 10 000 ms. */
  settleTimeoutMs?: number;
  /** Real time allowed for everything to stop. Default 5 000 ms. */
  stopTimeoutMs?: number;
  /** Called with each step as it is played. */
  onStep?: (step: ChaosStep, index: number) => void;
  /** Plants a consumer bug (see {@link ChaosSabotage}); the run is then expected to fail. */
  sabotage?: ChaosSabotage;
  /** Plays this schedule instead of the seed's (the seed still seeds the consumers). */
  schedule?: readonly ChaosStep[];
}

/** The outcome of one schedule. */
export interface ChaosResult {
  /** The seed. */
  seed: number;
  /** True when every check held. */
  ok: boolean;
  /** What failed, one line each (empty when ok). */
  failures: string[];
  /** The schedule played. */
  steps: ChaosStep[];
  /** Real time from start to the end of the checks, ms. */
  durationMs: number;
  /** Real time the system took to go quiet after the last step, ms. */
  quietMs: number;
  /** How many steps of each kind the schedule had (writes inside compactions included). */
  counts: Record<string, number>;
  /** Watch/list errors the reflectors reported, handler errors, tombstones delivered. */
  observed: { watchErrors: number; handlerErrors: number; tombstones: number; reconciles: number };
}

/** Counts steps by kind, including the writes nested in `compactWhileDisconnected`. */
export function countSteps(steps: readonly ChaosStep[]): Record<string, number> {
  const counts: Record<string, number> = {};
  const bump = (k: string): void => void (counts[k] = (counts[k] ?? 0) + 1);
  for (const s of steps) {
    bump(s.kind === 'failNext' ? `failNext ${s.verb} ${s.code}` : s.kind);
    if (s.kind === 'compactWhileDisconnected') for (const w of s.writes) bump(w.kind);
  }
  return counts;
}

interface InformerUnderTest<T extends KubeObject> {
  readonly informer: SharedIndexInformer<T>;
  readonly views: HandlerView<T>[];
  readonly registrations: ResourceEventHandlerRegistration[];
  readonly expected: () => Map<string, T>;
  readonly thrown: { count: number };
  readonly throwerName: string;
  /** Adds a recording handler while the informer runs (its view starts from the replay). */
  readonly addLateHandler: () => void;
}

function canonical(obj: unknown): unknown {
  return JSON.parse(JSON.stringify(obj)) as unknown;
}

/** Differences between `actual` and the server's objects, at most a few lines. */
function diffObjects(
  what: string,
  actual: ReadonlyMap<string, unknown>,
  expected: ReadonlyMap<string, unknown>,
  fullContent: boolean,
): string[] {
  const out: string[] = [];
  for (const [key, exp] of expected) {
    const got = actual.get(key);
    if (got === undefined) out.push(`${what}: missing ${key} (server rv ${rvOf(exp)})`);
    else if (rvOf(got) !== rvOf(exp))
      out.push(`${what}: ${key} has rv ${rvOf(got)}, server has ${rvOf(exp)}`);
    else if (fullContent && !isDeepStrictEqual(canonical(got), canonical(exp)))
      out.push(`${what}: ${key} differs from the server's object at the same rv ${rvOf(exp)}`);
  }
  for (const [key, got] of actual) {
    if (!expected.has(key))
      out.push(`${what}: holds ${key} (rv ${rvOf(got)}) which the server does not have`);
  }
  return out;
}

/** The pod the pods informer's index function throws on: never cached, never delivered. */
const unindexablePod = 'other/pod-5';

/** An index function that throws for {@link unindexablePod} (list, relist, stream and watch). */
function throwingPhaseIndex(p: Pod): string[] {
  if (keyOf(p) === unindexablePod) throw new Error('chaos: this index function fails here');
  return [p.status?.phase ?? ''];
}

function applyWrite(server: TestApiServer, w: WriteStep, counter: { n: number }): void {
  const n = ++counter.n;
  if (w.kind === 'create') {
    if (w.resource === 'configmaps') {
      server.create<ConfigMap>('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: w.name, namespace: w.namespace, labels: { chaos: 'in' } },
        data: { value: `v${n}` },
      });
    } else {
      server.create<Pod>('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: {
          name: w.name,
          namespace: w.namespace,
          labels: { [podSelector.key]: w.selected ? podSelector.value : 'out' },
        },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
        status: { phase: 'Pending' },
      });
    }
    return;
  }
  if (w.kind === 'delete') {
    server.delete(w.resource, w.name, w.namespace);
    return;
  }
  if (w.resource === 'configmaps') {
    const cm = server.get<ConfigMap>('configmaps', w.name, w.namespace);
    if (cm === undefined) throw new Error(`chaos writer: ${w.namespace}/${w.name} is missing`);
    cm.data = { ...cm.data, value: `v${n}` };
    server.update('configmaps', cm);
    return;
  }
  const pod = server.get<Pod>('pods', w.name, w.namespace);
  if (pod === undefined) throw new Error(`chaos writer: pod ${w.namespace}/${w.name} is missing`);
  const meta = pod.metadata ?? {};
  if (w.kind === 'status') {
    pod.status = {
      ...pod.status,
      phase: pod.status?.phase === 'Running' ? 'Pending' : 'Running',
      message: `m${n}`,
    };
  } else if (w.kind === 'relabel') {
    const inside = meta.labels?.[podSelector.key] === podSelector.value;
    meta.labels = { ...meta.labels, [podSelector.key]: inside ? 'out' : podSelector.value };
  } else {
    meta.annotations = { ...meta.annotations, 'chaos/n': String(n) };
  }
  pod.metadata = meta;
  server.update('pods', pod);
}

const selector = (resource: ChaosResource | undefined): WatchSelector | undefined =>
  resource === undefined ? undefined : { resource };

async function playStep(
  server: TestApiServer,
  step: ChaosStep,
  counter: { n: number },
  latencies: Map<number, () => void>,
  settle: () => Promise<void>,
): Promise<void> {
  const f = server.faults;
  switch (step.kind) {
    case 'create':
    case 'update':
    case 'status':
    case 'relabel':
    case 'delete':
      applyWrite(server, step, counter);
      return;
    case 'failNext':
      f.failNext(step.count, {
        verb: step.verb,
        ...(step.resource !== undefined ? { resource: step.resource } : {}),
        code: step.code,
        ...(step.retryAfterSeconds !== undefined
          ? { retryAfterSeconds: step.retryAfterSeconds }
          : {}),
      });
      return;
    case 'closeWatches':
      f.closeWatches(selector(step.resource));
      return;
    case 'destroyWatches':
      f.destroyWatches(selector(step.resource));
      return;
    case 'pauseWatches':
      f.pauseWatches(selector(step.resource));
      return;
    case 'resumeWatches':
      f.resumeWatches(selector(step.resource));
      return;
    case 'writeMalformedLine':
      f.writeMalformedLine(selector(step.resource));
      return;
    case 'writeTruncatedLineAndClose':
      f.writeTruncatedLineAndClose(selector(step.resource));
      return;
    case 'closeWatchesAfter':
      f.closeWatchesAfter(step.events, selector(step.resource));
      return;
    case 'compact':
      f.compact();
      return;
    case 'compactWhileDisconnected':
      f.destroyWatches(selector(step.resource));
      for (const w of step.writes) applyWrite(server, w, counter);
      f.compact();
      return;
    case 'restart':
      f.restart({ forgetHistory: step.forgetHistory });
      return;
    case 'addLatency':
      latencies.set(
        step.id,
        f.addLatency(step.ms, step.verb !== undefined ? { verb: step.verb } : {}),
      );
      return;
    case 'removeLatency':
      latencies.get(step.id)?.();
      latencies.delete(step.id);
      return;
    case 'wait':
      if (step.ms === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      else await delay(step.ms);
      return;
    case 'settle':
      await settle();
      return;
  }
}

/** Resolves to the value, or to `timedOut` after `ms` of real time (the timer is cleared). */
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
 * Plays the schedule of `seed` against a fresh server, informers, handlers and a
 * controller, then checks convergence (see the module documentation). Never throws for a
 * failed check: the result lists the failures. Everything it starts is stopped before it
 * resolves.
 */
export async function runSchedule(
  seed: number,
  options: RunScheduleOptions = {},
): Promise<ChaosResult> {
  const started = performance.now();
  const steps =
    options.schedule !== undefined ? [...options.schedule] : generateSchedule(seed, options);
  const failures: string[] = [];
  const fail = (what: string): void => {
    if (failures.length < 40) failures.push(what);
  };
  const sabotage = options.sabotage;
  const clock = new ScaledClock(options.timeScale ?? 10);
  const rng = new Rng(seed ^ 0x5eed5eed);

  const onUnhandled = (reason: unknown): void =>
    fail(`unhandled rejection: ${errorMessage(reason)}`);
  const onUncaught = (err: unknown): void => fail(`uncaught exception: ${errorMessage(err)}`);
  process.on('unhandledRejection', onUnhandled);
  process.on('uncaughtException', onUncaught);

  const handlerErrors = new Map<string, number>();
  let watchErrors = 0;
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: () => {},
    error: (message) => {
      if (/event handler on(Add|Update|Delete) failed/.test(message)) return;
      // The pods informer's index function throws for one object on purpose: it is skipped
      // and logged with its key, and nothing else may be.
      if (message.startsWith(`pods: object ${unindexablePod} could not be cached`)) return;
      fail(`error logged: ${message}`);
    },
  };

  // Server flavour from the seed: with the watch cache off, lists at "0" are paged at the
  // latest version (so pages can straddle writes and continue tokens can expire).
  const flavour = new Rng(seed ^ 0x7e57);
  const server = await startTestApiServer({
    namespaces: [...chaosNamespaces],
    bookmarkIntervalMs: flavour.pick([20, 50, 1000]),
    watchCache: flavour.chance(0.5),
  });
  const kc = server.kubeConfig();
  // The transport's own Retry-After sleeps run on the scaled clock too.
  const cmClient = new ResourceClient(kc, configMapsResource, {
    clock,
    namespace: configMapNamespace,
  });
  const podClient = new ResourceClient(kc, podsResource, { clock });
  // A malformed selector fails where it is written, with a typed error, before any request.
  try {
    listWatchFromClient(podClient, { labelSelector: 'app in (web' });
    fail('a malformed label selector was accepted');
  } catch (err) {
    if (!(err instanceof SelectorParseError))
      fail(`a malformed selector threw ${errorMessage(err)}, not SelectorParseError`);
  }
  const common = {
    logger,
    clock,
    random: mulberry32(seed ^ 0x0ddba11),
    backoff: { durationMs: 50, factor: 2, jitter: 0.5, capMs: 1000, steps: 10 },
    backoffResetMs: 2000,
    idleTimeoutMs: 3000,
    onHandlerError: (_err: unknown, ctx: { readonly handler: string }) =>
      void handlerErrors.set(ctx.handler, (handlerErrors.get(ctx.handler) ?? 0) + 1),
    watchErrorHandler: () => void watchErrors++,
  };

  function underTest<T extends KubeObject>(
    informer: SharedIndexInformer<T>,
    expected: () => Map<string, T>,
    resyncMs: number,
  ): InformerUnderTest<T> {
    const views: HandlerView<T>[] = [];
    const registrations: ResourceEventHandlerRegistration[] = [];
    const thrown = { count: 0 };
    let throwerName = '';
    for (const mode of ['record', 'slow', 'throw'] as const) {
      const name = `${informer.name} ${mode}`;
      const view = new HandlerView<T>(name);
      views.push(view);
      if (mode === 'throw') throwerName = name;
      registrations.push(
        informer.addEventHandler(makeHandler(view, mode, rng, sabotage, thrown), {
          name,
          ...(mode === 'slow' ? { resyncPeriodMs: resyncMs } : { resyncPeriodMs: 0 }),
        }),
      );
    }
    const addLateHandler = (): void => {
      const view = new HandlerView<T>(`${informer.name} late`);
      views.push(view);
      registrations.push(
        informer.addEventHandler(makeHandler(view, 'record', rng, undefined, thrown), {
          name: view.name,
        }),
      );
    };
    return { informer, views, registrations, expected, thrown, throwerName, addLateHandler };
  }

  const cms = underTest(
    new SharedIndexInformer<ConfigMap>(listWatchFromClient(cmClient), {
      ...common,
      name: 'configmaps',
      watchList: false,
      pageSize: 2,
    }),
    () =>
      new Map(server.list<ConfigMap>('configmaps', configMapNamespace).map((o) => [keyOf(o), o])),
    0,
  );
  const pods = underTest(
    new SharedIndexInformer<Pod>(
      listWatchFromClient(podClient, { labelSelector: `${podSelector.key}=${podSelector.value}` }),
      {
        ...common,
        name: 'pods',
        watchList: true,
        resyncPeriodMs: 1000,
        indexers: { namespace: metaNamespaceIndexFunc, byPhase: throwingPhaseIndex },
      },
    ),
    () =>
      new Map(
        server
          .list<Pod>('pods')
          .filter((o) => o.metadata?.labels?.[podSelector.key] === podSelector.value)
          .filter((o) => keyOf(o) !== unindexablePod)
          .map((o) => [keyOf(o), o]),
      ),
    1000,
  );

  // The controller: reconcile records what it saw; fails once for some states.
  const lastReconciled = new Map<string, string>();
  const failedOnce = new Set<string>();
  let reconciles = 0;
  const cmIndexer = cms.informer.getIndexer();
  const controller = new Controller({
    name: 'chaos',
    workers: 2,
    logger,
    onError: () => {},
    reconcile: async (key) => {
      reconciles++;
      const obj = cmIndexer.getByKey(key);
      const seen = obj === undefined ? 'absent' : rvOf(obj);
      const attempt = `${key}@${seen}`;
      if (Number(seen) % 4 === 1 && !failedOnce.has(attempt)) {
        failedOnce.add(attempt);
        throw new Error(`chaos: reconcile of ${attempt} fails once`);
      }
      await new Promise<void>((resolve) => setImmediate(resolve));
      if (sabotage === 'ignore-absent' && seen === 'absent') return;
      lastReconciled.set(key, seen);
    },
  }).for(cms.informer);

  const stopInformers = new AbortController();
  const stopController = new AbortController();

  // The stream consumer: watcher() reflected into an Indexer, read by a loop that now and
  // then stalls, so its bounded buffer (4 events) fills and the watch is paused.
  const streamRng = new Rng(seed ^ 0x57ea);
  const streamIndexer = new Indexer<ConfigMap>();
  const streamDone = (async (): Promise<void> => {
    const events = reflect(
      watcher<ConfigMap>(cmClient, {
        logger,
        clock,
        random: mulberry32(seed ^ 0x57ea),
        backoff: common.backoff,
        backoffResetMs: common.backoffResetMs,
        idleTimeoutMs: common.idleTimeoutMs,
        bufferSize: 4,
        pageSize: 3,
        watchList: streamRng.chance(0.5),
        signal: stopInformers.signal,
        onError: () => void watchErrors++,
      }),
      streamIndexer,
    );
    for await (const event of events) {
      void event;
      if (streamRng.chance(0.05)) await delay(streamRng.int(1, 20));
    }
  })();
  const informersDone = Promise.all([
    cms.informer.run(stopInformers.signal),
    pods.informer.run(stopInformers.signal),
  ]);
  const controllerDone = controller.run(stopController.signal);
  const runErrors: unknown[] = [];
  informersDone.catch((err: unknown) => runErrors.push(err));
  streamDone.catch((err: unknown) => runErrors.push(err));
  controllerDone.catch((err: unknown) => runErrors.push(err));

  const counter = { n: 0 };
  const latencies = new Map<number, () => void>();
  let staleCache: Map<string, ConfigMap> | undefined;
  let quietMs = 0;
  const quietTimeoutMs = options.quietTimeoutMs ?? 10_000;
  const everKeys = new Set<string>();
  const divergence = (): string[] => {
    const out: string[] = [];
    for (const t of [cms, pods] as InformerUnderTest<KubeObject>[]) {
      const expected = t.expected();
      if (!t.informer.hasSynced()) out.push(`${t.informer.name}: not synced`);
      const cache =
        sabotage === 'stale-cache' && t === (cms as InformerUnderTest<KubeObject>) && staleCache
          ? staleCache
          : new Map(
              t.informer
                .getIndexer()
                .list()
                .map((o) => [keyOf(o), o]),
            );
      out.push(...diffObjects(`${t.informer.name} cache`, cache, expected, true));
      for (const v of t.views)
        out.push(...diffObjects(`handler ${v.name}`, v.objects, expected, true));
      t.registrations.forEach((r, i) => {
        if (!r.hasSynced()) out.push(`handler ${t.views[i]?.name ?? i}: registration not synced`);
      });
    }
    const expectedCms = cms.expected();
    out.push(
      ...diffObjects(
        'watcher stream cache',
        new Map(streamIndexer.list().map((o) => [keyOf(o), o])),
        expectedCms,
        true,
      ),
    );
    for (const k of cms.views[0]!.objects.keys()) everKeys.add(k);
    for (const k of lastReconciled.keys()) everKeys.add(k);
    for (const [key, obj] of expectedCms) {
      everKeys.add(key);
      const seen = lastReconciled.get(key);
      if (seen !== rvOf(obj))
        out.push(
          `controller: last reconcile of ${key} saw ${seen ?? 'nothing'}, server has rv ${rvOf(obj)}`,
        );
    }
    for (const key of everKeys) {
      if (expectedCms.has(key)) continue;
      const seen = lastReconciled.get(key);
      if (seen !== undefined && seen !== 'absent')
        out.push(`controller: last reconcile of deleted ${key} saw rv ${seen}, not its absence`);
    }
    return out;
  };
  /** Polls `divergence` until it is empty or the quiet timeout passes; returns the last. */
  const awaitQuiet = async (timeoutMs: number): Promise<string[]> => {
    const deadline = performance.now() + timeoutMs;
    let diff = divergence();
    while (diff.length > 0 && performance.now() < deadline) {
      await delay(2);
      diff = divergence();
    }
    return diff;
  };
  const settle = async (): Promise<void> => {
    const diff = await awaitQuiet(options.settleTimeoutMs ?? 10_000);
    if (diff.length > 0) fail(`settle step: not converged: ${diff[0] ?? ''}`);
  };
  try {
    for (let i = 0; i < steps.length; i++) {
      const step = steps[i]!;
      options.onStep?.(step, i);
      await playStep(server, step, counter, latencies, settle);
      if (i === Math.floor(steps.length / 3)) {
        cms.addLateHandler();
        pods.addLateHandler();
      }
      if (sabotage === 'stale-cache' && i === Math.floor(steps.length / 2)) {
        staleCache = new Map(cmIndexer.list().map((o) => [keyOf(o), o as ConfigMap]));
      }
    }
    // Lift every fault, then wait for the system to go quiet.
    const quietStart = performance.now();
    server.faults.reset();
    server.faults.resumeWatches();
    latencies.clear();

    const diff = await awaitQuiet(quietTimeoutMs);
    quietMs = performance.now() - quietStart;
    for (const d of diff.slice(0, 20)) fail(`not converged after ${Math.round(quietMs)} ms: ${d}`);
    if (diff.length > 20) fail(`… and ${diff.length - 20} more differences`);
    // Give the last handler error a turn to reach the hook before counting.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const t of [cms, pods] as InformerUnderTest<KubeObject>[]) {
      for (const v of t.views) for (const msg of v.violations) fail(`sequence: ${msg}`);
      const hooked = handlerErrors.get(t.throwerName) ?? 0;
      if (hooked !== t.thrown.count)
        fail(`${t.throwerName}: threw ${t.thrown.count} times but onHandlerError saw ${hooked}`);
    }
  } catch (err) {
    fail(`harness error: ${errorMessage(err)}`);
  } finally {
    server.faults.reset();
    server.faults.resumeWatches();
    stopController.abort();
    stopInformers.abort();
    const stopped = await within(
      Promise.allSettled([controllerDone, informersDone, streamDone]).then(() => true),
      options.stopTimeoutMs ?? 5000,
      false,
    );
    if (!stopped) fail('informers, controller or watcher stream did not stop in time');
    cmClient.transport.close();
    podClient.transport.close();
    await server.close();
    for (const err of runErrors) fail(`run() rejected: ${errorMessage(err)}`);
    // Let rejections of this run surface while the listeners are still installed.
    await new Promise<void>((resolve) => setImmediate(resolve));
    process.off('unhandledRejection', onUnhandled);
    process.off('uncaughtException', onUncaught);
  }

  let tombstones = 0;
  for (const t of [cms, pods] as InformerUnderTest<KubeObject>[])
    tombstones += t.views[0]!.tombstones;
  let handlerErrorCount = 0;
  for (const n of handlerErrors.values()) handlerErrorCount += n;
  return {
    seed,
    ok: failures.length === 0,
    failures,
    steps,
    durationMs: performance.now() - started,
    quietMs,
    counts: countSteps(steps),
    observed: { watchErrors, handlerErrors: handlerErrorCount, tombstones, reconciles },
  };
}

/** The command that replays one seed. */
export function replayCommand(seed: number): string {
  return `npm run chaos -- --seed ${seed} --verbose`;
}
