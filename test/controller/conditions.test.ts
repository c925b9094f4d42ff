import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  findStatusCondition,
  isStatusConditionFalse,
  isStatusConditionPresentAndEqual,
  isStatusConditionTrue,
  removeStatusCondition,
  setStatusCondition,
} from '../../src/controller/index.js';
import type { Condition } from '../../src/controller/index.js';
import { FakeClock } from '../../src/util/clock.js';

const T0 = '2026-01-01T00:00:00Z';

describe('status conditions (apimachinery meta.SetStatusCondition)', () => {
  test('a new condition is appended with lastTransitionTime now (whole seconds) and message defaulting to empty', () => {
    const clock = new FakeClock(Date.parse('2026-01-01T00:00:00.750Z'));
    const conditions: Condition[] = [];
    const changed = setStatusCondition(
      conditions,
      { type: 'Ready', status: 'False', reason: 'Starting' },
      { clock },
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions, [
      { type: 'Ready', status: 'False', reason: 'Starting', message: '', lastTransitionTime: T0 },
    ]);
  });

  test('a given lastTransitionTime is used for a new condition', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, {
      type: 'Ready',
      status: 'True',
      reason: 'Up',
      lastTransitionTime: '2025-06-01T10:00:00Z',
    });
    assert.equal(conditions[0]?.lastTransitionTime, '2025-06-01T10:00:00Z');
  });

  test('lastTransitionTime does not move when only reason, message or observedGeneration change', async () => {
    const clock = new FakeClock(Date.parse(T0));
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'A' }, { clock });
    await clock.advance(60_000);
    const changed = setStatusCondition(
      conditions,
      { type: 'Ready', status: 'True', reason: 'B', message: 'm', observedGeneration: 4 },
      { clock },
    );
    assert.equal(changed, true);
    assert.deepEqual(conditions[0], {
      type: 'Ready',
      status: 'True',
      reason: 'B',
      message: 'm',
      observedGeneration: 4,
      lastTransitionTime: T0,
    });
  });

  test('lastTransitionTime moves to now when the status changes', async () => {
    const clock = new FakeClock(Date.parse(T0));
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'A' }, { clock });
    await clock.advance(90_000);
    setStatusCondition(conditions, { type: 'Ready', status: 'False', reason: 'A' }, { clock });
    assert.equal(conditions[0]?.lastTransitionTime, '2026-01-01T00:01:30Z');
    assert.equal(conditions[0]?.status, 'False');
  });

  test('setting an identical condition reports no change and touches nothing', async () => {
    const clock = new FakeClock(Date.parse(T0));
    const conditions: Condition[] = [];
    const input = {
      type: 'Ready',
      status: 'True',
      reason: 'A',
      message: 'x',
      observedGeneration: 2,
    };
    setStatusCondition(conditions, input, { clock });
    const before = structuredClone(conditions);
    await clock.advance(5_000);
    assert.equal(setStatusCondition(conditions, input, { clock }), false);
    assert.deepEqual(conditions, before);
  });

  test('conditions of other types are left alone and order is kept', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'A', status: 'True', reason: 'r' });
    setStatusCondition(conditions, { type: 'B', status: 'True', reason: 'r' });
    setStatusCondition(conditions, { type: 'A', status: 'False', reason: 'r' });
    assert.deepEqual(
      conditions.map((c) => `${c.type}=${c.status}`),
      ['A=False', 'B=True'],
    );
  });

  test('find returns the condition of the type, or undefined', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'r' });
    assert.equal(findStatusCondition(conditions, 'Ready')?.status, 'True');
    assert.equal(findStatusCondition(conditions, 'Other'), undefined);
    assert.equal(findStatusCondition(undefined, 'Ready'), undefined);
  });

  test('isTrue / isFalse / isPresentAndEqual read the status of a present condition only', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'Ready', status: 'True', reason: 'r' });
    setStatusCondition(conditions, { type: 'Degraded', status: 'False', reason: 'r' });
    setStatusCondition(conditions, { type: 'Progressing', status: 'Unknown', reason: 'r' });
    assert.equal(isStatusConditionTrue(conditions, 'Ready'), true);
    assert.equal(isStatusConditionFalse(conditions, 'Ready'), false);
    assert.equal(isStatusConditionFalse(conditions, 'Degraded'), true);
    assert.equal(isStatusConditionTrue(conditions, 'Progressing'), false);
    assert.equal(isStatusConditionFalse(conditions, 'Progressing'), false);
    assert.equal(isStatusConditionPresentAndEqual(conditions, 'Progressing', 'Unknown'), true);
    assert.equal(isStatusConditionTrue(conditions, 'Missing'), false);
    assert.equal(isStatusConditionFalse(conditions, 'Missing'), false);
  });

  test('remove deletes the condition of the type and reports whether one was there', () => {
    const conditions: Condition[] = [];
    setStatusCondition(conditions, { type: 'A', status: 'True', reason: 'r' });
    setStatusCondition(conditions, { type: 'B', status: 'True', reason: 'r' });
    assert.equal(removeStatusCondition(conditions, 'A'), true);
    assert.equal(removeStatusCondition(conditions, 'A'), false);
    assert.deepEqual(
      conditions.map((c) => c.type),
      ['B'],
    );
  });
});
