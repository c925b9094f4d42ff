import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  and,
  annotationsChanged,
  generationChanged,
  labelsChanged,
  not,
  or,
  ownerKeys,
} from '../../src/controller/index.js';
import { obj } from './support.js';

describe('update predicates', () => {
  test('generationChanged is true only when metadata.generation differs', () => {
    assert.equal(generationChanged(obj('a', { generation: 1 }), obj('a', { generation: 2 })), true);
    assert.equal(
      generationChanged(
        obj('a', { generation: 1 }),
        obj('a', { generation: 1, labels: { x: 'y' } }),
      ),
      false,
    );
    assert.equal(generationChanged(obj('a'), obj('a')), false, 'no generation on either side');
  });

  test('generationChanged is true when deletion starts, even without a generation bump', () => {
    const ts = '2026-01-01T00:00:00Z';
    assert.equal(generationChanged(obj('a'), obj('a', { deletionTimestamp: ts })), true);
    assert.equal(
      generationChanged(
        obj('a', { deletionTimestamp: ts }),
        obj('a', { deletionTimestamp: ts, labels: { x: 'y' } }),
      ),
      false,
      'already deleting',
    );
  });

  test('labelsChanged compares label maps ignoring key order, absent equal to empty', () => {
    assert.equal(
      labelsChanged(
        obj('a', { labels: { a: '1', b: '2' } }),
        obj('a', { labels: { b: '2', a: '1' } }),
      ),
      false,
    );
    assert.equal(labelsChanged(obj('a', { labels: {} }), obj('a')), false);
    assert.equal(
      labelsChanged(obj('a', { labels: { a: '1' } }), obj('a', { labels: { a: '2' } })),
      true,
    );
    assert.equal(
      labelsChanged(obj('a', { labels: { a: '1' } }), obj('a', { labels: { b: '1' } })),
      true,
    );
    assert.equal(labelsChanged(obj('a'), obj('a', { labels: { a: '1' } })), true);
  });

  test('annotationsChanged compares annotation maps and ignores labels', () => {
    assert.equal(
      annotationsChanged(
        obj('a', { annotations: { n: 'v' } }),
        obj('a', { annotations: { n: 'w' } }),
      ),
      true,
    );
    assert.equal(
      annotationsChanged(obj('a', { labels: { a: '1' } }), obj('a', { labels: { a: '2' } })),
      false,
    );
  });

  test('and/or/not combine predicates; and() of nothing is true, or() of nothing is false', () => {
    const o = obj('a', { generation: 1, labels: { a: '1' } });
    const specOnly = obj('a', { generation: 2, labels: { a: '1' } });
    const labelsOnly = obj('a', { generation: 1, labels: { a: '2' } });
    assert.equal(or(generationChanged, labelsChanged)(o, specOnly), true);
    assert.equal(or(generationChanged, labelsChanged)(o, labelsOnly), true);
    assert.equal(or(generationChanged, labelsChanged)(o, o), false);
    assert.equal(and(generationChanged, labelsChanged)(o, specOnly), false);
    assert.equal(and(generationChanged, not(labelsChanged))(o, specOnly), true);
    assert.equal(and()(o, o), true);
    assert.equal(or()(o, o), false);
  });
});

describe('ownerKeys', () => {
  const ref = (name: string, extra: object = {}) => ({
    apiVersion: 'example.com/v1',
    kind: 'App',
    name,
    uid: `u-${name}`,
    controller: true,
    ...extra,
  });

  test('maps the controller owner reference of the kind to namespace/name', () => {
    assert.deepEqual(
      ownerKeys(obj('c', { ownerReferences: [ref('web')] }, 'prod'), { kind: 'App' }),
      ['prod/web'],
    );
  });

  test('ignores other kinds, non-controller references and objects without owners', () => {
    const child = obj('c', {
      ownerReferences: [
        ref('x', { kind: 'Other' }),
        ref('y', { controller: false }),
        ref('z', { controller: undefined }),
      ],
    });
    assert.deepEqual(ownerKeys(child, { kind: 'App' }), []);
    assert.deepEqual(ownerKeys(obj('lonely'), { kind: 'App' }), []);
  });

  test('compares only the group of apiVersion, so another version of the owner still matches', () => {
    const child = obj('c', {
      ownerReferences: [ref('web', { apiVersion: 'example.com/v1beta1' })],
    });
    assert.deepEqual(ownerKeys(child, { kind: 'App', apiVersion: 'example.com/v1' }), [
      'default/web',
    ]);
    assert.deepEqual(ownerKeys(child, { kind: 'App', apiVersion: 'other.io/v1' }), []);
    const core = obj('c', { ownerReferences: [ref('n', { kind: 'Node', apiVersion: 'v1' })] });
    assert.deepEqual(ownerKeys(core, { kind: 'Node', apiVersion: 'v1' }), ['default/n']);
    assert.deepEqual(ownerKeys(core, { kind: 'Node', apiVersion: 'apps/v1' }), []);
  });

  test('onlyController: false follows every owner of the kind; clusterScoped drops the namespace', () => {
    const child = obj('c', {
      ownerReferences: [ref('a', { controller: false }), ref('b'), ref('b')],
    });
    assert.deepEqual(ownerKeys(child, { kind: 'App', onlyController: false }), [
      'default/a',
      'default/b',
    ]);
    assert.deepEqual(ownerKeys(child, { kind: 'App', clusterScoped: true }), ['b']);
  });
});
