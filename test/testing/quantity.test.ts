// Kubernetes quantities as the test server compares them for a Pod's QoS class
// (k8s.io/apimachinery `pkg/api/resource`: a signed decimal, then a binary SI suffix, a
// decimal SI suffix or a decimal exponent; equal values compare equal in any spelling).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity } from '../../packages/testing/src/defaults/qos.js';

const value = (q: unknown): number | undefined => {
  const r = parseQuantity(q);
  return r === undefined ? undefined : Number(r.num) / Number(r.den);
};

describe('parseQuantity (resource.Quantity)', () => {
  it('binary SI, decimal SI and exponent suffixes give exact values', () => {
    assert.equal(value('1.5Gi'), 1.5 * 2 ** 30);
    assert.equal(value('1536Mi'), 1.5 * 2 ** 30);
    assert.equal(value('500m'), 0.5);
    assert.equal(value('.5'), 0.5);
    assert.equal(value('1e3'), 1000);
    assert.equal(value('1E-3'), 0.001);
    assert.equal(value('2k'), 2000);
    assert.equal(value('100n'), 1e-7);
    assert.equal(value('-1'), -1);
    assert.equal(value('+3M'), 3e6);
    assert.equal(value(2), 2);
  });

  it('anything else is not a quantity', () => {
    for (const bad of ['', 'abc', '1Kb', '1 Gi', '1.2.3', '.', 'Gi', '1e', null, {}, Infinity]) {
      assert.equal(parseQuantity(bad), undefined, JSON.stringify(bad));
    }
  });
});
