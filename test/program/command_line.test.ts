// parseCommandLine / usage / runProgram: flags are declared, unknown ones are errors with
// the usage, --help prints it, and a failing main is logged with its causes.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  UsageError,
  clusterFlags,
  describeError,
  parseCommandLine,
  usage,
} from '../../src/program/index.js';

const spec = {
  name: 'prog',
  summary: 'Does a thing.',
  flags: {
    ...clusterFlags,
    workers: { value: 'N', default: '2', description: 'parallel workers' },
    dry: { description: 'change nothing' },
  },
};

describe('parseCommandLine', () => {
  test('an unknown flag is a UsageError carrying the usage text', () => {
    assert.throws(
      () => parseCommandLine(['--wrokers', '3'], spec),
      (err: unknown) =>
        err instanceof UsageError &&
        err.message === 'unknown flag --wrokers' &&
        err.usage.includes('--workers N'),
    );
  });

  test('a positional argument and a value on a boolean flag are errors', () => {
    assert.throws(() => parseCommandLine(['extra'], spec), /unexpected argument "extra"/);
    assert.throws(() => parseCommandLine(['--dry=yes'], spec), /--dry takes no value/);
  });

  test('a valued flag without its value is an error unless the value is optional', () => {
    assert.throws(() => parseCommandLine(['--workers'], spec), /--workers needs a value \(N\)/);
    assert.equal(parseCommandLine(['--kubeconfig'], spec).flags.kubeconfig, '');
    assert.equal(parseCommandLine(['--kubeconfig', '--dry'], spec).flags.kubeconfig, '');
    assert.equal(parseCommandLine(['--kubeconfig', 'a.yaml'], spec).flags.kubeconfig, 'a.yaml');
    assert.equal(parseCommandLine(['--kubeconfig=b.yaml'], spec).flags.kubeconfig, 'b.yaml');
  });

  test('defaults apply when a flag is absent; absent flags without default stay undefined (in-memory server)', () => {
    const { help, flags } = parseCommandLine(['--dry'], spec);
    assert.equal(help, false);
    assert.equal(flags.workers, '2');
    assert.equal(flags['log-level'], 'info');
    assert.equal(flags.dry, true);
    assert.equal(flags.kubeconfig, undefined);
  });

  test('--help and -h ask for the usage, which lists every flag with its default', () => {
    assert.equal(parseCommandLine(['--workers', '3', '--help'], spec).help, true);
    assert.equal(parseCommandLine(['-h'], spec).help, true);
    const text = usage(spec);
    assert.match(text, /^Usage: prog \[flags\]\n\nDoes a thing\./);
    for (const line of [
      '--kubeconfig[=PATH]',
      '--log-level LEVEL',
      '(default info)',
      '--dry',
      '--help',
    ]) {
      assert.ok(text.includes(line), line);
    }
  });
});

describe('describeError', () => {
  test('joins the cause chain, skipping messages already included', () => {
    const root = new Error('connect ECONNREFUSED 127.0.0.1:1');
    const mid = new Error('GET /version failed', { cause: root });
    const top = new Error('cannot reach the API server: GET /version failed', { cause: mid });
    assert.equal(
      describeError(top),
      'cannot reach the API server: GET /version failed: caused by: connect ECONNREFUSED 127.0.0.1:1',
    );
  });
});
