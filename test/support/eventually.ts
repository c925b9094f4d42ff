// Waiting for something that happens over real sockets: poll a condition until it holds,
// failing with what was awaited once the deadline passes.
import assert from 'node:assert/strict';

/**
 * Polls `cond` every `intervalMs` until it holds; fails naming `what` after `timeoutMs`.
 */
export async function eventually(
  what: string,
  cond: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
  intervalMs = 5,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) assert.fail(`timed out after ${timeoutMs} ms waiting for: ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
