// Shared helpers for the leader election tests.
import { FakeClock } from '../../src/util/clock.js';
import { noopLogger } from '../../src/util/logger.js';
import { LeaderElector, LeaseLock } from '../../src/leaderelection/index.js';
import type { LeaderElectionConfig } from '../../src/leaderelection/index.js';
import { FakeLeaseStore } from './fake_lease_store.js';
import type { FakeLeaseClient } from './fake_lease_store.js';

export interface Candidate {
  id: string;
  client: FakeLeaseClient;
  lock: LeaseLock;
  elector: LeaderElector;
  events: string[];
  /** The signal onStartedLeading got, most recent first. */
  leadSignals: AbortSignal[];
  controller: AbortController;
  done: Promise<void> | undefined;
  start(): void;
  stop(): Promise<void>;
}

export function setup(start = Date.UTC(2026, 0, 1)): { clock: FakeClock; store: FakeLeaseStore } {
  const clock = new FakeClock(start);
  return { clock, store: new FakeLeaseStore(clock) };
}

export function candidate(
  clock: FakeClock,
  store: FakeLeaseStore,
  id: string,
  overrides: Partial<LeaderElectionConfig> = {},
): Candidate {
  const client = store.client(id);
  const lock = new LeaseLock(client, { namespace: 'ns', name: 'lease', identity: id });
  const events: string[] = [];
  const leadSignals: AbortSignal[] = [];
  const elector = new LeaderElector({
    lock,
    clock,
    logger: noopLogger,
    random: () => 0,
    callbacks: {
      onStartedLeading: (signal) => {
        events.push(`started@${clock.now()}`);
        leadSignals.unshift(signal);
        signal.addEventListener('abort', () => events.push(`lost@${clock.now()}`));
      },
      onStoppedLeading: () => {
        events.push(`stopped@${clock.now()}`);
      },
      onNewLeader: (leader) => {
        events.push(`leader=${leader}`);
      },
    },
    ...overrides,
  });
  const c: Candidate = {
    id,
    client,
    lock,
    elector,
    events,
    leadSignals,
    controller: new AbortController(),
    done: undefined,
    start() {
      c.controller = new AbortController();
      c.done = elector.run(c.controller.signal);
    },
    async stop() {
      c.controller.abort();
      await clock.advance(0);
      await c.done;
    },
  };
  return c;
}
