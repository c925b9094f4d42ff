// The sharded-operator example, run as its README says: the program starts the in-memory
// server, a sharder and three replica processes, lets a fourth join and the first leave.
// Its stdout is one JSON line per reconcile; from those lines alone: no Widget is ever
// reconciled by two shards at overlapping times, every Widget is reconciled, all four
// replicas worked, and the program exits 0 with nothing else on stdout. Both modes:
// `--mode=labels` (a sharder labels Widgets) and `--mode=server` (KEP-5866: replicas watch
// hash ranges with a shardSelector; no sharder, no labels).
import { spawn } from 'node:child_process';
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { assertNoOverlap } from '../sharding/harness.js';
import type { Interval } from '../sharding/harness.js';

describe('sharded-operator example', { timeout: 240_000 }, () => {
  for (const mode of ['labels', 'server'] as const)
    test(`--mode=${mode} prints one JSON line per reconcile from which the no-overlap invariant checks out`, async () => {
      const child = spawn(
        process.execPath,
        [
          '--import',
          'tsx',
          'examples/sharded-operator/src/main.ts',
          '--widgets',
          '24',
          '--mode',
          mode,
        ],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const code = await new Promise<number | null>((r) => child.once('close', r));
      assert.equal(code, 0, `exit ${String(code)}; stderr:\n${stderr}`);
      const lines = stdout.trim().split('\n');
      const intervals: Interval[] = lines.map((line) => {
        const parsed = JSON.parse(line) as Interval;
        assert.deepEqual(Object.keys(parsed).sort(), ['end', 'key', 'shard', 'start'], line);
        assert.ok(parsed.end >= parsed.start);
        return parsed;
      });
      assertNoOverlap(intervals);
      assert.equal(new Set(intervals.map((i) => i.key)).size, 24);
      assert.deepEqual([...new Set(intervals.map((i) => i.shard))].sort(), [
        'replica-0',
        'replica-1',
        'replica-2',
        'replica-3',
      ]);
      assert.match(stderr, /settled: a replica joined/);
      assert.match(stderr, /settled: replica-0 left/);
    });

  test("rule (least privilege, rbac.yaml): on a real cluster the replicas never get the sharder's credentials; without --replica-kubeconfig the program refuses to start", async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'examples/sharded-operator/src/main.ts',
        '--kubeconfig',
        '/nonexistent/sharder.kubeconfig',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((r) => child.once('close', r));
    assert.notEqual(code, 0);
    assert.match(stderr, /--replica-kubeconfig is required with --kubeconfig/);
    assert.doesNotMatch(stderr, /started a replica/);
    assert.equal(stdout, '');
  });
});
