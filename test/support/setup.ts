// Loaded into every test file's process (see scripts/run-tests.mjs).
//
// Leak check: after a file's tests have finished, no socket, server, child process or timer
// the tests started may remain (even one the tests never stopped: a process must be able
// to exit). A leak fails the file, naming what was left open.
import { after } from 'node:test';
import { setDefaultMetricsProvider } from '../../src/workqueue/metrics.js';
import type { MetricsProvider } from '../../src/workqueue/metrics.js';

// The examples and the Manager run with work-queue metrics on, as docs/manager.md
// recommends for an operator, so that the leak check below also sees what metrics
// bookkeeping could leave running (a gauge refresh timer of a queue made but never run kept
// a standby replica's process alive). Other files keep the default (no provider): they
// count timers on fake clocks.
const testFile = process.argv[1] ?? '';
if (/[\\/]test[\\/](examples|manager)[\\/]/.test(testFile)) {
  const noop = { inc() {}, dec() {}, set() {}, observe() {} };
  const provider: MetricsProvider = {
    newDepthMetric: () => noop,
    newAddsMetric: () => noop,
    newLatencyMetric: () => noop,
    newWorkDurationMetric: () => noop,
    newUnfinishedWorkSecondsMetric: () => noop,
    newLongestRunningProcessorSecondsMetric: () => noop,
    newRetriesMetric: () => noop,
  };
  setDefaultMetricsProvider(provider);
}

const ignored = new Set(['TTYWrap', 'PipeWrap', 'FSReqCallback', 'FSReqPromise', 'Immediate']);

function openResources(): string[] {
  return process.getActiveResourcesInfo().filter((r) => !ignored.has(r));
}

after(async () => {
  // Give closing sockets a few turns of the event loop to finish closing.
  for (let i = 0; i < 50 && openResources().length > 0; i++) {
    await new Promise<void>((r) => setImmediate(r));
  }
  const left = openResources();
  if (left.length > 0) {
    throw new Error(`leak check: resources still open after the tests: ${left.join(', ')}`);
  }
});

process.on('unhandledRejection', (reason) => {
  console.error('unhandled rejection in test process:', reason);
  process.exitCode = 1;
});
