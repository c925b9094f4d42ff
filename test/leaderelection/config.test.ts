import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  LeaderElectionConfigError,
  LeaseLock,
  validateLeaderElectionConfig,
  formatMicroTime,
} from '../../src/leaderelection/index.js';
import type { LeaderElectionConfig } from '../../src/leaderelection/index.js';
import { setup } from './helpers.js';

function base(overrides: Partial<LeaderElectionConfig> = {}): LeaderElectionConfig {
  const { store } = setup();
  return {
    lock: new LeaseLock(store.client('a'), { namespace: 'ns', name: 'lease', identity: 'a' }),
    callbacks: { onStartedLeading: () => {}, onStoppedLeading: () => {} },
    ...overrides,
  };
}

function rejects(config: LeaderElectionConfig, rule: string): void {
  assert.throws(
    () => validateLeaderElectionConfig(config),
    (err: unknown) =>
      err instanceof LeaderElectionConfigError && err.rule === rule && err.message.includes(rule),
  );
}

describe('leader election config', () => {
  test('defaults are 15 s lease, 10 s renew deadline, 2 s retry period, no release', () => {
    const c = validateLeaderElectionConfig(base());
    assert.equal(c.leaseDurationMs, 15_000);
    assert.equal(c.renewDeadlineMs, 10_000);
    assert.equal(c.retryPeriodMs, 2_000);
    assert.equal(c.releaseOnCancel, false);
    assert.equal(c.name, 'ns/lease');
  });

  test('leaseDuration equal to renewDeadline is rejected by the leaseDuration > renewDeadline rule', () => {
    rejects(
      base({ leaseDurationMs: 10_000, renewDeadlineMs: 10_000 }),
      'leaseDuration > renewDeadline',
    );
  });

  test('renewDeadline not above 1.2 × retryPeriod is rejected', () => {
    rejects(
      base({ renewDeadlineMs: 2_400, retryPeriodMs: 2_000 }),
      'renewDeadline > 1.2 × retryPeriod',
    );
    assert.doesNotThrow(() =>
      validateLeaderElectionConfig(base({ renewDeadlineMs: 2_401, retryPeriodMs: 2_000 })),
    );
  });

  test('zero, negative or NaN durations are rejected by the > 0 rules', () => {
    rejects(base({ retryPeriodMs: 0 }), 'retryPeriod > 0');
    rejects(base({ renewDeadlineMs: -1 }), 'renewDeadline > 0');
    rejects(base({ leaseDurationMs: Number.NaN }), 'leaseDuration > 0');
  });

  test('a lease duration under one second is rejected because the Lease stores whole seconds', () => {
    rejects(
      base({ leaseDurationMs: 900, renewDeadlineMs: 500, retryPeriodMs: 100 }),
      'leaseDuration >= 1s',
    );
  });

  test('an empty identity is rejected', () => {
    const { store } = setup();
    rejects(
      base({
        lock: new LeaseLock(store.client(''), { namespace: 'ns', name: 'lease', identity: '' }),
      }),
      'lock identity non-empty',
    );
  });

  test('missing onStartedLeading or onStoppedLeading is rejected', () => {
    rejects(
      base({
        callbacks: { onStoppedLeading: () => {} } as unknown as LeaderElectionConfig['callbacks'],
      }),
      'onStartedLeading set',
    );
    rejects(
      base({
        callbacks: { onStartedLeading: () => {} } as unknown as LeaderElectionConfig['callbacks'],
      }),
      'onStoppedLeading set',
    );
  });

  test('MicroTime strings are RFC 3339 UTC with six fractional digits', () => {
    assert.equal(formatMicroTime(Date.UTC(2026, 0, 1)), '2026-01-01T00:00:00.000000Z');
    assert.equal(
      formatMicroTime(Date.UTC(2026, 4, 6, 7, 8, 9, 123)),
      '2026-05-06T07:08:09.123000Z',
    );
  });
});
