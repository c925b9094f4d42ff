import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DeletedFinalStateUnknown,
  KeyError,
  UnexpectedKeyFormatError,
  deletionHandlingMetaNamespaceKeyFunc,
  explicitKey,
  metaNamespaceKeyFunc,
  objectKey,
  splitMetaNamespaceKey,
} from '../../src/cache/keys.js';
import { KubeControllerKitError } from '../../src/util/errors.js';

describe('metaNamespaceKeyFunc', () => {
  test('a namespaced object is keyed namespace/name', () => {
    assert.equal(metaNamespaceKeyFunc({ metadata: { namespace: 'ns', name: 'a' } }), 'ns/a');
  });

  test('a cluster-scoped object (no or empty namespace) is keyed by its name', () => {
    assert.equal(metaNamespaceKeyFunc({ metadata: { name: 'node-1' } }), 'node-1');
    assert.equal(metaNamespaceKeyFunc({ metadata: { name: 'node-1', namespace: '' } }), 'node-1');
  });

  test('an explicit key (a string) is returned unchanged', () => {
    assert.equal(metaNamespaceKeyFunc(explicitKey('ns/x')), 'ns/x');
    assert.equal(metaNamespaceKeyFunc('a/b/c'), 'a/b/c');
  });

  test('an object without metadata fails with a KeyError that says object has no meta', () => {
    const obj = { kind: 'Pod' };
    assert.throws(
      () => metaNamespaceKeyFunc(obj),
      (err: unknown) =>
        err instanceof KeyError &&
        err instanceof KubeControllerKitError &&
        err.obj === obj &&
        /couldn't create key for object Pod .*object has no meta/.test(err.message),
    );
  });

  test('null, numbers and non-objects fail with a KeyError', () => {
    for (const bad of [null, undefined, 42, true]) {
      assert.throws(() => metaNamespaceKeyFunc(bad), KeyError);
    }
  });

  test('a non-string name fails with a KeyError naming the type', () => {
    assert.throws(
      () => metaNamespaceKeyFunc({ metadata: { name: 7 } }),
      (err: unknown) => err instanceof KeyError && /metadata\.name is a number/.test(err.message),
    );
    assert.throws(
      () => metaNamespaceKeyFunc({ metadata: {} }),
      (err: unknown) => err instanceof KeyError && /metadata\.name is missing/.test(err.message),
    );
  });

  test('a non-string namespace fails with a KeyError', () => {
    assert.throws(
      () => metaNamespaceKeyFunc({ metadata: { name: 'a', namespace: { x: 1 } } }),
      (err: unknown) =>
        err instanceof KeyError && /metadata\.namespace is a object/.test(err.message),
    );
  });
});

describe('deletionHandlingMetaNamespaceKeyFunc', () => {
  test('a DeletedFinalStateUnknown gives its stored key, not the object key', () => {
    const tomb = new DeletedFinalStateUnknown('ns/old', {
      metadata: { namespace: 'x', name: 'y' },
    });
    assert.equal(deletionHandlingMetaNamespaceKeyFunc(tomb), 'ns/old');
    assert.equal(tomb.obj.metadata.name, 'y');
  });

  test('anything else is keyed like metaNamespaceKeyFunc', () => {
    assert.equal(
      deletionHandlingMetaNamespaceKeyFunc({ metadata: { namespace: 'n', name: 'a' } }),
      'n/a',
    );
    assert.throws(() => deletionHandlingMetaNamespaceKeyFunc({}), KeyError);
  });
});

describe('splitMetaNamespaceKey', () => {
  test('one part is a cluster-scoped name', () => {
    assert.deepEqual(splitMetaNamespaceKey('name'), ['', 'name']);
  });

  test('the empty key gives two empty parts and no error', () => {
    assert.deepEqual(splitMetaNamespaceKey(''), ['', '']);
  });

  test('two parts are namespace and name', () => {
    assert.deepEqual(splitMetaNamespaceKey('ns/name'), ['ns', 'name']);
  });

  test('"/x" gives an empty namespace and name x', () => {
    assert.deepEqual(splitMetaNamespaceKey('/x'), ['', 'x']);
  });

  test('"x/" gives namespace x and an empty name', () => {
    assert.deepEqual(splitMetaNamespaceKey('x/'), ['x', '']);
  });

  test('splitMetaNamespaceKey of a/b/c fails with an unexpected-key-format error', () => {
    assert.throws(
      () => splitMetaNamespaceKey('a/b/c'),
      (err: unknown) =>
        err instanceof UnexpectedKeyFormatError &&
        err.key === 'a/b/c' &&
        err.message.startsWith('unexpected key format: "a/b/c"'),
    );
    assert.throws(() => splitMetaNamespaceKey('//'), UnexpectedKeyFormatError);
  });

  test('objectKey and splitMetaNamespaceKey are inverses', () => {
    for (const [ns, name] of [
      ['', 'a'],
      ['ns', 'b'],
    ] as const) {
      assert.deepEqual(splitMetaNamespaceKey(objectKey(ns, name)), [ns, name]);
    }
  });
});
