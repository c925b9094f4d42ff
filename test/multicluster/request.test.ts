// The multicluster request (multicluster-runtime's mcreconcile.Request: a request plus its
// cluster name) and its queue key, `cluster://<cluster>/<namespace>/<name>` as
// multicluster-runtime's Request.String() writes it.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  InvalidClusterRequestError,
  LOCAL_CLUSTER,
  clusterOfKey,
  isValidClusterName,
  parseRequestKey,
  requestKey,
} from '../../src/multicluster/index.js';

describe('ClusterRequest keys', () => {
  test("the key is multicluster-runtime's String(): cluster://<cluster>/<namespace>/<name>", () => {
    assert.equal(
      requestKey({ cluster: 'member-a', namespace: 'default', name: 'settings' }),
      'cluster://member-a/default/settings',
    );
    assert.equal(
      requestKey({ cluster: LOCAL_CLUSTER, namespace: '', name: 'node-1' }),
      'cluster:////node-1',
    );
  });

  test('a cluster name with "/" (Cluster API names clusters <namespace>/<name>) round-trips', () => {
    const request = { cluster: 'fleet/prod-eu', namespace: 'kube-system', name: 'cfg' };
    const key = requestKey(request);
    assert.deepEqual(parseRequestKey(key), request);
    assert.equal(clusterOfKey(key), 'fleet/prod-eu');
  });

  test('every request round-trips through its key (property)', () => {
    const dns = fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,20}[a-z0-9])?$/);
    const cluster = fc.oneof(
      fc.constant(''),
      fc.stringMatching(/^[A-Za-z0-9]([A-Za-z0-9._-]{0,10}(\/[A-Za-z0-9._-]{1,10})?)?$/),
    );
    fc.assert(
      fc.property(cluster, fc.oneof(fc.constant(''), dns), dns, (c, namespace, name) => {
        const request = { cluster: c, namespace, name };
        const key = requestKey(request);
        assert.deepEqual(parseRequestKey(key), request);
        assert.equal(clusterOfKey(key), c);
      }),
    );
  });

  test('a namespace or a name holding "/" or an empty name is refused with a typed error, not a wrong key', () => {
    assert.throws(
      () => requestKey({ cluster: 'a', namespace: 'x/y', name: 'n' }),
      InvalidClusterRequestError,
    );
    assert.throws(
      () => requestKey({ cluster: 'a', namespace: 'default', name: 'a/b' }),
      InvalidClusterRequestError,
    );
    assert.throws(
      () => requestKey({ cluster: 'a', namespace: 'default', name: '' }),
      InvalidClusterRequestError,
    );
  });

  test('a string that is not a request key is refused; clusterOfKey says undefined', () => {
    for (const bad of ['default/x', 'cluster://only', 'cluster://a/ns/', '']) {
      assert.throws(() => parseRequestKey(bad), InvalidClusterRequestError, bad);
    }
    assert.equal(clusterOfKey('default/x'), undefined);
  });

  test('cluster names: letters, digits, . _ - and /, at most 253, starting and ending alphanumeric', () => {
    for (const ok of ['a', 'member-a', 'fleet/prod-eu', 'kind-1.local', 'A_b']) {
      assert.ok(isValidClusterName(ok), ok);
    }
    for (const bad of ['', '-a', 'a-', 'a b', 'a//b', '../x', 'x'.repeat(254), 'a\nb', 'é']) {
      assert.ok(!isValidClusterName(bad), JSON.stringify(bad));
    }
  });
});
