// Patch application: RFC 7386 merge patch, RFC 6902 JSON patch, strategic-merge subset.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  applyJsonPatch,
  applyMergePatch,
  PatchError,
  strategicMerge,
} from '../../packages/testing/src/patch.js';

describe('patch', () => {
  it('merge patch: null deletes a key, objects merge, arrays replace', () => {
    const out = applyMergePatch(
      { a: 1, b: { c: 2, d: 3 }, l: [1, 2] },
      { a: null, b: { c: 5 }, l: [3] },
    );
    assert.deepEqual(out, { b: { c: 5, d: 3 }, l: [3] });
  });

  it('merge patch does not modify its input', () => {
    const target = { b: { c: 2 } };
    applyMergePatch(target, { b: { c: 3 } });
    assert.deepEqual(target, { b: { c: 2 } });
  });

  it('JSON patch: add, replace, remove, move, copy and array append', () => {
    const out = applyJsonPatch({ a: { b: 1 }, l: [1] }, [
      { op: 'add', path: '/a/c', value: 2 },
      { op: 'replace', path: '/a/b', value: 9 },
      { op: 'add', path: '/l/-', value: 2 },
      { op: 'copy', from: '/a/b', path: '/x' },
      { op: 'move', from: '/a/c', path: '/y' },
      { op: 'remove', path: '/l/0' },
    ]);
    assert.deepEqual(out, { a: { b: 9 }, l: [2], x: 9, y: 2 });
  });

  it('JSON patch test failure throws a 422 PatchError naming the path', () => {
    assert.throws(
      () => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '/a', value: 2 }]),
      (err: unknown) =>
        err instanceof PatchError &&
        err.code === 422 &&
        /testing value \/a failed/.test(err.message),
    );
  });

  it('JSON patch escapes ~1 and ~0 in pointers', () => {
    const out = applyJsonPatch({ m: { 'a/b': 1, 'c~d': 2 } }, [
      { op: 'replace', path: '/m/a~1b', value: 3 },
      { op: 'remove', path: '/m/c~0d' },
    ]);
    assert.deepEqual(out, { m: { 'a/b': 3 } });
  });

  it('JSON patch that is not an array is a 400 PatchError', () => {
    assert.throws(
      () => applyJsonPatch({}, { op: 'add' }),
      (err: unknown) => err instanceof PatchError && err.code === 400,
    );
  });

  it('strategic merge merges containers by name and honours $patch: delete', () => {
    const pod = {
      spec: {
        containers: [
          { name: 'a', image: '1' },
          { name: 'b', image: '1' },
        ],
      },
    };
    const out = strategicMerge(pod, {
      spec: {
        containers: [
          { name: 'b', image: '2' },
          { name: 'a', $patch: 'delete' },
          { name: 'c', image: '3' },
        ],
      },
    });
    assert.deepEqual(out, {
      spec: {
        containers: [
          { name: 'b', image: '2' },
          { name: 'c', image: '3' },
        ],
      },
    });
  });

  it('strategic merge unions finalizers and applies $deleteFromPrimitiveList', () => {
    const out = strategicMerge(
      { metadata: { finalizers: ['a', 'b'] } },
      { metadata: { finalizers: ['c'], '$deleteFromPrimitiveList/finalizers': ['a'] } },
    );
    assert.deepEqual(out, { metadata: { finalizers: ['b', 'c'] } });
  });

  it('strategic merge $patch: replace replaces the whole map', () => {
    assert.deepEqual(
      strategicMerge({ data: { a: '1', b: '2' } }, { data: { $patch: 'replace', c: '3' } }),
      { data: { c: '3' } },
    );
  });
});
