// The soak script (scripts/soak.ts): a tiny run end to end against the server child
// process, and the pure parts (argument parsing, the heap slope, the verdict's text).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  defaultSoakOptions,
  formatSoakReport,
  FLAT_THRESHOLD_PER_MINUTE,
  heapSlope,
  parseSoakArgs,
  runSoak,
  soakVerdict,
} from '../../scripts/soak.js';
import type { SoakSample } from '../../scripts/soak.js';

function sample(seconds: number, heapUsed: number): SoakSample {
  return {
    seconds,
    heapUsed,
    rss: 0,
    eventsApplied: 0,
    eventsWritten: 0,
    queueDepth: 0,
    cacheSize: 0,
    relists: 0,
    reconciles: 0,
  };
}

describe('soak script', () => {
  test('a short soak applies events, forces relists, converges to the server and reports every sample', async () => {
    const report = await runSoak({
      minutes: 0.05,
      sampleSeconds: 1,
      rate: 200,
      objects: 200,
      relistSeconds: 1,
      workers: 2,
    });
    assert.equal(report.stoppedEarly, false);
    assert.ok(report.samples.length >= 2, `samples: ${report.samples.length}`);
    for (const s of report.samples) {
      assert.ok(s.heapUsed > 0 && s.rss >= s.heapUsed, 'heapUsed and rss are sampled');
      assert.ok(s.cacheSize > 0, 'the caches hold the working set');
    }
    const last = report.samples.at(-1)!;
    assert.ok(last.eventsWritten > 200, `written: ${last.eventsWritten}`);
    // The initial list (200 adds) plus the watch events after it.
    assert.ok(last.eventsApplied > 200, `applied: ${last.eventsApplied}`);
    assert.ok(report.reconciles > 0);
    assert.ok(report.relists.forced >= 2, `forced: ${report.relists.forced}`);
    // Each forced relist makes both informers list again.
    assert.ok(report.relists.done >= 2, `relists done: ${report.relists.done}`);
    assert.equal(report.converged, true, 'the caches equal the server at the end');
    assert.equal(report.errorCount, 0, report.loggedErrors.join('\n'));
    assert.ok(report.writtenPerSecond > 100, `written/s: ${report.writtenPerSecond}`);
    const text = formatSoakReport(report);
    assert.match(text, /heap slope|not enough samples/);
    assert.match(text, /^verdict: (flat|growing|inconclusive)/m);
    assert.match(text, /converged to the server's \d+ objects/);
    // The JSON form is plain data.
    assert.deepEqual(JSON.parse(JSON.stringify(report)).samples.length, report.samples.length);
  });

  test('the heap slope is the least-squares fit over the samples after the warm-up, in KB/min', () => {
    // Warm-up sample far off the line; then +2048 bytes per minute exactly.
    const samples = [
      sample(60, 99e6),
      sample(120, 10_000_000 + 2 * 2048),
      sample(180, 10_000_000 + 3 * 2048),
      sample(240, 10_000_000 + 4 * 2048),
    ];
    const slope = heapSlope(samples)!;
    assert.equal(slope.points, 3);
    assert.ok(Math.abs(slope.kbPerMinute - 2) < 1e-9, `slope ${slope.kbPerMinute}`);
    assert.ok(Math.abs(slope.stderrKbPerMinute) < 1e-9);
    assert.equal(heapSlope(samples.slice(0, 2)), undefined, 'one point after warm-up: no slope');
  });

  test('the verdict is flat below 0.25% of the mean heap per minute, growing above, inconclusive on too few samples', () => {
    assert.equal(FLAT_THRESHOLD_PER_MINUTE, 0.0025);
    const mean = 48 * 1024 * 1024; // threshold 0.25% of 48 MB = 122.88 KB/min
    const fit = (kbPerMinute: number, points = 10) => ({
      kbPerMinute,
      stderrKbPerMinute: 1,
      points,
      meanHeapUsed: mean,
    });
    assert.equal(soakVerdict(fit(100)).verdict, 'flat');
    assert.equal(soakVerdict(fit(-50)).verdict, 'flat');
    assert.equal(soakVerdict(fit(130)).verdict, 'growing');
    // One 16-byte object kept per event at 1000 events/s: ~940 KB/min.
    assert.equal(soakVerdict(fit((16 * 1000 * 60) / 1024)).verdict, 'growing');
    assert.ok(Math.abs(soakVerdict(fit(0)).thresholdKbPerMinute! - 122.88) < 1e-9);
    assert.equal(soakVerdict(fit(0, 2)).verdict, 'inconclusive');
    assert.equal(soakVerdict(undefined).verdict, 'inconclusive');
  });

  test('the arguments default to the issue’s 30 minutes at 1000 events/s and reject nonsense', () => {
    const { options, json } = parseSoakArgs([]);
    assert.equal(json, false);
    assert.deepEqual(options, {
      minutes: defaultSoakOptions.minutes,
      rate: defaultSoakOptions.rate,
      sampleSeconds: defaultSoakOptions.sampleSeconds,
      objects: defaultSoakOptions.objects,
      relistSeconds: defaultSoakOptions.relistSeconds,
      workers: defaultSoakOptions.workers,
    });
    assert.equal(options.minutes, 30);
    assert.equal(options.rate, 1000);
    const parsed = parseSoakArgs(['--minutes', '0.5', '--rate', '200', '--json']);
    assert.equal(parsed.options.minutes, 0.5);
    assert.equal(parsed.options.rate, 200);
    assert.equal(parsed.json, true);
    assert.throws(() => parseSoakArgs(['--rate', 'fast']), /--rate must be a number/);
    assert.throws(() => parseSoakArgs(['--bogus']));
  });
});
