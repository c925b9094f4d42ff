// Loaded into every test file's process (see scripts/run-tests.mjs).
//
// Leak check: after a file's tests have finished, no socket, server, child process or timer
// the tests started may remain. A leak fails the file, naming what was left open.
import { after } from 'node:test';

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
