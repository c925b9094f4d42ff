// The default field manager of a write is its User-Agent up to the first `/`, printable
// characters only, at most 128 bytes (kube-apiserver's prefixFromUserAgent in
// endpoints/handlers/rest.go). The last answer is kept: a different User-Agent in between
// must not return the kept one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  FIELD_MANAGER_MAX_LENGTH,
  prefixFromUserAgent,
} from '../../../packages/testing/src/fieldmanager/options.js';

describe('prefixFromUserAgent (kube-apiserver: the User-Agent before its first /)', () => {
  it('answers each User-Agent, alternating, as it would the first time', () => {
    for (let i = 0; i < 3; i++) {
      assert.equal(prefixFromUserAgent('kubectl/v1.34.0 (linux/amd64)'), 'kubectl');
      assert.equal(prefixFromUserAgent('kubectl/v1.34.0 (linux/amd64)'), 'kubectl');
      assert.equal(prefixFromUserAgent('bench\u0007ctl/x'), 'benchctl');
      assert.equal(prefixFromUserAgent(''), '');
    }
  });

  it('cuts at 128 bytes', () => {
    assert.equal(prefixFromUserAgent('é'.repeat(100)).length, FIELD_MANAGER_MAX_LENGTH / 2);
  });
});
