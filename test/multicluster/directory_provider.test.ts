// The kubeconfig directory provider (multicluster-runtime's providers/file, one file one
// cluster): files added, changed and removed engage, re-engage and disengage their cluster;
// an editor's partial writes are debounced (time from the fake clock); a bad file is logged
// once and skipped, never crashing the provider; reads are bounded.
import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  InvalidMultiClusterOptionsError,
  KubeconfigDirectoryProvider,
  clusterNameOfFile,
} from '../../src/multicluster/index.js';
import { FakeClock } from '../../src/util/clock.js';
import { eventually } from '../support/eventually.js';
import { RecordingAware, kubeconfigText, recordingLogger } from './support.js';

const good = (port: number, token = 't') => kubeconfigText(`http://127.0.0.1:${port}`, token);

describe('KubeconfigDirectoryProvider', () => {
  let dir: string;
  let stop: AbortController;
  let running: Promise<void> | undefined;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kck-members-'));
    stop = new AbortController();
    running = undefined;
  });
  afterEach(async () => {
    stop.abort();
    await running;
    rmSync(dir, { recursive: true, force: true });
  });

  function start(options: { clock?: FakeClock; debounceMs?: number; maxBytes?: number } = {}) {
    const aware = new RecordingAware();
    const log = recordingLogger();
    const provider = new KubeconfigDirectoryProvider({
      directory: dir,
      resyncIntervalMs: 0,
      logger: log.logger,
      ...options,
    });
    running = provider.start(stop.signal, aware);
    return { aware, provider, log };
  }

  /** Waits for the watcher's event to set the debounce timer, then lets it fire. */
  async function settle(clock: FakeClock, provider: KubeconfigDirectoryProvider, ms = 500) {
    const scans = provider.scans;
    await eventually('the watcher saw the change', () => clock.pendingTimers() > 0);
    await clock.advance(ms);
    await eventually('the directory was read again', () => provider.scans > scans);
  }

  test('file names: one file one cluster, extensions dropped, hidden and backup files ignored', () => {
    assert.equal(clusterNameOfFile('member-a.kubeconfig'), 'member-a');
    assert.equal(clusterNameOfFile('member-a.kubeconfig.yaml'), 'member-a');
    assert.equal(clusterNameOfFile('member-b.yml'), 'member-b');
    assert.equal(clusterNameOfFile('member-c'), 'member-c');
    for (const ignored of [
      '.member-a.swp',
      '..data',
      'member-a~',
      '#member-a#',
      'a.tmp',
      'a.bak',
    ]) {
      assert.equal(clusterNameOfFile(ignored), undefined, ignored);
    }
  });

  test('the files present at start are engaged, one cluster each, named after the file', async () => {
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1));
    writeFileSync(join(dir, 'member-b.yaml'), good(2));
    writeFileSync(join(dir, '.hidden'), good(3));
    const { aware, provider } = start();
    await eventually('both engaged', () => aware.names().length === 2);
    assert.deepEqual(aware.names(), ['member-a', 'member-b']);
    assert.deepEqual(provider.clusterNames(), ['member-a', 'member-b']);
    assert.equal(provider.get('member-a').name, 'member-a');
  });

  test('a file added at runtime is engaged after the debounce; a removed one is disengaged', async () => {
    const clock = new FakeClock();
    const { aware, provider } = start({ clock });
    await eventually('first scan', () => provider.scans === 1);
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1));
    await settle(clock, provider);
    await eventually('member-a engaged', () => aware.names().includes('member-a'));
    unlinkSync(join(dir, 'member-a.kubeconfig'));
    await settle(clock, provider);
    await eventually('member-a disengaged', () => aware.names().length === 0);
    assert.deepEqual(aware.events, ['engage member-a', 'disengage member-a']);
  });

  test('a changed file re-engages its cluster: the old engagement stops first; the same bytes again change nothing', async () => {
    const clock = new FakeClock();
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1, 'old'));
    const { aware, provider } = start({ clock });
    await eventually('engaged', () => aware.names().length === 1);
    const first = aware.live.get('member-a')!;
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1, 'new'));
    await settle(clock, provider);
    await eventually(
      're-engaged',
      () => aware.live.get('member-a') !== first && aware.live.has('member-a'),
    );
    assert.equal(first.signal.aborted, true, 'the old cluster was disengaged');
    assert.deepEqual(aware.events, ['engage member-a', 'disengage member-a', 'engage member-a']);
    const second = aware.live.get('member-a')!;
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1, 'new'));
    await settle(clock, provider);
    assert.equal(aware.live.get('member-a'), second, 'unchanged content: not re-engaged');
  });

  test("an editor's partial writes within the debounce are read once, whole", async () => {
    const clock = new FakeClock();
    const { aware, provider, log } = start({ clock, debounceMs: 500 });
    await eventually('first scan', () => provider.scans === 1);
    const text = good(1);
    const path = join(dir, 'member-a.kubeconfig');
    writeFileSync(path, text.slice(0, 40));
    await eventually('the watcher saw the first write', () => clock.pendingTimers() > 0);
    await clock.advance(300);
    writeFileSync(path, text);
    await eventually(
      'the second write moved the timer',
      () => clock.nextTimerAt() === clock.now() + 500,
    );
    await clock.advance(500);
    await eventually('engaged', () => aware.names().length === 1);
    assert.equal(provider.scans, 2, 'one read after the burst of writes');
    assert.deepEqual(
      log.lines.filter((l) => l.startsWith('error')),
      [],
      'the half-written file was never read',
    );
  });

  test('a bad file is logged once, skipped, and engaged once it is fixed; nothing crashes', async () => {
    const clock = new FakeClock();
    writeFileSync(join(dir, 'broken.kubeconfig'), 'clusters: [\n');
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1));
    const { aware, provider, log } = start({ clock });
    await eventually('member-a engaged', () => aware.names().includes('member-a'));
    // Another change elsewhere reads the directory again: the bad file is not logged again.
    writeFileSync(join(dir, 'member-b.kubeconfig'), good(2));
    await settle(clock, provider);
    await eventually('member-b engaged', () => aware.names().includes('member-b'));
    const errors = log.lines.filter((l) => l.startsWith('error'));
    assert.equal(errors.length, 1, errors.join('\n'));
    assert.match(
      errors[0]!,
      new RegExp(`kubeconfig ${join(dir, 'broken.kubeconfig')}: is not a YAML document`),
    );
    writeFileSync(join(dir, 'broken.kubeconfig'), good(3));
    await settle(clock, provider);
    await eventually('broken engaged once fixed', () => aware.names().includes('broken'));
  });

  test('a good file that turns bad keeps its last good cluster engaged (logged once)', async () => {
    const clock = new FakeClock();
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1));
    const { aware, provider, log } = start({ clock });
    await eventually('engaged', () => aware.names().length === 1);
    const first = aware.live.get('member-a')!;
    writeFileSync(join(dir, 'member-a.kubeconfig'), kubeconfigText('ftp://nope'));
    await settle(clock, provider);
    await eventually('the bad content reported', () =>
      log.lines.some((l) => /keeps its last good one/.test(l)),
    );
    assert.equal(aware.live.get('member-a'), first);
    assert.equal(first.signal.aborted, false);
    assert.equal(log.lines.filter((l) => /keeps its last good one/.test(l)).length, 1);
  });

  test('reads are bounded: a file over maxBytes, a device and a FIFO are skipped (logged once), never read whole', async () => {
    writeFileSync(join(dir, 'big.kubeconfig'), 'x'.repeat(5000));
    symlinkSync('/dev/zero', join(dir, 'zero.kubeconfig'));
    execFileSync('mkfifo', [join(dir, 'fifo.kubeconfig')]);
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1));
    const { aware, log } = start({ maxBytes: 4096 });
    await eventually('member-a engaged', () => aware.names().length === 1);
    await eventually(
      'three skipped',
      () => log.lines.filter((l) => l.startsWith('error')).length === 3,
    );
    const errors = log.lines.filter((l) => l.startsWith('error')).join('\n');
    assert.match(
      errors,
      /big\.kubeconfig is skipped: it is 5000 bytes, more than the limit of 4096/,
    );
    assert.match(errors, /zero\.kubeconfig is skipped: it is not a regular file/);
    assert.match(errors, /fifo\.kubeconfig is skipped: it is not a regular file/);
  });

  test('an invalid cluster name and a second file for one name are skipped, logged once', async () => {
    writeFileSync(join(dir, 'bad name.kubeconfig'), good(1));
    writeFileSync(join(dir, 'a.kubeconfig'), good(1));
    writeFileSync(join(dir, 'a.yaml'), good(2));
    const { aware, log } = start();
    await eventually('a engaged', () => aware.names().length === 1);
    await eventually(
      'two skipped',
      () => log.lines.filter((l) => l.startsWith('error')).length === 2,
    );
    const errors = log.lines.filter((l) => l.startsWith('error')).join('\n');
    assert.match(errors, /"bad name" is not a valid cluster name/);
    assert.match(errors, /a\.yaml is skipped: cluster a is already a\.kubeconfig/);
  });

  test('a directory that does not exist is a typed error at start', async () => {
    const provider = new KubeconfigDirectoryProvider({ directory: join(dir, 'missing') });
    await assert.rejects(
      provider.start(stop.signal, new RecordingAware()),
      InvalidMultiClusterOptionsError,
    );
  });

  test('stopping disengages every cluster and leaves no timer or watcher behind', async () => {
    const clock = new FakeClock();
    writeFileSync(join(dir, 'member-a.kubeconfig'), good(1));
    const { aware } = start({ clock });
    await eventually('engaged', () => aware.names().length === 1);
    stop.abort();
    await running;
    assert.deepEqual(aware.names(), []);
    assert.equal(clock.pendingTimers(), 0);
  });
});
