// Conformance scenarios, written once and run against every ConformanceTarget: the
// in-memory API server (in-memory.test.ts) and a real apiextensions-apiserver on etcd
// (real.test.ts). Each scenario asserts the observable results a client relies on; the
// same assertions must hold on both servers.
//
// Both servers only get what the real apiextensions-apiserver serves: CustomResourceDefinitions
// and custom resources. Every scenario makes its own CRD in a group unique to the run, so
// a shared real server keeps no state between runs and scenarios do not see each other.
import { after, before, describe, test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { KubeConfig } from '@kubernetes/client-node';
import {
  ApiError,
  isAlreadyExists,
  isBadRequest,
  isConflict,
  isNotFound,
  isResourceExpired,
} from '../../src/client/errors.js';
import { customResourceDefinitionsResource } from '../../src/client/builtins.js';
import { ResourceClient } from '../../src/client/resource_client.js';
import type { ApplyConfiguration } from '../../src/client/resource_client.js';
import { Transport } from '../../src/client/transport.js';
import type {
  ApiResource,
  ListOptions,
  ObjectList,
  UnstructuredObject,
  WatchEvent,
} from '../../src/client/types.js';
import { DeletedFinalStateUnknown } from '../../src/cache/keys.js';
import type { ListerWatcher } from '../../src/cache/listwatch.js';
import { listWatchFromClient } from '../../src/cache/listwatch.js';
import { SharedIndexInformer } from '../../src/cache/shared_informer.js';
import { DynamicSharedInformerFactory } from '../../src/dynamic/dynamic_factory.js';
import { CRDInformerManager, crdSelector } from '../../src/dynamic/crd_informer_manager.js';
import { noopLogger } from '../../src/util/logger.js';
import { FINALIZER, runOperator } from '../../examples/application-operator/src/operator.js';
import type { OperatorEvent } from '../../examples/application-operator/src/operator.js';
import { applicationResource } from '../../examples/application-operator/src/generated/application_v1.js';
import { eventually as poll } from '../support/eventually.js';
import { applicationCrds } from '../examples/support.js';

/** A server the scenarios run against. */
export interface ConformanceTarget {
  /** `in-memory` or `real`: shown in test names. */
  readonly name: string;
  /** A client-node KubeConfig for the server (a fresh one per call). */
  kubeConfig(): KubeConfig;
  /**
   * The namespace namespaced custom resources go in. The real server has no namespaces
   * (NamespaceLifecycle is off, any name works); the in-memory server must have it.
   */
  readonly namespace: string;
  /**
   * etcd-style compaction of everything up to now. Resolves once lists of `resource` see
   * it: a continue token or an Exact list from before then fails with 410 Expired. (The
   * real watch cache learns of a compaction on its next poll, up to 15 s later.)
   */
  compact(resource: ApiResource<UnstructuredObject>): Promise<void>;
  /**
   * Makes every resourceVersion handed out so far too old to watch from (410 Expired).
   * `churn` makes one change; targets call it as often as they need to push the server's
   * watch window past the old versions (the real watch cache keeps the last 100 events
   * and at least 75 s of them, whatever etcd compacted), and both call it 101 times so
   * that the observable state ends up the same.
   */
  expireWatchHistory(churn: () => Promise<void>): Promise<void>;
  /** How long to wait for an asynchronous outcome before failing. */
  readonly patienceMs: number;
}

/** How many changes {@link ConformanceTarget.expireWatchHistory} makes. */
export const CHURN_EVENTS = 101;

/** The custom resource the scenarios use: a widget with a size and a phase. */
export interface Widget extends UnstructuredObject {
  /** Desired state. */
  spec?: { size?: number };
  /** Observed state. */
  status?: { phase?: string };
}

const suffix = `r${process.pid.toString(36)}${Date.now().toString(36)}`;
/** The API group of this run's CRDs. */
export const conformanceGroup = `${suffix}.conformance.kube-controller-kit.dev`;

const crdClient = (t: Transport) => new ResourceClient(t, customResourceDefinitionsResource);

/** A CRD of widgets (`<plural>.<group>`), namespaced, with a status subresource. */
export function widgetCrd(
  plural: string,
  kind: string,
  group = conformanceGroup,
  schema: Record<string, unknown> = {
    type: 'object',
    properties: {
      spec: { type: 'object', properties: { size: { type: 'integer' } } },
      status: { type: 'object', properties: { phase: { type: 'string' } } },
    },
  },
): UnstructuredObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${group}` },
    spec: {
      group,
      scope: 'Namespaced',
      names: { plural, singular: kind.toLowerCase(), kind, listKind: `${kind}List` },
      versions: [
        {
          name: 'v1',
          served: true,
          storage: true,
          schema: { openAPIV3Schema: schema },
          subresources: { status: {} },
        },
      ],
    },
  };
}

/** The resource a CRD made by {@link widgetCrd} serves. */
export function resourceOf(crd: UnstructuredObject): ApiResource<Widget> {
  const spec = crd.spec as {
    group: string;
    scope: string;
    names: { plural: string; kind: string };
    versions: { name: string; storage: boolean }[];
  };
  return {
    group: spec.group,
    version: spec.versions.find((v) => v.storage)?.name ?? 'v1',
    resource: spec.names.plural,
    kind: spec.names.kind,
    namespaced: spec.scope === 'Namespaced',
  };
}

/** Polls `cond` every 20 ms until it holds; fails naming `what` after `timeoutMs`. */
export function eventually(
  what: string,
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  return poll(what, cond, timeoutMs, 20);
}

/**
 * Creates a CRD (an existing one of the same name is kept) and resolves once it is
 * Established and its custom resources are served.
 */
export async function ensureCrd(
  transport: Transport,
  crd: UnstructuredObject,
  timeoutMs: number,
): Promise<ApiResource<Widget>> {
  const crds = crdClient(transport);
  try {
    await crds.create(crd as never);
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  const name = crd.metadata?.name ?? '';
  await eventually(
    `CRD ${name} Established`,
    async () =>
      ((await crds.get(name)).status?.conditions ?? []).some(
        (c) => c.type === 'Established' && c.status === 'True',
      ),
    timeoutMs,
  );
  const resource = resourceOf(crd);
  // The custom resource endpoint may lag Established by a moment: wait out its 404s.
  const client = new ResourceClient(transport, resource);
  await eventually(
    `${resource.resource}.${resource.group} served`,
    () =>
      client.list({ limit: 1 }).then(
        () => true,
        (err: unknown) => {
          if (isNotFound(err)) return false;
          throw err;
        },
      ),
    timeoutMs,
  );
  return resource;
}

/**
 * Reads a watch until `until` holds for the events so far, the server ends it, or a
 * timeout. `onOpen` is called once the server has accepted the watch.
 */
export async function collectWatch<T>(
  client: ResourceClient<T & UnstructuredObject>,
  options: ListOptions,
  until: (events: WatchEvent<T>[]) => boolean,
  timeoutMs: number,
  onOpen?: () => void,
): Promise<{ events: WatchEvent<T>[]; endedByServer: boolean }> {
  const ac = new AbortController();
  const timer = setTimeout(() => ac.abort(new Error('timeout')), timeoutMs);
  const events: WatchEvent<T>[] = [];
  try {
    const stream = await client.watch(options, { signal: ac.signal });
    onOpen?.();
    for await (const e of stream as AsyncIterable<WatchEvent<T>>) {
      events.push(e);
      if (until(events)) return { events, endedByServer: false };
    }
    return { events, endedByServer: true };
  } catch (err) {
    if (ac.signal.aborted) {
      assert.fail(
        `timed out after ${timeoutMs} ms reading a watch (${JSON.stringify(options)}); events so far: ${summary(events).join(', ')}`,
      );
    }
    throw err;
  } finally {
    clearTimeout(timer);
    ac.abort();
  }
}

/** `TYPE name` of each event (`BOOKMARK`, `ERROR <code> <reason>`). */
export function summary<T>(events: WatchEvent<T>[]): string[] {
  return events.map((e) => {
    if (e.type === 'ERROR') return `ERROR ${e.object.code ?? 0} ${e.object.reason ?? ''}`;
    if (e.type === 'BOOKMARK') return 'BOOKMARK';
    return `${e.type} ${(e.object as UnstructuredObject).metadata?.name ?? '?'}`;
  });
}

const currentRv = async (client: ResourceClient<Widget>): Promise<string> =>
  (await client.list({ limit: 1 })).metadata.resourceVersion ?? '';

const rvOf = (o: { metadata?: { resourceVersion?: string } } | undefined): bigint =>
  BigInt(o?.metadata?.resourceVersion ?? '0');

function widget(name: string, ns: string, resource: ApiResource<Widget>, size: number): Widget {
  return {
    apiVersion: `${resource.group}/${resource.version}`,
    kind: resource.kind,
    metadata: { name, namespace: ns },
    spec: { size },
  };
}

/**
 * A ListerWatcher in front of another that a test can cut: `hold()` parks the next list or
 * watch until `release()`, `disconnect()` ends the current watch as a server closing it
 * would. `calls` records every list and watch.
 */
export class GatedListerWatcher<T> implements ListerWatcher<T> {
  /** Every list and watch call, in order (after the gate). */
  readonly calls: { verb: 'list' | 'watch'; options: ListOptions }[] = [];
  /** Calls waiting at the gate. */
  readonly waiting: { verb: 'list' | 'watch'; options: ListOptions }[] = [];
  readonly #inner: ListerWatcher<T>;
  #gate: Promise<void> | undefined;
  #open: (() => void) | undefined;
  #cut: (() => void) | undefined;

  /** @param inner - the real list and watch. */
  constructor(inner: ListerWatcher<T>) {
    this.#inner = inner;
  }

  /** Park every following call until {@link GatedListerWatcher.release}. */
  hold(): void {
    this.#gate ??= new Promise((resolve) => (this.#open = resolve));
  }

  /** Let parked and later calls through. */
  release(): void {
    this.#open?.();
    this.#gate = undefined;
    this.#open = undefined;
  }

  /** End the current watch cleanly (as when the server closes it). */
  disconnect(): void {
    this.#cut?.();
  }

  async #pass(verb: 'list' | 'watch', options: ListOptions, signal: AbortSignal): Promise<void> {
    const gate = this.#gate;
    if (gate !== undefined) {
      const entry = { verb, options };
      this.waiting.push(entry);
      await new Promise<void>((resolve, reject) => {
        const onAbort = (): void => reject(signal.reason as Error);
        signal.addEventListener('abort', onAbort, { once: true });
        void gate.then(() => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        });
      });
      this.waiting.splice(this.waiting.indexOf(entry), 1);
    }
    this.calls.push({ verb, options: { ...options } });
  }

  /** @inheritdoc */
  async list(options: ListOptions, signal: AbortSignal): Promise<ObjectList<T>> {
    await this.#pass('list', options, signal);
    return this.#inner.list(options, signal);
  }

  /** @inheritdoc */
  async watch(options: ListOptions, signal: AbortSignal): Promise<AsyncIterable<WatchEvent<T>>> {
    await this.#pass('watch', options, signal);
    const ac = new AbortController();
    const onAbort = (): void => ac.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    let cut = false;
    let stream: AsyncIterable<WatchEvent<T>>;
    try {
      stream = await this.#inner.watch(options, ac.signal);
    } catch (err) {
      signal.removeEventListener('abort', onAbort);
      throw err;
    }
    this.#cut = () => {
      cut = true;
      ac.abort();
    };
    return (async function* () {
      try {
        for await (const e of stream) {
          if (cut) return;
          yield e;
        }
      } catch (err) {
        if (!cut) throw err;
      } finally {
        signal.removeEventListener('abort', onAbort);
        ac.abort();
      }
    })();
  }
}

interface Recorded {
  type: 'add' | 'update' | 'delete' | 'tombstone';
  name: string;
  size: number | undefined;
}

function recorder(into: Recorded[]) {
  const size = (o: UnstructuredObject): number | undefined => (o as Widget).spec?.size;
  return {
    onAdd: (o: UnstructuredObject) => {
      into.push({ type: 'add', name: o.metadata?.name ?? '', size: size(o) });
    },
    onUpdate: (_old: UnstructuredObject, o: UnstructuredObject) => {
      into.push({ type: 'update', name: o.metadata?.name ?? '', size: size(o) });
    },
    onDelete: (o: UnstructuredObject | DeletedFinalStateUnknown<UnstructuredObject>) => {
      if (o instanceof DeletedFinalStateUnknown) {
        into.push({ type: 'tombstone', name: o.obj.metadata?.name ?? '', size: size(o.obj) });
      } else into.push({ type: 'delete', name: o.metadata?.name ?? '', size: size(o) });
    },
  };
}

const fastBackoff = { durationMs: 20, factor: 2, jitter: 0.2, capMs: 500, steps: 10 };

/**
 * Defines every scenario as a node:test test inside the caller's `describe`.
 * `target()` returns the server (undefined: each test skips with `skipReason()`).
 */
export function defineScenarios(
  target: () => ConformanceTarget | undefined,
  skipReason: () => string,
  timeouts: ScenarioTimeouts = {},
): void {
  const timeout = { timeout: timeouts.scenarioMs ?? 120_000 };
  const expireTimeout = { timeout: timeouts.expireMs ?? 120_000 };
  /** Defines one scenario, unless `timeouts.slow` leaves it out (the slow one has expireTimeout). */
  const scenario = (
    name: string,
    options: { timeout: number },
    fn: (t: TestContext) => Promise<void>,
  ): void => {
    const slow = options === expireTimeout;
    if ((timeouts.slow === 'skip' && slow) || (timeouts.slow === 'only' && !slow)) return;
    test(name, options, fn);
  };
  let transport: Transport | undefined;
  const made: string[] = [];

  after(async () => {
    const t = transport;
    if (t === undefined) return;
    // Leave nothing behind on a shared server; deletion finishes in the background.
    for (const name of made)
      await crdClient(t)
        .delete(name)
        .catch(() => undefined);
    t.close();
  });

  /** The target, a transport, a CRD of its own, and clients for it. */
  const setup = async (t: TestContext, plural: string, kind: string) => {
    const tg = target();
    if (tg === undefined) {
      t.skip(skipReason());
      return undefined;
    }
    transport ??= new Transport(tg.kubeConfig());
    const crd = widgetCrd(plural, kind);
    made.push(crd.metadata?.name ?? '');
    const resource = await ensureCrd(transport, crd, tg.patienceMs);
    const all = new ResourceClient(transport, resource);
    const client = all.namespace(tg.namespace);
    const make = (name: string, size: number) =>
      client.create(widget(name, tg.namespace, resource, size));
    return { tg, transport, resource, all, client, make, ns: tg.namespace };
  };

  scenario(
    'list: limit/continue pages return every item exactly once, at one resourceVersion, with remainingItemCount',
    timeout,
    async (t) => {
      const s = await setup(t, 'pagewidgets', 'PageWidget');
      if (!s) return;
      const names = ['w0', 'w1', 'w2', 'w3', 'w4', 'w5', 'w6'];
      for (const [i, n] of names.entries()) await s.make(n, i);

      const p1 = await s.client.list({ limit: 3 });
      assert.deepEqual(
        p1.items.map((o) => o.metadata?.name),
        ['w0', 'w1', 'w2'],
      );
      assert.equal(p1.metadata.remainingItemCount, 4);
      const c1 = p1.metadata.continue;
      assert.ok(c1, 'first page has a continue token');
      // A change between pages is not seen: the pages are one snapshot.
      await s.make('w7-late', 7);
      await s.client.delete('w4');
      const p2 = await s.client.list({ limit: 3, continue: c1 });
      assert.deepEqual(
        p2.items.map((o) => o.metadata?.name),
        ['w3', 'w4', 'w5'],
      );
      assert.equal(p2.metadata.remainingItemCount, 1);
      assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion);
      const c2 = p2.metadata.continue;
      assert.ok(c2, 'second page has a continue token');
      const p3 = await s.client.list({ limit: 3, continue: c2 });
      assert.deepEqual(
        p3.items.map((o) => o.metadata?.name),
        ['w6'],
      );
      assert.ok(!p3.metadata.continue, 'the last page has no continue token');
      assert.equal(p3.metadata.remainingItemCount, undefined);

      // With a label selector: every match exactly once, and no remainingItemCount (the
      // server cannot count matches without reading them).
      for (const n of ['w0', 'w2', 'w5', 'w6']) {
        await s.client.patch(n, { metadata: { labels: { tier: 'a' } } });
      }
      const seen: string[] = [];
      let token: string | undefined;
      do {
        const page: ObjectList<Widget> = await s.client.list({
          limit: 2,
          labelSelector: 'tier=a',
          ...(token === undefined ? {} : { continue: token }),
        });
        assert.ok(page.items.length <= 2);
        assert.equal(page.metadata.remainingItemCount, undefined);
        for (const o of page.items) seen.push(o.metadata?.name ?? '');
        token = page.metadata.continue || undefined;
      } while (token !== undefined);
      assert.deepEqual(seen, ['w0', 'w2', 'w5', 'w6']);

      // The library's listAll walks every page.
      const everything = await s.client.listAll({ limit: 2 }).collect();
      assert.deepEqual(
        everything.items.map((o) => o.metadata?.name),
        ['w0', 'w1', 'w2', 'w3', 'w5', 'w6', 'w7-late'],
      );
    },
  );

  scenario(
    'watch from a list resourceVersion: later changes only, in order, with their types and states',
    timeout,
    async (t) => {
      const s = await setup(t, 'watchwidgets', 'WatchWidget');
      if (!s) return;
      await s.make('a', 1);
      await s.make('b', 2);
      const listed = await s.client.list();
      const rv = listed.metadata.resourceVersion ?? '';
      await s.make('c', 3);
      await s.client.patch('a', { spec: { size: 10 } });
      await s.client.delete('b');
      const { events } = await collectWatch<Widget>(
        s.client,
        { resourceVersion: rv },
        (evs) => evs.length >= 3,
        s.tg.patienceMs,
      );
      assert.deepEqual(summary(events), ['ADDED c', 'MODIFIED a', 'DELETED b']);
      const objs = events.map((e) => e.object as Widget);
      assert.deepEqual(
        objs.map((o) => o.spec?.size),
        [3, 10, 2],
      );
      let last = BigInt(rv);
      for (const o of objs) {
        assert.ok(rvOf(o) > last, 'resourceVersions increase and follow the list');
        last = rvOf(o);
      }
      // The DELETED event carries the deletion's resourceVersion: the current list is at or past it.
      const now = await s.client.list();
      assert.ok(BigInt(now.metadata.resourceVersion ?? '0') >= last);
    },
  );

  scenario(
    'bookmarks: with allowWatchBookmarks and timeoutSeconds, a BOOKMARK (kind, apiVersion, resourceVersion only) comes before the timeout once the resource changed, even by changes the watch does not select; none for a quiet watch or without allowWatchBookmarks',
    timeout,
    async (t) => {
      const s = await setup(t, 'bookwidgets', 'BookWidget');
      if (!s) return;
      await s.client.create({
        ...widget('a', s.ns, s.resource, 1),
        metadata: { name: 'a', labels: { tier: 'a' } },
      });
      await s.client.create({
        ...widget('b', s.ns, s.resource, 1),
        metadata: { name: 'b', labels: { tier: 'b' } },
      });
      // Nothing happens: the server has no news, so no bookmark before it ends the watch.
      let started = Date.now();
      const quiet = await collectWatch<Widget>(
        s.client,
        {
          allowWatchBookmarks: true,
          timeoutSeconds: 3,
          resourceVersion: await currentRv(s.client),
        },
        () => false,
        15_000,
      );
      assert.ok(quiet.endedByServer);
      const took = Date.now() - started;
      assert.ok(took >= 2500 && took < 10_000, `the server ended the watch at ~3 s (${took} ms)`);
      assert.deepEqual(summary(quiet.events), []);

      // A change the selector leaves out: only the watch that allows bookmarks hears of it.
      const rv = await currentRv(s.client);
      const opts = { labelSelector: 'tier=a', timeoutSeconds: 4, resourceVersion: rv };
      started = Date.now();
      let opened = 0;
      const open = (): void => void opened++;
      const both = Promise.all([
        collectWatch<Widget>(
          s.client,
          { ...opts, allowWatchBookmarks: true },
          () => false,
          15_000,
          open,
        ),
        collectWatch<Widget>(s.client, opts, () => false, 15_000, open),
      ]);
      await eventually('both watches open', () => opened === 2, 10_000);
      const patched = await s.client.patch('b', { spec: { size: 2 } });
      const [withBookmarks, without] = await both;
      assert.ok(Date.now() - started < 12_000);
      assert.deepEqual(summary(without.events), []);
      assert.deepEqual(summary(withBookmarks.events), ['BOOKMARK']);
      const bookmark = withBookmarks.events[0]?.object as Widget;
      assert.equal(bookmark.kind, s.resource.kind);
      assert.equal(bookmark.apiVersion, `${s.resource.group}/v1`);
      assert.ok(rvOf(bookmark) >= rvOf(patched), 'the bookmark is at or past the change');
      assert.equal(bookmark.spec, undefined);
      assert.deepEqual(
        Object.keys(bookmark.metadata ?? {}).filter((k) => k !== 'creationTimestamp'),
        ['resourceVersion'],
      );
    },
  );

  scenario(
    'sendInitialEvents=true with resourceVersionMatch=NotOlderThan: ADDED for each object, then a BOOKMARK annotated k8s.io/initial-events-end, then live events',
    timeout,
    async (t) => {
      const s = await setup(t, 'initwidgets', 'InitWidget');
      if (!s) return;
      const created = [await s.make('a', 1), await s.make('b', 2), await s.make('c', 3)];
      const newest = created.reduce((m, o) => (rvOf(o) > m ? rvOf(o) : m), 0n);
      const ac = new AbortController();
      const timer = setTimeout(() => ac.abort(), s.tg.patienceMs);
      const events: WatchEvent<Widget>[] = [];
      try {
        const stream = await s.client.watch(
          {
            sendInitialEvents: true,
            resourceVersionMatch: 'NotOlderThan',
            resourceVersion: '',
            allowWatchBookmarks: true,
          },
          { signal: ac.signal },
        );
        let wrote = false;
        for await (const e of stream) {
          events.push(e);
          if (e.type === 'BOOKMARK' && !wrote) {
            wrote = true;
            await s.client.patch('b', { spec: { size: 20 } });
          }
          if (e.type === 'MODIFIED') break;
        }
      } finally {
        clearTimeout(timer);
        ac.abort();
      }
      const kinds = summary(events);
      const end = kinds.indexOf('BOOKMARK');
      assert.ok(end >= 0, `an end bookmark: ${kinds.join(', ')}`);
      assert.deepEqual(kinds.slice(0, end).sort(), ['ADDED a', 'ADDED b', 'ADDED c']);
      assert.deepEqual(kinds.slice(end), ['BOOKMARK', 'MODIFIED b']);
      const bookmark = events[end]?.object as Widget;
      assert.equal(bookmark.metadata?.annotations?.['k8s.io/initial-events-end'], 'true');
      assert.ok(rvOf(bookmark) >= newest, 'the end bookmark is at or past every listed object');
      assert.equal((events[end + 1]?.object as Widget).spec?.size, 20);
    },
  );

  scenario(
    '410 after compaction: a continue token and an Exact list from before the compaction fail with 410 Expired',
    timeout,
    async (t) => {
      const s = await setup(t, 'compactwidgets', 'CompactWidget');
      if (!s) return;
      for (const n of ['a', 'b', 'c']) await s.make(n, 1);
      const page = await s.client.list({ limit: 2 });
      const token = page.metadata.continue;
      assert.ok(token);
      const rv = page.metadata.resourceVersion ?? '';
      // Before compaction both still work.
      await s.client.list({ resourceVersion: rv, resourceVersionMatch: 'Exact' });
      // Move past the page's version, then compact everything up to now.
      await s.make('d', 1);
      await s.tg.compact(s.resource);
      for (const attempt of [
        () => s.client.list({ limit: 2, continue: token }),
        () => s.client.list({ resourceVersion: rv, resourceVersionMatch: 'Exact' }),
      ]) {
        await assert.rejects(attempt, (err: unknown) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 410);
          assert.ok(isResourceExpired(err), `reason Expired, got ${err.reason}`);
          return true;
        });
      }
      // A list without a resourceVersion still works, at a newer version.
      const fresh = await s.client.list();
      assert.equal(fresh.items.length, 4);
    },
  );

  scenario(
    '410 after compaction: a watch from a version outside the window gets ERROR 410 Expired; the informer relists and converges, deletes missed while disconnected arrive as tombstones',
    expireTimeout,
    async (t) => {
      const tg = target();
      if (tg) t.diagnostic(`expiring watch history on ${tg.name} (real server: ~80 s)`);
      const s = await setup(t, 'expirewidgets', 'ExpireWidget');
      if (!s) return;
      for (const n of ['a', 'b', 'c']) await s.make(n, 1);
      const gated = new GatedListerWatcher<Widget>(listWatchFromClient(s.client));
      const informer = new SharedIndexInformer<Widget>(gated, {
        name: 'expirewidgets',
        groupResource: { group: s.resource.group, resource: s.resource.resource },
        backoff: fastBackoff,
        logger: noopLogger,
      });
      const seen: Recorded[] = [];
      informer.addEventHandler(recorder(seen));
      const stop = new AbortController();
      const running = informer.run(stop.signal);
      try {
        await eventually('informer synced', () => informer.hasSynced(), s.tg.patienceMs);
        // One live event, so the watch that is cut has delivered something.
        await s.make('live', 1);
        await eventually('live seen', () => seen.some((r) => r.name === 'live'), s.tg.patienceMs);
        gated.hold();
        gated.disconnect();
        await eventually('re-watch parked', () => gated.waiting.length > 0, s.tg.patienceMs);
        const parked = gated.waiting[0];
        assert.equal(parked?.verb, 'watch', 'a cleanly closed watch is resumed, not relisted');
        const oldRv = parked.options.resourceVersion ?? '';
        assert.match(oldRv, /^\d+$/);

        // While disconnected: a delete, an update and a create.
        await s.client.delete('b');
        await s.client.patch('c', { spec: { size: 10 } });
        await s.make('d', 4);
        await s.make('churn', 0);
        let n = 0;
        await s.tg.expireWatchHistory(async () => {
          await s.client.patch('churn', { spec: { size: ++n } });
        });

        // The server says so to any watch from the old version.
        const direct = await collectWatch<Widget>(
          s.client,
          { resourceVersion: oldRv },
          () => false,
          s.tg.patienceMs,
        );
        assert.deepEqual(summary(direct.events), ['ERROR 410 Expired']);

        const before = gated.calls.length;
        gated.release();
        await eventually(
          'cache converged',
          () => {
            const names = informer
              .lister()
              .list()
              .map((o) => `${o.metadata?.name ?? ''}:${o.spec?.size ?? ''}`)
              .sort();
            return (
              JSON.stringify(names) ===
              JSON.stringify(['a:1', 'c:10', `churn:${CHURN_EVENTS}`, 'd:4', 'live:1'])
            );
          },
          s.tg.patienceMs,
        );
        const after = gated.calls.slice(before);
        assert.equal(after[0]?.verb, 'watch');
        assert.equal(after[0]?.options.resourceVersion, oldRv);
        // client-go's rule: relist at the last version (NotOlderThan; "" only if that fails).
        const relist = after[1];
        assert.ok(
          relist !== undefined &&
            (relist.verb === 'list' || relist.options.sendInitialEvents === true),
          `after the 410 the reflector starts over with a full list: ${JSON.stringify(after.slice(0, 3))}`,
        );
        await eventually('b tombstone', () => seen.some((r) => r.name === 'b'), s.tg.patienceMs);
        const afterCut = seen.slice(seen.findIndex((r) => r.name === 'live') + 1);
        assert.deepEqual(
          afterCut.filter((r) => r.name === 'b'),
          [{ type: 'tombstone', name: 'b', size: 1 }],
        );
        assert.deepEqual(
          afterCut.filter((r) => r.name === 'c'),
          [{ type: 'update', name: 'c', size: 10 }],
        );
        assert.deepEqual(
          afterCut.filter((r) => r.name === 'd'),
          [{ type: 'add', name: 'd', size: 4 }],
        );
      } finally {
        gated.release();
        stop.abort();
        await running;
      }
    },
  );

  scenario(
    'status subresource: main-resource writes ignore status, /status writes ignore spec and metadata, generation moves on spec changes only',
    timeout,
    async (t) => {
      const s = await setup(t, 'statuswidgets', 'StatusWidget');
      if (!s) return;
      const created = await s.client.create({
        ...widget('w', s.ns, s.resource, 1),
        status: { phase: 'FromCreate' },
      });
      assert.equal(created.status, undefined, 'status is dropped on create');
      assert.equal(created.metadata?.generation, 1);

      const u1 = await s.client.update({
        ...created,
        spec: { size: 2 },
        status: { phase: 'FromMain' },
      });
      assert.equal(u1.spec?.size, 2);
      assert.equal(u1.status, undefined, 'a main-resource update ignores status');
      assert.equal(u1.metadata?.generation, 2);

      const u2 = await s.client.updateStatus({
        ...u1,
        metadata: { ...u1.metadata, labels: { via: 'status' } },
        spec: { size: 99 },
        status: { phase: 'Ready' },
      });
      assert.equal(u2.status?.phase, 'Ready');
      assert.equal(u2.spec?.size, 2, 'a /status update ignores spec');
      assert.equal(u2.metadata?.labels?.['via'], undefined, 'a /status update ignores labels');
      assert.equal(u2.metadata?.generation, 2, 'a status change does not bump generation');
      assert.ok(rvOf(u2) > rvOf(u1));

      const u3 = await s.client.update({
        ...u2,
        metadata: { ...u2.metadata, labels: { tier: 'a' } },
      });
      assert.equal(u3.metadata?.labels?.['tier'], 'a');
      assert.equal(u3.metadata?.generation, 2, 'a metadata change does not bump generation');
      assert.equal(u3.status?.phase, 'Ready', 'status survives a main-resource update');

      const u4 = await s.client.patch(
        'w',
        { status: { phase: 'Patched' } },
        { subresource: 'status' },
      );
      assert.equal(u4.status?.phase, 'Patched');
      const u5 = await s.client.patch('w', { spec: { size: 3 }, status: { phase: 'Ignored' } });
      assert.equal(u5.spec?.size, 3);
      assert.equal(u5.status?.phase, 'Patched', 'a main-resource patch ignores status');
      assert.equal(u5.metadata?.generation, 3);
    },
  );

  scenario(
    'ownerReferences are validated: apiVersion, kind, name and uid must be set, and at most one reference is the controller (422 with kube-apiserver wording)',
    timeout,
    async (t) => {
      const s = await setup(t, 'ownedwidgets', 'OwnedWidget');
      if (!s) return;
      const withRefs = (name: string, ownerReferences: unknown[]) =>
        s.client.create({
          ...widget(name, s.ns, s.resource, 1),
          metadata: { name, namespace: s.ns, ownerReferences } as NonNullable<Widget['metadata']>,
        });
      const what = `${s.resource.kind}.${s.resource.group}`;
      await assert.rejects(
        () => withRefs('nouid', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'x', uid: '' }]),
        (err) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 422);
          assert.equal(
            err.status.message,
            `${what} "nouid" is invalid: metadata.ownerReferences.uid: Invalid value: "": must not be empty`,
          );
          return true;
        },
      );
      await assert.rejects(
        () =>
          withRefs('twoctl', [
            { apiVersion: 'v1', kind: 'A', name: 'a', uid: 'u1', controller: true },
            { apiVersion: 'v1', kind: 'B', name: 'b', uid: 'u2', controller: true },
          ]),
        (err) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 422);
          assert.deepEqual(
            err.details?.causes?.map((c) => [c.reason, c.field]),
            [['FieldValueInvalid', 'metadata.ownerReferences']],
          );
          assert.match(
            err.status.message ?? '',
            /Only one reference can have Controller set to true\. Found "true" in references for A\/a and B\/b$/,
          );
          return true;
        },
      );
    },
  );

  scenario(
    'a delete that only marks its object (a finalizer holds it) answers 200 with the marked object; 202 only when the request set orphanDependents: false',
    timeout,
    async (t) => {
      const s = await setup(t, 'heldwidgets', 'HeldWidget');
      if (!s) return;
      const path = (name: string): string =>
        `/apis/${s.resource.group}/v1/namespaces/${s.ns}/${s.resource.resource}/${name}`;
      /** The status code of a DELETE (stream() resolves on the answer's headers). */
      const deleteCode = async (name: string, body?: object): Promise<number> => {
        const open = await s.transport.stream({
          method: 'DELETE',
          path: path(name),
          ...(body === undefined ? {} : { body }),
        });
        open.close();
        return open.statusCode;
      };
      for (const name of ['plain', 'orphan-false']) {
        const made = await s.make(name, 1);
        await s.client.patch(name, {
          metadata: {
            finalizers: ['example.com/hold'],
            resourceVersion: made.metadata?.resourceVersion,
          },
        });
      }
      t.after(async () => {
        for (const name of ['plain', 'orphan-false'])
          await s.client.patch(name, { metadata: { finalizers: null } }).catch(() => undefined);
      });
      assert.equal(await deleteCode('plain'), 200);
      const marked = await s.client.get('plain');
      assert.ok(marked.metadata?.deletionTimestamp, 'marked, not gone');
      assert.equal(marked.metadata?.generation, 2, 'marking for deletion bumps generation once');
      assert.equal(await deleteCode('plain'), 200);
      assert.equal(
        (await s.client.get('plain')).metadata?.generation,
        2,
        'a second delete does not',
      );
      assert.equal(
        await deleteCode('orphan-false', {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          orphanDependents: false,
        }),
        202,
      );
      await s.client.patch('plain', { metadata: { finalizers: null } });
      await assert.rejects(() => s.client.get('plain'), isNotFound);
    },
  );

  scenario(
    'a custom resource has no unconditional update: a PUT without metadata.resourceVersion is 422 on metadata.resourceVersion; DELETE of /status is 405 and deletes nothing',
    timeout,
    async (t) => {
      const s = await setup(t, 'rvwidgets', 'RvWidget');
      if (!s) return;
      const made = await s.make('w', 1);
      const { resourceVersion: _rv, ...metadata } = made.metadata ?? {};
      await assert.rejects(
        () => s.client.update({ ...made, metadata, spec: { size: 2 } }),
        (err) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 422);
          assert.equal(err.reason, 'Invalid');
          assert.equal(
            err.status.message,
            `${s.resource.resource}.${s.resource.group} "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`,
          );
          assert.equal(err.details?.kind, s.resource.resource);
          assert.deepEqual(
            err.details?.causes?.map((c) => [c.reason, c.field]),
            [['FieldValueInvalid', 'metadata.resourceVersion']],
          );
          return true;
        },
      );
      await assert.rejects(
        () =>
          s.transport.request({
            method: 'DELETE',
            path: `/apis/${s.resource.group}/v1/namespaces/${s.ns}/${s.resource.resource}/w/status`,
          }),
        (err) => {
          assert.ok(err instanceof ApiError, String(err));
          assert.equal(err.code, 405);
          assert.equal(err.reason, 'MethodNotAllowed');
          return true;
        },
      );
      const still = await s.client.get('w');
      assert.equal(still.spec?.size, 1, 'nothing was written or deleted');
      assert.equal(still.metadata?.deletionTimestamp, undefined);
    },
  );

  scenario(
    'conflict: an update or delete with a stale resourceVersion fails with 409 Conflict (isConflict), naming the object',
    timeout,
    async (t) => {
      const s = await setup(t, 'conflictwidgets', 'ConflictWidget');
      if (!s) return;
      const stale = await s.make('w', 1);
      await s.client.update({ ...stale, spec: { size: 2 } });
      // Writes name the resource (`widgets.group`); a delete precondition, checked before
      // deleting, names the Kind (`Widget.group`), as kube-apiserver does.
      const check = (err: unknown, kind = s.resource.resource): boolean => {
        assert.ok(err instanceof ApiError, String(err));
        assert.ok(isConflict(err));
        assert.equal(err.code, 409);
        assert.equal(err.reason, 'Conflict');
        assert.equal(err.details?.name, 'w');
        assert.equal(err.details?.group, s.resource.group);
        assert.equal(err.details?.kind, kind);
        return true;
      };
      const group = s.resource.group.replace(/\./g, '\\.');
      await assert.rejects(
        () => s.client.update({ ...stale, spec: { size: 3 } }),
        (err) => {
          check(err);
          assert.match(
            (err as ApiError).status.message ?? '',
            new RegExp(
              `^Operation cannot be fulfilled on ${s.resource.resource}\\.${group} "w": the object has been modified; please apply your changes to the latest version and try again$`,
            ),
          );
          return true;
        },
      );
      await assert.rejects(
        () => s.client.updateStatus({ ...stale, status: { phase: 'x' } }),
        check,
      );
      await assert.rejects(
        () =>
          s.client.delete('w', {
            preconditions: { resourceVersion: stale.metadata?.resourceVersion ?? '' },
          }),
        (err) => {
          check(err, s.resource.kind);
          assert.match(
            (err as ApiError).status.message ?? '',
            new RegExp(
              `^Operation cannot be fulfilled on ${s.resource.kind}\\.${group} "w": the ResourceVersion in the precondition \\(${stale.metadata?.resourceVersion ?? ''}\\) does not match the ResourceVersion in record \\(\\d+\\)\\. The object might have been modified$`,
            ),
          );
          return true;
        },
      );
      assert.equal((await s.client.get('w')).spec?.size, 2, 'nothing was written');
    },
  );

  scenario(
    'selectors on watch: leaving a label selection is DELETED (previous state), entering it is ADDED; metadata.name field selectors work on lists and watches; other fields are refused',
    timeout,
    async (t) => {
      const s = await setup(t, 'selectwidgets', 'SelectWidget');
      if (!s) return;
      await s.client.create({
        ...widget('x', s.ns, s.resource, 1),
        metadata: { name: 'x', labels: { tier: 'a' } },
      });
      await s.client.create({
        ...widget('y', s.ns, s.resource, 1),
        metadata: { name: 'y', labels: { tier: 'b' } },
      });
      const rv = (await s.client.list()).metadata.resourceVersion ?? '';
      const enter = await s.client.patch('y', { metadata: { labels: { tier: 'a' } } });
      const leave = await s.client.patch('x', { metadata: { labels: { tier: 'b' } } });
      await s.client.patch('x', { spec: { size: 5 } }); // outside the selection: nothing
      await s.client.patch('y', { spec: { size: 6 } });
      const { events } = await collectWatch<Widget>(
        s.client,
        { resourceVersion: rv, labelSelector: 'tier=a' },
        (evs) => evs.length >= 3,
        s.tg.patienceMs,
      );
      assert.deepEqual(summary(events), ['ADDED y', 'DELETED x', 'MODIFIED y']);
      const added = events[0]?.object as Widget;
      const deleted = events[1]?.object as Widget;
      assert.equal(added.metadata?.resourceVersion, enter.metadata?.resourceVersion);
      assert.equal(
        deleted.metadata?.labels?.['tier'],
        'a',
        'DELETED carries the state that matched',
      );
      assert.equal(
        deleted.metadata?.resourceVersion,
        leave.metadata?.resourceVersion,
        'at the version of the change that moved it out',
      );
      assert.equal((events[2]?.object as Widget).spec?.size, 6);

      const byName = await s.client.list({ fieldSelector: 'metadata.name=y' });
      assert.deepEqual(
        byName.items.map((o) => o.metadata?.name),
        ['y'],
      );
      const named = await collectWatch<Widget>(
        s.client,
        { resourceVersion: rv, fieldSelector: 'metadata.name=x' },
        (evs) => evs.length >= 2,
        s.tg.patienceMs,
      );
      assert.deepEqual(summary(named.events), ['MODIFIED x', 'MODIFIED x']);
      const ns = await s.all.list({ fieldSelector: `metadata.namespace=${s.ns},metadata.name=x` });
      assert.deepEqual(
        ns.items.map((o) => o.metadata?.name),
        ['x'],
      );
      await assert.rejects(
        () => s.client.list({ fieldSelector: 'spec.size=5' }),
        (err: unknown) => {
          assert.ok(isBadRequest(err), String(err));
          return true;
        },
      );
    },
  );

  scenario(
    'failures in words: an unserved resource is a 404 naming it, a missing object keeps the server words, a bad selector is a bad request; all permanent',
    timeout,
    async (t) => {
      const s = await setup(t, 'wordwidgets', 'WordWidget');
      if (!s) return;
      const unserved = new ResourceClient(s.client.transport, {
        ...s.resource,
        group: `nothere.${conformanceGroup}`,
      }).namespace(s.ns);
      for (const call of [
        () => unserved.list(),
        () => unserved.watch({}),
        () => unserved.get('x'),
      ]) {
        const err = await call().then(
          () => assert.fail('expected a 404'),
          (e: unknown) => e,
        );
        assert.ok(isNotFound(err), String(err));
        assert.equal(
          err.summary,
          `the server has no resource ${s.resource.resource}.nothere.${conformanceGroup}/v1; ` +
            'is its CustomResourceDefinition installed, or the API version right?',
        );
        assert.equal(err.permanent, true);
      }
      const missing = await s.client.get('absent').catch((e: unknown) => e);
      assert.ok(missing instanceof ApiError, String(missing));
      assert.equal(
        missing.summary,
        `${s.resource.resource}.${conformanceGroup} "absent" not found`,
      );
      const bad = await s.client.list({ labelSelector: 'app in (web' }).catch((e: unknown) => e);
      assert.ok(isBadRequest(bad), String(bad));
      assert.match(bad.summary, /^bad request: unable to parse requirement: /);
      assert.equal(bad.permanent, true);
    },
  );

  scenario(
    'CRD informer manager: a new CRD starts an informer whose objects reach the handlers; deleting the CRD deletes them and drops the informer',
    timeout,
    async (t) => {
      const tg = target();
      if (tg === undefined) {
        t.skip(skipReason());
        return;
      }
      transport ??= new Transport(tg.kubeConfig());
      const group = `mgr-${conformanceGroup}`;
      const manager = new CRDInformerManager(tg.kubeConfig(), {
        predicate: crdSelector({ groups: [group] }),
        logger: noopLogger,
        informerOptions: { backoff: fastBackoff },
      });
      const seen: string[] = [];
      manager.addEventHandler({
        onAdd: (r, o) => void seen.push(`add ${r.resource} ${o.metadata?.name ?? ''}`),
        onDelete: (r, o) => {
          const obj = o instanceof DeletedFinalStateUnknown ? o.obj : o;
          seen.push(`delete ${r.resource} ${obj.metadata?.name ?? ''}`);
        },
      });
      const stop = new AbortController();
      const running = manager.run(stop.signal);
      try {
        assert.ok(await manager.waitForCacheSync(stop.signal));
        assert.deepEqual(manager.resources(), []);
        const crd = widgetCrd('gadgets', 'Gadget', group);
        const resource = await ensureCrd(transport, crd, tg.patienceMs);
        await eventually(
          'manager runs an informer for gadgets',
          () => manager.resources().some((r) => r.resource === 'gadgets' && r.group === group),
          tg.patienceMs,
        );
        const gadgets = new ResourceClient(transport, resource).namespace(tg.namespace);
        await gadgets.create(widget('g1', tg.namespace, resource, 1));
        await gadgets.create(widget('g2', tg.namespace, resource, 2));
        await eventually(
          'both gadgets added',
          () => seen.includes('add gadgets g1') && seen.includes('add gadgets g2'),
          tg.patienceMs,
        );
        await crdClient(transport).delete(crd.metadata?.name ?? '');
        await eventually(
          'gadgets deleted and the informer dropped',
          () =>
            seen.includes('delete gadgets g1') &&
            seen.includes('delete gadgets g2') &&
            manager.resources().length === 0,
          tg.patienceMs,
        );
        assert.deepEqual([...seen].sort(), [
          'add gadgets g1',
          'add gadgets g2',
          'delete gadgets g1',
          'delete gadgets g2',
        ]);
      } finally {
        stop.abort();
        await running;
      }
    },
  );

  scenario(
    'informers: a dynamic informer found through discovery converges under create, update and delete, and its handler sees each change once, in order',
    timeout,
    async (t) => {
      const s = await setup(t, 'informwidgets', 'InformWidget');
      if (!s) return;
      await s.make('pre', 0);
      const factory = new DynamicSharedInformerFactory(s.tg.kubeConfig(), {
        namespace: s.ns,
        logger: noopLogger,
        informerOptions: { backoff: fastBackoff },
      });
      const stop = new AbortController();
      try {
        const informer = await factory.forGroupVersionResource({
          group: s.resource.group,
          version: s.resource.version,
          resource: s.resource.resource,
        });
        const seen: Recorded[] = [];
        informer.addEventHandler(recorder(seen));
        factory.start(stop.signal);
        const synced = await factory.waitForCacheSync(stop.signal);
        assert.ok([...synced.values()].every(Boolean));
        await s.make('p1', 1);
        await s.make('p2', 2);
        await s.client.patch('p1', { spec: { size: 5 } });
        await s.client.delete('p2');
        await s.client.delete('pre');
        await eventually(
          'cache converged',
          () => {
            const items = informer.lister().list();
            return items.length === 1 && (items[0] as Widget).spec?.size === 5;
          },
          s.tg.patienceMs,
        );
        await eventually('all handled', () => seen.length >= 6, s.tg.patienceMs);
        assert.deepEqual(seen, [
          { type: 'add', name: 'pre', size: 0 },
          { type: 'add', name: 'p1', size: 1 },
          { type: 'add', name: 'p2', size: 2 },
          { type: 'update', name: 'p1', size: 5 },
          { type: 'delete', name: 'p2', size: 2 },
          { type: 'delete', name: 'pre', size: 0 },
        ]);
      } finally {
        stop.abort();
        await factory.shutdown();
      }
    },
  );

  scenario(
    'application operator: reconciles an Application into owned children (stand-in CRDs for Deployment and Service), reports Ready status, and cleans up through its finalizer',
    timeout,
    async (t) => {
      const tg = target();
      if (tg === undefined) {
        t.skip(skipReason());
        return;
      }
      transport ??= new Transport(tg.kubeConfig());
      for (const crd of await applicationCrds()) await ensureCrd(transport, crd, tg.patienceMs);
      // The real server serves no apps/v1 or v1: CRDs of the same kinds stand in for them.
      const loose = {
        type: 'object',
        properties: {
          spec: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
          status: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      };
      const standIns = `apps-${conformanceGroup}`;
      const deploymentCrd = widgetCrd('deployments', 'Deployment', standIns, loose);
      const serviceCrd = widgetCrd('services', 'Service', standIns, loose);
      made.push(deploymentCrd.metadata?.name ?? '', serviceCrd.metadata?.name ?? '');
      const deploymentResource = await ensureCrd(transport, deploymentCrd, tg.patienceMs);
      const serviceResource = await ensureCrd(transport, serviceCrd, tg.patienceMs);
      const apps = new ResourceClient(transport, applicationResource).namespace(tg.namespace);
      const deployments = new ResourceClient(transport, deploymentResource).namespace(tg.namespace);
      const services = new ResourceClient(transport, serviceResource).namespace(tg.namespace);
      const name = `shop-${suffix}`;
      const events: OperatorEvent[] = [];
      const stop = new AbortController();
      const running = runOperator(tg.kubeConfig(), stop.signal, {
        namespace: tg.namespace,
        deploymentResource: deploymentResource as never,
        serviceResource: serviceResource as never,
        onEvent: (e) => void events.push(e),
      });
      const tryGet = <T>(p: Promise<T>): Promise<T | undefined> =>
        p.catch((err: unknown) => {
          if (isNotFound(err)) return undefined;
          throw err;
        });
      try {
        const created = await apps.create({
          apiVersion: 'example.com/v1',
          kind: 'Application',
          metadata: { name, namespace: tg.namespace },
          spec: { image: 'nginx:1.27', replicas: 2, port: 8080 },
        });
        let d: Widget | undefined;
        await eventually(
          'deployment',
          async () => (d = await tryGet(deployments.get(name))) !== undefined,
          tg.patienceMs,
        );
        const spec = d?.spec as {
          replicas?: number;
          template?: { spec?: { containers?: { image?: string }[] } };
        };
        assert.equal(spec.replicas, 2);
        assert.equal(spec.template?.spec?.containers?.[0]?.image, 'nginx:1.27');
        assert.equal(d?.metadata?.ownerReferences?.[0]?.uid, created.metadata?.uid);
        let svc: Widget | undefined;
        await eventually(
          'service',
          async () => (svc = await tryGet(services.get(name))) !== undefined,
          tg.patienceMs,
        );
        assert.equal(
          (svc?.spec as { ports?: { targetPort?: number }[] }).ports?.[0]?.targetPort,
          8080,
        );
        await eventually(
          'Ready=False while unavailable',
          async () => {
            const a = await apps.get(name);
            return a.status?.conditions?.[0]?.status === 'False';
          },
          tg.patienceMs,
        );
        assert.deepEqual((await apps.get(name)).metadata?.finalizers, [FINALIZER]);
        // The Deployment becomes available: the operator follows it to Ready=True.
        const live = await deployments.get(name);
        await deployments.updateStatus({ ...live, status: { availableReplicas: 2 } } as never);
        await eventually(
          'Ready=True once available',
          async () => {
            const a = await apps.get(name);
            return a.status?.conditions?.[0]?.status === 'True' && a.status.availableReplicas === 2;
          },
          tg.patienceMs,
        );
        await apps.delete(name);
        await eventually(
          'children cleaned up and the Application gone',
          async () =>
            (await tryGet(apps.get(name))) === undefined &&
            (await tryGet(deployments.get(name))) === undefined &&
            (await tryGet(services.get(name))) === undefined,
          tg.patienceMs,
        );
        assert.ok(events.some((e) => e.type === 'synced'));
        assert.ok(events.some((e) => e.type === 'cleaned-up'));
      } finally {
        stop.abort();
        await running;
      }
    },
  );

  /** A CRD of gadgets with list and map types, for the server-side apply scenarios. */
  const applySetup = async (t: TestContext, plural: string, kind: string) => {
    const tg = target();
    if (tg === undefined) {
      t.skip(skipReason());
      return undefined;
    }
    transport ??= new Transport(tg.kubeConfig());
    const crd = widgetCrd(plural, kind, conformanceGroup, gadgetSchema);
    made.push(crd.metadata?.name ?? '');
    const resource = await ensureCrd(transport, crd, tg.patienceMs);
    const client = new ResourceClient(transport, resource).namespace(tg.namespace);
    const gadget = (
      name: string,
      spec: Record<string, unknown>,
      extra = {},
    ): Widget & ApplyConfiguration<Widget> => ({
      apiVersion: `${resource.group}/${resource.version}`,
      kind: resource.kind,
      metadata: { name, namespace: tg.namespace },
      spec,
      ...extra,
    });
    return { tg, resource, client, gadget, apiVersion: `${resource.group}/${resource.version}` };
  };
  const conflictOf = async (p: Promise<unknown>): Promise<ApiError> => {
    try {
      await p;
    } catch (err) {
      if (err instanceof ApiError) return err;
      throw err;
    }
    assert.fail('expected the apply to fail');
  };
  const entries = (o: UnstructuredObject) =>
    (o.metadata?.managedFields ?? []) as {
      manager?: string;
      operation?: string;
      subresource?: string;
      fieldsV1?: unknown;
    }[];
  const spec = (o: UnstructuredObject) => (o as { spec?: Record<string, unknown> }).spec ?? {};

  scenario(
    'server-side apply: an applier owns its fields; another applier changing one is 409 naming the field and manager; force takes it; dropped fields are removed unless shared',
    timeout,
    async (t) => {
      const s = await applySetup(t, 'applygadgets', 'ApplyGadget');
      if (!s) return;
      const first = await s.client.apply(
        s.gadget('g', { replicas: 1, color: 'red', ports: [{ name: 'http', port: 80 }] }),
        { fieldManager: 'alice' },
      );
      assert.deepEqual(
        entries(first).map((e) => [e.manager, e.operation]),
        [['alice', 'Apply']],
      );
      assert.deepEqual(entries(first)[0]?.fieldsV1, {
        'f:spec': {
          'f:color': {},
          'f:ports': { 'k:{"name":"http"}': { '.': {}, 'f:name': {}, 'f:port': {} } },
          'f:replicas': {},
        },
      });
      const err = await conflictOf(
        s.client.apply(
          s.gadget('g', { replicas: 2, color: 'red', ports: [{ name: 'http', port: 81 }] }),
          { fieldManager: 'bob' },
        ),
      );
      assert.equal(err.code, 409);
      assert.equal(err.reason, 'Conflict');
      assert.equal(
        err.status.message,
        'Apply failed with 2 conflicts: conflicts with "alice":\n- .spec.replicas\n- .spec.ports[name="http"].port',
      );
      assert.deepEqual(
        err.details?.causes?.map((c) => [c.reason, c.message, c.field]),
        [
          ['FieldManagerConflict', 'conflict with "alice"', '.spec.replicas'],
          ['FieldManagerConflict', 'conflict with "alice"', '.spec.ports[name="http"].port'],
        ],
      );
      // The same value is shared ownership, not a conflict.
      await s.client.apply(s.gadget('g', { color: 'red' }), { fieldManager: 'carol' });
      const forced = await s.client.apply(s.gadget('g', { replicas: 2 }), {
        fieldManager: 'bob',
        force: true,
      });
      assert.equal(spec(forced).replicas, 2);
      const alice = entries(forced).find((e) => e.manager === 'alice');
      assert.ok(!JSON.stringify(alice?.fieldsV1).includes('f:replicas'));
      // alice drops color (shared with carol: kept) and ports (hers alone: removed).
      const bare = s.gadget('g', {});
      delete bare.spec;
      const dropped = await s.client.apply(bare, { fieldManager: 'alice' });
      assert.deepEqual(spec(dropped), { replicas: 2, color: 'red' });
      assert.ok(!entries(dropped).some((e) => e.manager === 'alice'));
    },
  );

  scenario(
    'server-side apply: map lists merge by their keys, set lists by value, an atomic list is replaced whole',
    timeout,
    async (t) => {
      const s = await applySetup(t, 'mergegadgets', 'MergeGadget');
      if (!s) return;
      await s.client.apply(
        s.gadget('m', { ports: [{ name: 'a', port: 1 }], tags: ['x'], args: ['1'] }),
        { fieldManager: 'one' },
      );
      const two = await s.client.apply(
        s.gadget('m', { ports: [{ name: 'b', port: 2 }], tags: ['y'] }),
        { fieldManager: 'two' },
      );
      assert.deepEqual(spec(two).ports, [
        { name: 'a', port: 1 },
        { name: 'b', port: 2 },
      ]);
      assert.deepEqual(spec(two).tags, ['x', 'y']);
      const err = await conflictOf(
        s.client.apply(s.gadget('m', { args: ['2'] }), { fieldManager: 'two' }),
      );
      assert.equal(
        err.status.message,
        'Apply failed with 1 conflict: conflict with "one": .spec.args',
      );
      const three = await s.client.apply(s.gadget('m', { args: ['2', '3'] }), {
        fieldManager: 'two',
        force: true,
      });
      assert.deepEqual(spec(three).args, ['2', '3']);
      // "two" no longer applies ports and tags: its items go, "one"'s stay.
      assert.deepEqual(spec(three).ports, [{ name: 'a', port: 1 }]);
      assert.deepEqual(spec(three).tags, ['x']);
    },
  );

  scenario(
    'server-side apply: status applies are owned with subresource status; patches and updates are Update managers',
    timeout,
    async (t) => {
      const s = await applySetup(t, 'statusgadgets', 'StatusGadget');
      if (!s) return;
      await s.client.apply(s.gadget('st', { replicas: 1 }), { fieldManager: 'owner' });
      const st = await s.client.patch(
        'st',
        s.gadget('st', { replicas: 9 }, { status: { phase: 'Ready' } }),
        { type: 'apply', fieldManager: 'kubelet', subresource: 'status' },
      );
      assert.equal(spec(st).replicas, 1, 'an apply to status leaves spec alone');
      assert.deepEqual((st as { status?: unknown }).status, { phase: 'Ready' });
      const e = entries(st).find((x) => x.manager === 'kubelet');
      assert.equal(e?.operation, 'Apply');
      assert.equal(e?.subresource, 'status');
      assert.deepEqual(e?.fieldsV1, { 'f:status': { 'f:phase': {} } });
      const patched = await s.client.patch(
        'st',
        { spec: { size: 'L' } },
        { fieldManager: 'patcher' },
      );
      const p = entries(patched).find((x) => x.manager === 'patcher');
      assert.equal(p?.operation, 'Update');
      assert.deepEqual(p?.fieldsV1, { 'f:spec': { 'f:size': {} } });
      const err = await conflictOf(
        s.client.apply(s.gadget('st', { size: 'S' }), { fieldManager: 'owner' }),
      );
      assert.equal(
        err.status.message,
        `Apply failed with 1 conflict: conflict with "patcher" using ${s.apiVersion}: .spec.size`,
      );
    },
  );

  /** A CRD of its own with extra settings on its only version, made and served. */
  const setupWith = async (
    t: TestContext,
    plural: string,
    kind: string,
    version: Record<string, unknown>,
  ) => {
    const tg = target();
    if (tg === undefined) {
      t.skip(skipReason());
      return undefined;
    }
    transport ??= new Transport(tg.kubeConfig());
    const crd = widgetCrd(plural, kind);
    const versions = (crd.spec as { versions: Record<string, unknown>[] }).versions;
    Object.assign(versions[0] ?? {}, version);
    made.push(crd.metadata?.name ?? '');
    const resource = await ensureCrd(transport, crd, tg.patienceMs);
    return {
      tg,
      transport,
      resource,
      client: new ResourceClient(transport, resource).namespace(tg.namespace),
    };
  };

  scenario(
    'tables: as=Table prints Name and the additionalPrinterColumns with their types and priorities; a path that reaches nothing is a null cell',
    timeout,
    async (t) => {
      const s = await setupWith(t, 'tablewidgets', 'TableWidget', {
        additionalPrinterColumns: [
          { name: 'Size', type: 'integer', jsonPath: '.spec.size' },
          { name: 'Tier', type: 'string', jsonPath: '.metadata.labels.tier', priority: 1 },
        ],
      });
      if (!s) return;
      const w = (name: string, size: number, tier?: string): Widget => {
        const o = widget(name, s.tg.namespace, s.resource, size);
        if (tier !== undefined) o.metadata = { ...o.metadata, labels: { tier } };
        return o;
      };
      await s.client.create(w('t1', 3, 'gold'));
      await s.client.create(w('t2', 5));
      const table = await s.transport.request<{
        kind: string;
        columnDefinitions: { name: string; type: string; format: string; priority: number }[];
        rows: { cells: unknown[]; object: { metadata?: { name?: string } } }[];
      }>({
        method: 'GET',
        path: `/apis/${s.resource.group}/v1/namespaces/${s.tg.namespace}/${s.resource.resource}`,
        accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
      });
      assert.equal(table.kind, 'Table');
      assert.deepEqual(
        table.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
        [
          ['Name', 'string', 'name', 0],
          ['Size', 'integer', '', 0],
          ['Tier', 'string', '', 1],
        ],
      );
      assert.deepEqual(
        table.rows.map((r) => r.cells),
        [
          ['t1', 3, 'gold'],
          ['t2', 5, null],
        ],
      );
      assert.deepEqual(
        table.rows.map((r) => r.object.metadata?.name),
        ['t1', 't2'],
      );
    },
  );

  scenario(
    'OpenAPI v3: the index lists the CRD group version and its document has the schema with its GVK, apiVersion, kind and ObjectMeta metadata',
    timeout,
    async (t) => {
      const tg0 = target();
      if (tg0?.name === 'real') {
        // Checked: the standalone apiextensions-apiserver's /openapi/v3 lists only its own
        // groups, never a CRD's (in a cluster, kube-apiserver's aggregator publishes them).
        t.skip('the standalone apiextensions-apiserver does not publish CRD OpenAPI v3 documents');
        return;
      }
      const s = await setupWith(t, 'openapiwidgets', 'OpenapiWidget', {});
      if (!s) return;
      const gv = `apis/${s.resource.group}/v1`;
      let url = '';
      await eventually(
        `/openapi/v3 lists ${gv}`,
        async () => {
          const index = await s.transport.request<{
            paths: Record<string, { serverRelativeURL: string }>;
          }>({ method: 'GET', path: '/openapi/v3' });
          url = index.paths[gv]?.serverRelativeURL ?? '';
          return url !== '';
        },
        s.tg.patienceMs,
      );
      const name = `${s.resource.group.split('.').reverse().join('.')}.v1.OpenapiWidget`;
      let schema: Record<string, unknown> | undefined;
      await eventually(
        `the ${gv} document has ${name}`,
        async () => {
          const [path, query] = url.split('?');
          const doc = await s.transport.request<{
            components?: { schemas?: Record<string, Record<string, unknown>> };
          }>({
            method: 'GET',
            path: path ?? url,
            query: Object.fromEntries(new URLSearchParams(query ?? '')),
          });
          schema = doc.components?.schemas?.[name];
          return schema !== undefined;
        },
        s.tg.patienceMs,
      );
      assert.ok(schema);
      assert.deepEqual(schema['x-kubernetes-group-version-kind'], [
        { group: s.resource.group, kind: 'OpenapiWidget', version: 'v1' },
      ]);
      const props = schema.properties as Record<string, Record<string, unknown>>;
      assert.equal(props.apiVersion?.type, 'string');
      assert.equal(props.kind?.type, 'string');
      assert.match(
        JSON.stringify(props.metadata),
        /#\/components\/schemas\/io\.k8s\.apimachinery\.pkg\.apis\.meta\.v1\.ObjectMeta/,
      );
      assert.deepEqual((props.spec?.properties as Record<string, Record<string, unknown>>).size, {
        type: 'integer',
      });
    },
  );
}

/** The schema of the server-side apply scenarios: a map list, a set, an atomic list. */
const gadgetSchema: Record<string, unknown> = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        replicas: { type: 'integer' },
        color: { type: 'string' },
        size: { type: 'string' },
        tags: { type: 'array', items: { type: 'string' }, 'x-kubernetes-list-type': 'set' },
        args: { type: 'array', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: {
            type: 'object',
            required: ['name'],
            properties: { name: { type: 'string' }, port: { type: 'integer' } },
          },
        },
      },
    },
    status: { type: 'object', properties: { phase: { type: 'string' } } },
  },
};

/** Per-test timeouts and selection (they must be known when the tests are defined). */
export interface ScenarioTimeouts {
  /** Every scenario but the watch-history one (default 120 s). */
  scenarioMs?: number;
  /** The scenario that expires watch history (default 120 s). */
  expireMs?: number;
  /**
   * The slow scenario (expiring watch history: ~80 s on the real server): `include` it
   * (default), `skip` it, or run `only` it — a test file must finish within the runner's
   * per-file timeout.
   */
  slow?: 'include' | 'skip' | 'only';
}

/** How a test file provides its target: made before the scenarios, released after them. */
export interface TargetProvider {
  /** Starts or finds the server; undefined (with `skipReason`) when there is none. */
  acquire(): Promise<{ target: ConformanceTarget | undefined; skipReason: string }>;
  /** Stops what `acquire` started. */
  release(): Promise<void>;
}

/**
 * Runs every scenario in a `describe` named for the target, acquiring it before and
 * releasing it after them (inside the describe, so the leak check runs afterwards).
 */
export function describeConformance(
  name: string,
  provider: TargetProvider,
  timeouts: ScenarioTimeouts = {},
): void {
  describe(`conformance: ${name}`, () => {
    let target: ConformanceTarget | undefined;
    let skip = 'no server';
    before(async () => {
      const got = await provider.acquire();
      target = got.target;
      skip = got.skipReason;
    });
    defineScenarios(
      () => target,
      () => skip,
      timeouts,
    );
    // After the scenarios' own cleanup (after hooks run in the order they were added).
    after(() => provider.release());
  });
}
